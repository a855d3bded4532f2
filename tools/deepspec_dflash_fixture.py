"""DeepSpec's DFlash (a `Qwen3DSparkModel` with `markov_rank 0` and no confidence head, as its `config/dflash/*.py`
build it) on a tiny seeded model, for the layout tests of nbs/03e_dspark.ipynb (run with the python of
tools/dspark_fixture.py: torch, transformers, safetensors; DeepSpec's source read from a git mirror at commit afdfa7c9).

    /tmp/ds_venv/bin/python tools/deepspec_dflash_fixture.py data_samples/deepspec_dflash_afdfa7c9 --deepspec DEEPSPEC_GIT_DIR

What it writes into OUT (a folder):
- `config.json`, `model.safetensors`: DeepSpec's own `save_pretrained` of the tiny model (hidden 32, 2 layers, vocab 160,
  block 5, taps [1, 3] of 6, mask id 159; norms moved off 1; the target's embedding and head included, as DeepSpec
  saves them): a released DeepSpec DFlash in its layout, as `--init-from` and `load_drafter` read it;
- `forward.safetensors` (float32; a JSON report in its metadata under 'report'):
  - `in/*`, `fwd/draft_logits`, `layout/target_ids`, `layout/eval_mask`: its training forward with injected anchors on
    the dense twin of its flex mask (as tools/dspark_fixture.py), its labels and their mask;
  - `loss/loss`: `compute_dspark_loss` with its DFlash recipe (CE only: alphas 1.0 / 0.0 / 0.0, gamma_d 4; gloo world 1);
  - `walk/*`: its inference path on three blocks after a 9-position context (one backbone pass, then
    `sample_draft_tokens` at temperature 0: without a Markov head, each row's argmax);
  - report `load`: DeepSpec's `from_pretrained(..., output_loading_info=True)` on an export of the same weights written
    by our `DSparkDrafter.save_pretrained` (fp32): missing / unexpected keys, the largest difference, our `config.json`.
"""
import argparse, json, os, shlex, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dspark_fixture import COMMIT, REPO, Args, start, tiny_target_config, set_eager, dense_rule


def build_dflash(torch, seed:int=0):
    "A seeded tiny DeepSpec DFlash: `build_draft_config` with markov_rank 0 and confidence_head_alpha 0 (its DFlash configs)."
    from deepspec.modeling.dspark.qwen3.config import build_draft_config
    from deepspec.modeling.dspark.qwen3.modeling import Qwen3DSparkModel
    args = Args(num_draft_layers=2, target_layer_ids=[1, 3], confidence_head_alpha=0.0, markov_rank=0, block_size=5,
                mask_token_id=159, num_anchors=6)
    torch.manual_seed(seed)
    m = Qwen3DSparkModel(build_draft_config(tiny_target_config(), args)).float()
    assert m.markov_head is None and m.confidence_head is None
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for n, p in m.named_parameters():
            if n.endswith('norm.weight'): p.copy_(torch.rand(p.shape, generator=g) + 0.5)
        emb = torch.nn.Embedding(160, 32); emb.weight.copy_(torch.randn(160, 32, generator=g))
        head = torch.nn.Linear(32, 160, bias=False); head.weight.copy_(torch.randn(160, 32, generator=g) * 0.3)
    m.initialize_embeddings_and_head(embed_tokens=emb, lm_head=head, freeze=True)
    return m


