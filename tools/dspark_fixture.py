"""DeepSpec's DSpark on fixed random inputs, for the parity tests of nbs/03e_dspark.ipynb (run with a python that has
torch, transformers and safetensors; DeepSpec itself is not installed, its source is read from a git mirror).

    python tools/dspark_fixture.py OUT.safetensors --deepspec DEEPSPEC_GIT_DIR

`--deepspec` is a git directory of github.com/deepseek-ai/DeepSpec (a mirror or clone) holding commit afdfa7c9: the
files under `deepspec/` are taken from that commit with `git show` (`git archive` fails on the mirror: a blob of
`eval_datasets/` is missing) into a temporary folder put first on sys.path; or a folder that already holds such a
`deepspec/` package. The repo root (this file's parent's parent) is put on sys.path too: the export-load check writes a
DSpark export with *our* `dflash_nb.dspark` and loads it with DeepSpec's `from_pretrained`.

Recorded (float32 tensors in one safetensors file, the rest as JSON in its metadata under 'report'), on a tiny seeded
`Qwen3DSparkModel` (hidden 32, 2 layers, vocab 160, gamma 5, rank 16, initializer_range 0.2, norms and the confidence
bias moved off their init so that no weight is trivial):
- `w/NAME`: every tensor of the model (embed_tokens and lm_head included), the inputs `in/*` and the anchors;
- `markov/*`: `VanillaMarkov.compute_step_bias` on predecessor ids and `apply_block_logits` on a block;
- `conf/*`: `predict_confidence_step` with the Markov features and of a second model without them (`conf2/w/*`);
- `layout/*`: `build_anchor_candidate_mask`, `create_noise_embed` (ids), `create_position_ids`, the forward's labels
  (`target_ids`) and `eval_mask`, and `sample_anchor_positions` drawn after `torch.manual_seed(1234)`;
- `mask/dense`: `create_dspark_attention_mask`'s rule evaluated on every (query, key) pair (its BlockMask's mask_mod);
- `fwd/*`: `Qwen3DSparkModel.forward` with the anchors injected, on its dense twin (eager attention, the same rule as
  an additive mask, all-zero rows for dropped blocks: flex_attention has no backward on a CPU): Markov-corrected
  logits, confidence logits, the target's aligned logits;
- `loss/*` and `grad/NAME`: `compute_dspark_loss` (gloo, world size 1; gamma_d 4, alphas 0.1/0.9/1.0), its three
  numerators and the denominator, and the gradient of every trained parameter after its backward;
- `walk/*`: DeepSpec's inference path: one backbone pass over [x0, MASK...] after a context (no mask), then
  `sample_draft_tokens` at temperature 0 and at 0.8 (after `torch.manual_seed(7)`), the confidence of
  `predict_confidence_step` with the drafted predecessors, and the evaluator's `build_dspark_proposal` (batch 1);
- report `ds_export`: the `config.json` and tensor names/shapes of DeepSpec's own `save_pretrained`;
- report `load`: DeepSpec's `Qwen3DSparkModel.from_pretrained(..., output_loading_info=True)` on an export written by
  our `DSparkDrafter.save_pretrained` (bf16): missing / unexpected / mismatched keys and the largest difference
  between each loaded tensor and ours.
"""
import argparse, json, os, shlex, socket, subprocess, sys, tempfile
from pathlib import Path

COMMIT = 'afdfa7c9'
REPO = Path(__file__).resolve().parent.parent


def extract_deepspec(src:str) -> str:
    "A folder holding DeepSpec's `deepspec/` package at COMMIT: `src` itself if it has one, else extracted from git dir `src`."
    if (Path(src) / 'deepspec' / '__init__.py').exists(): return src
    out = tempfile.mkdtemp(prefix='deepspec_')
    names = subprocess.run(['git', '--git-dir', src, 'ls-tree', '-r', '--name-only', COMMIT, 'deepspec'], check=True,
                           capture_output=True, text=True).stdout.split()
    for n in names:
        p = Path(out) / n; p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(subprocess.run(['git', '--git-dir', src, 'show', f'{COMMIT}:{n}'], check=True, capture_output=True).stdout)
    return out


def _free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p