def main(argv=None):
    a = start(argv, __doc__)
    import torch, transformers, safetensors
    import torch.distributed as dist
    from safetensors.torch import save_file, load_file
    import deepspec.modeling.dspark.qwen3.modeling as dsm
    from deepspec.modeling.dspark import common
    from deepspec.modeling.dspark.loss import compute_dspark_loss
    from deepspec.modeling.dspark.qwen3.modeling import Qwen3DSparkModel
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    T, rep = {}, {'deepspec_commit': COMMIT, 'torch': torch.__version__, 'transformers': transformers.__version__, 'safetensors': safetensors.__version__,
                  'command': shlex.join([Path(sys.executable).name, 'tools/deepspec_dflash_fixture.py', *sys.argv[1:]])}
    model = build_dflash(torch)
    model.save_pretrained(str(out))
    rep['saved_files'] = sorted(f.name for f in out.iterdir())
    V, H, G, S, B = 160, 32, 5, 24, 2

    g = torch.Generator().manual_seed(1)                  # the training forward, anchors injected (as tools/dspark_fixture.py)
    ids = torch.randint(0, V - 1, (B, S), generator=g)
    lm = torch.ones(B, S, dtype=torch.long); lm[:, :5] = 0; lm[0, 15] = 0; lm[1, 20:] = 0
    th, tl = torch.randn(B, S, 2 * H, generator=g), torch.randn(B, S, H, generator=g)
    anchors = torch.tensor([[5, 9, 13, 20, 22, 0], [5, 7, 12, 16, 18, 0]])
    keep = torch.tensor([[True] * 5 + [False], [True] * 5 + [False]])
    T.update({'in/input_ids': ids, 'in/loss_mask': lm, 'in/target_hidden': th, 'in/target_last_hidden': tl, 'in/anchors': anchors, 'in/keep': keep})
    def additive_mask(*, anchor_positions, block_keep_mask, seq_len, block_size, device):
        bm = common.create_dspark_attention_mask(anchor_positions=anchor_positions, block_keep_mask=block_keep_mask,
                                                 seq_len=seq_len, block_size=block_size, device=device)
        d = dense_rule(torch, bm, anchor_positions.shape[0], anchor_positions.shape[1] * block_size, seq_len + anchor_positions.shape[1] * block_size)
        d = d | ~d.any(-1, keepdim=True)
        return torch.zeros(d.shape, dtype=torch.float32).masked_fill(~d, torch.finfo(torch.float32).min)[:, None]
    dsm.sample_anchor_positions = lambda **kw: (anchors, keep)
    dsm.create_dspark_attention_mask = additive_mask
    set_eager(model)
    with torch.no_grad():
        o = model(input_ids=ids, target_hidden_states=th, loss_mask=lm, target_last_hidden_states=tl)
        assert o.confidence_pred is None
        T['fwd/draft_logits'], T['layout/target_ids'], T['layout/eval_mask'] = o.draft_logits.clone(), o.target_ids.clone(), o.eval_mask.clone()
        T['loss/loss'] = compute_dspark_loss(outputs=o, loss_decay_gamma=4.0, ce_loss_alpha=1.0, l1_loss_alpha=0.0,
                                             confidence_head_alpha=0.0).reshape(1).clone()

    C, N = 9, 3                                           # the inference walk: one backbone pass, each row's argmax
    wth, wanc = torch.randn(N, C, 2 * H, generator=g), torch.tensor([3, 17, 159])
    bids = torch.full((N, G), 159); bids[:, 0] = wanc
    with torch.no_grad():
        hid = model._forward_backbone(position_ids=torch.arange(C + G)[None].expand(N, -1), noise_embedding=model.embed_tokens(bids),
                                      target_hidden_states=wth, attention_mask=None, is_causal=False)
        toks, zl = model.sample_draft_tokens(model.compute_logits(hid), first_prev_token_ids=wanc, temperature=0.0, hidden_states=hid)
    T.update({'walk/target_hidden': wth, 'walk/anchor_ids': wanc, 'walk/hidden': hid, 'walk/tokens': toks, 'walk/logits': zl})

    with tempfile.TemporaryDirectory() as tmp:            # our export of the same weights, loaded by DeepSpec
        from dflash_nb.families import load_drafter
        ours = load_drafter(out)
        ours.save_pretrained(f'{tmp}/ours', model.embed_tokens.weight, model.lm_head.weight, dtype=torch.float32)
        back, info = Qwen3DSparkModel.from_pretrained(f'{tmp}/ours', output_loading_info=True)
        wrote, bsd = load_file(f'{tmp}/ours/model.safetensors'), back.state_dict()
        rep['load'] = {'missing_keys': sorted(info.get('missing_keys', [])), 'unexpected_keys': sorted(info.get('unexpected_keys', [])),
                       'mismatched_keys': [list(map(str, x)) for x in info.get('mismatched_keys', [])],
                       'markov_head': back.markov_head is not None, 'confidence_head': back.confidence_head is not None,
                       'max_abs_diff': max(float((bsd[k].float() - wrote[k].float()).abs().max()) for k in wrote),
                       'our_config': json.loads(Path(f'{tmp}/ours/config.json').read_text())}
    dist.destroy_process_group()
    T = {k: (v.contiguous() if v.dtype != torch.bool else v.to(torch.uint8).contiguous()) for k, v in T.items()}
    save_file(T, str(out / 'forward.safetensors'), metadata={'report': json.dumps(rep)})
    print(f"{out}: {', '.join(sorted(f.name for f in out.iterdir()))}; DeepSpec's load of our export: missing {rep['load']['missing_keys']}, "
          f"unexpected {rep['load']['unexpected_keys']}, max |diff| {rep['load']['max_abs_diff']}")


if __name__ == '__main__': main()