def start(argv, doc:str):
    "The start of a DeepSpec recording: OUT and --deepspec parsed, DeepSpec's package and this checkout first on `sys.path`, one thread, a gloo world of one (its loss and metrics need a process group)."
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('out'); ap.add_argument('--deepspec', required=True, help='git dir of DeepSpec (or a folder with its deepspec/ package)')
    a = ap.parse_args(argv)
    sys.path[:0] = [extract_deepspec(a.deepspec), str(REPO)]
    import torch, torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{_free_port()}', rank=0, world_size=1)
    return a


class Args(dict):
    "DeepSpec's model_args: `in` and attribute access."
    __getattr__ = dict.__getitem__


def tiny_target_config():
    from transformers import Qwen3Config
    return Qwen3Config(vocab_size=160, hidden_size=32, intermediate_size=64, num_hidden_layers=6, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=8, rms_norm_eps=1e-6, max_position_embeddings=512, initializer_range=0.2,
                       rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0}, tie_word_embeddings=False)


def build_model(torch, with_markov:bool=True, seed:int=0):
    "A seeded tiny Qwen3DSparkModel (DeepSpec's build_draft_config), norms and the confidence bias moved off their init, fp32."
    from deepspec.modeling.dspark.qwen3.config import build_draft_config
    from deepspec.modeling.dspark.qwen3.modeling import Qwen3DSparkModel
    args = Args(num_draft_layers=2, target_layer_ids=[1, 3], confidence_head_alpha=1.0, confidence_head_with_markov=with_markov,
                markov_rank=16, markov_head_type='vanilla', block_size=5, mask_token_id=159, num_anchors=6)
    cfg = build_draft_config(tiny_target_config(), args)
    torch.manual_seed(seed)
    m = Qwen3DSparkModel(cfg).float()
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for n, p in m.named_parameters():
            if n.endswith('norm.weight'): p.copy_(torch.rand(p.shape, generator=g) + 0.5)
        m.confidence_head.proj.bias.fill_(0.3)
        emb = torch.nn.Embedding(160, 32); emb.weight.copy_(torch.randn(160, 32, generator=g))
        head = torch.nn.Linear(32, 160, bias=False); head.weight.copy_(torch.randn(160, 32, generator=g) * 0.3)
    m.initialize_embeddings_and_head(embed_tokens=emb, lm_head=head, freeze=True)
    return m


def set_eager(model):
    "Eager attention on every config the model's modules read."
    for m in model.modules():
        if hasattr(m, 'config'): m.config._attn_implementation = 'eager'
    assert model.layers[0].self_attn.config._attn_implementation == 'eager', model.layers[0].self_attn.config._attn_implementation


def dense_rule(torch, bm, B, Q, KV):
    "The BlockMask's mask_mod on every (b, q, kv): Bool [B, Q, KV]."
    b = torch.arange(B)[:, None, None]; q = torch.arange(Q)[None, :, None]; kv = torch.arange(KV)[None, None, :]
    return bm.mask_mod(b, None, q, kv).expand(B, Q, KV).clone()


def main(argv=None):
    a = start(argv, __doc__)
    import torch, transformers, safetensors
    import torch.distributed as dist
    from safetensors.torch import save_file, load_file
    import deepspec.modeling.dspark.qwen3.modeling as dsm
    from deepspec.modeling.dspark import common
    from deepspec.modeling.dspark.loss import compute_dspark_loss, _collect_local_terms
    from deepspec.modeling.dspark.qwen3.modeling import Qwen3DSparkModel
    T, rep = {}, {'deepspec_commit': COMMIT, 'torch': torch.__version__, 'transformers': transformers.__version__,
                  'safetensors': safetensors.__version__, 'command': shlex.join([Path(sys.executable).name, 'tools/dspark_fixture.py', *sys.argv[1:]])}
    model = build_model(torch)
    rep['config'] = model.config.to_dict()
    for k, v in model.state_dict().items(): T[f'w/{k}'] = v.float().clone()
    V, H, G, S, B = 160, 32, 5, 24, 2

    # inputs and injected anchors (every kept anchor a valid candidate; dropped slots last, anchor 0)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, V - 1, (B, S), generator=g)
    lm = torch.ones(B, S, dtype=torch.long); lm[:, :5] = 0; lm[0, 15] = 0; lm[1, 20:] = 0
    th, tl = torch.randn(B, S, 2 * H, generator=g), torch.randn(B, S, H, generator=g)
    anchors = torch.tensor([[5, 9, 13, 20, 22, 0], [5, 7, 12, 16, 18, 0]])
    keep = torch.tensor([[True] * 5 + [False], [True] * 5 + [False]])
    T.update({'in/input_ids': ids, 'in/loss_mask': lm, 'in/target_hidden': th, 'in/target_last_hidden': tl, 'in/anchors': anchors, 'in/keep': keep})

    # Markov head and confidence head
    prev = torch.tensor([0, 5, 17, 42, 99, 158, 159])
    hh = torch.randn(7, H, generator=g)
    with torch.no_grad():
        T['markov/prev'], T['markov/bias'] = prev, model.markov_head.compute_step_bias(prev, None)
        base = torch.randn(1, 2, G, V, generator=g); tok = torch.randint(0, V, (1, 2, G), generator=g)
        T['markov/block_base'], T['markov/block_prev'] = base, tok
        T['markov/block_logits'] = model.markov_head.apply_block_logits(base, token_ids=tok, hidden_states=None)
        T['conf/hidden'], T['conf/logits'] = hh, model.predict_confidence_step(hh, prev_token_ids=prev)
        m2 = build_model(torch, with_markov=False, seed=3)
        for k, v in m2.confidence_head.state_dict().items(): T[f'conf2/w/{k}'] = v.clone()
        T['conf2/logits'] = m2.predict_confidence_step(hh)

    # layout: pure functions, and DeepSpec's own anchor draw
    T['layout/candidates'] = common.build_anchor_candidate_mask(seq_len=S, loss_mask=lm)
    T['layout/noise_ids'] = common.create_noise_embed(lambda x: x, ids, anchors, keep, mask_token_id=159, block_size=G)
    T['layout/position_ids'] = common.create_position_ids(anchors, G)
    torch.manual_seed(1234)
    T['layout/sampled_anchors'], T['layout/sampled_keep'] = common.sample_anchor_positions(seq_len=S, loss_mask=lm, num_anchors=8, device='cpu')

    # the mask rule, densely
    bm = common.create_dspark_attention_mask(anchor_positions=anchors, block_keep_mask=keep, seq_len=S, block_size=G, device='cpu')
    dense = dense_rule(torch, bm, B, anchors.shape[1] * G, S + anchors.shape[1] * G)
    T['mask/dense'] = dense

    # forward on the dense twin, loss, gradients
    def additive_mask(*, anchor_positions, block_keep_mask, seq_len, block_size, device):
        bm = common.create_dspark_attention_mask(anchor_positions=anchor_positions, block_keep_mask=block_keep_mask,
                                                 seq_len=seq_len, block_size=block_size, device=device)
        d = dense_rule(torch, bm, anchor_positions.shape[0], anchor_positions.shape[1] * block_size, seq_len + anchor_positions.shape[1] * block_size)
        d = d | ~d.any(-1, keepdim=True)                     # dropped blocks: a finite all-zero row (weight 0 in every term)
        return torch.zeros(d.shape, dtype=torch.float32).masked_fill(~d, torch.finfo(torch.float32).min)[:, None]
    dsm.sample_anchor_positions = lambda **kw: (anchors, keep)
    dsm.create_dspark_attention_mask = additive_mask
    set_eager(model)
    model.train()
    out = model(input_ids=ids, target_hidden_states=th, loss_mask=lm, target_last_hidden_states=tl)
    T['fwd/draft_logits'], T['fwd/confidence'] = out.draft_logits.detach().clone(), out.confidence_pred.detach().clone()
    T['fwd/aligned_target_logits'] = out.aligned_target_logits.detach().clone()
    T['layout/target_ids'], T['layout/eval_mask'] = out.target_ids.clone(), out.eval_mask.clone()
    with torch.no_grad():
        terms, _ = _collect_local_terms(outputs=out, loss_decay_gamma=4.0, l1_loss_alpha=0.9)
    for k in ('ce_loss_num', 'l1_loss_num', 'confidence_loss_num', 'ce_loss_den'): T[f'loss/{k}'] = terms[k].detach().reshape(1).clone()
    loss = compute_dspark_loss(outputs=out, loss_decay_gamma=4.0, ce_loss_alpha=0.1, l1_loss_alpha=0.9, confidence_head_alpha=1.0)
    loss.backward()
    T['loss/loss'] = loss.detach().reshape(1).clone()
    rep['grad_params'] = sorted(n for n, p in model.named_parameters() if p.grad is not None)
    rep['frozen_params'] = sorted(n for n, p in model.named_parameters() if not p.requires_grad)
    for n, p in model.named_parameters():
        if p.grad is not None: T[f'grad/{n}'] = p.grad.clone()
    model.eval()

    # the inference walk: one backbone pass over [x0, MASK...] after a context, then the Markov walk and the confidence
    from deepspec.eval.dspark.draft_ops import build_dspark_proposal
    C, N = 9, 3
    wth, wanc = torch.randn(N, C, 2 * H, generator=g), torch.tensor([3, 17, 159])
    bids = torch.full((N, G), 159); bids[:, 0] = wanc
    with torch.no_grad():
        hid = model._forward_backbone(position_ids=torch.arange(C + G)[None].expand(N, -1), noise_embedding=model.embed_tokens(bids),
                                      target_hidden_states=wth, attention_mask=None, is_causal=False)
        basel = model.compute_logits(hid)
        toks, zl = model.sample_draft_tokens(basel, first_prev_token_ids=wanc, temperature=0.0, hidden_states=hid)
        conf = model.predict_confidence_step(hid, prev_token_ids=torch.cat([wanc[:, None], toks[:, :-1]], 1))
        torch.manual_seed(7)
        stoks, szl = model.sample_draft_tokens(basel, first_prev_token_ids=wanc, temperature=0.8, hidden_states=hid)
        props = [build_dspark_proposal(model, draft_input_ids=bids[i:i + 1], block_hidden=hid[i:i + 1], block_size=G, temperature=0.0,
                                       confidence_threshold=0.0) for i in range(N)]
    T.update({'walk/target_hidden': wth, 'walk/anchor_ids': wanc, 'walk/hidden': hid, 'walk/tokens': toks, 'walk/logits': zl,
              'walk/confidence': conf, 'walk/sampled_tokens': stoks, 'walk/sampled_logits': szl,
              'walk/proposal_ids': torch.cat([p.verify_input_ids for p in props]), 'walk/proposal_confidence': torch.cat([p.confidence_logits for p in props])})

    with tempfile.TemporaryDirectory() as tmp:
        # DeepSpec's own export: config.json and names
        model.save_pretrained(f'{tmp}/ds')
        with open(f'{tmp}/ds/config.json') as f: rep['ds_export'] = {'config': json.load(f)}
        sd = load_file(f'{tmp}/ds/model.safetensors')
        rep['ds_export']['tensors'] = {k: list(v.shape) for k, v in sorted(sd.items())}
        # our export, loaded by DeepSpec
        from dflash_nb.dspark import DSparkConfig, DSparkDrafter
        cfg = DSparkConfig.from_hf_dict(rep['ds_export']['config'])
        ours = DSparkDrafter(cfg)
        own = {k: v for k, v in model.state_dict().items() if k not in ('embed_tokens.weight', 'lm_head.weight')}
        ours.load_state_dict(own)
        ours.save_pretrained(f'{tmp}/ours', model.embed_tokens.weight, model.lm_head.weight)
        back, info = Qwen3DSparkModel.from_pretrained(f'{tmp}/ours', output_loading_info=True)
        wrote = load_file(f'{tmp}/ours/model.safetensors')
        bsd = back.state_dict()
        rep['load'] = {'missing_keys': sorted(info.get('missing_keys', [])), 'unexpected_keys': sorted(info.get('unexpected_keys', [])),
                       'mismatched_keys': [list(map(str, x)) for x in info.get('mismatched_keys', [])],
                       'error_msgs': [str(x) for x in info.get('error_msgs', [])],
                       'loaded_dtype': str(next(iter(bsd.values())).dtype),
                       'params': {k: list(v.shape) for k, v in sorted(bsd.items())},
                       'max_abs_diff': max(float((bsd[k].float() - wrote[k].float()).abs().max()) for k in wrote),
                       'our_config': json.loads(Path(f'{tmp}/ours/config.json').read_text())}
    dist.destroy_process_group()
    T = {k: (v.contiguous() if v.dtype != torch.bool else v.to(torch.uint8).contiguous()) for k, v in T.items()}
    save_file(T, a.out, metadata={'report': json.dumps(rep)})
    print(f"{a.out}: {len(T)} tensors, {os.path.getsize(a.out) / 1e3:.0f} kB; DeepSpec load of our export: "
          f"missing {rep['load']['missing_keys']}, unexpected {rep['load']['unexpected_keys']}, max |diff| {rep['load']['max_abs_diff']}")


if __name__ == '__main__': main()
