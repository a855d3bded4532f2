"""DeepSpec's verification and acceptance accounting on a scripted toy target, for the tests of `## DeepSpec's
accounting` in nbs/07b_tau.ipynb (run with a python that has torch, transformers and safetensors; DeepSpec itself is
not installed, its source is read from a git mirror, as tools/dspark_fixture.py does).

    python tools/deepspec_verify_fixture.py OUT.safetensors --deepspec DEEPSPEC_GIT_DIR

`--deepspec` as in tools/dspark_fixture.py: a git directory of github.com/deepseek-ai/DeepSpec holding commit afdfa7c9
(its `deepspec/` files are taken with `git show`), or a folder that already holds that `deepspec/` package.

The toy target is scripted: its logits at position t are a fixed row of a table (`ScriptedTarget`), whatever the
input; a proposal is fixed tokens with fixed draft logits. Recorded (tensors in one safetensors file, the rest as JSON in
its metadata under 'report'; vocab 16, gamma 4, stop token 15):
- `v/CASE/*`: `verify_draft_tokens` (deepspec/eval/base_evaluator.py) on one block: inputs `target_logits` [n+1, V],
  `draft_logits` [n, V], `drafts` [n], `u` (the uniforms of the accept test: `torch.rand(n)` from
  `torch.Generator().manual_seed(seed)`, given to DeepSpec in place of its `torch.rand_like`, so our loop drawing from
  that seed meets the same ones); outputs `target_probs`, `draft_probs` (DeepSpec's q, `logits_to_probs` of the draft
  logits), `accept_prob`, `accepted`, `effective`, `terminated`, `committed`, `next_token` and `next_dist`: the
  distribution DeepSpec drew the token after the accepted drafts from (the residual max(p - q, 0) normalised at a
  rejection, the last target row after all accepted), captured at its `sample_from_probs`, so no test depends on an
  RNG stream. Greedy cases (T 0): all accepted, rejections at 0 and 2, a stop token among the accepted drafts, a stop
  token as the bonus and as the correction, no drafts, a proposal cut to 2; sampled (T 0.7): a rejection at 2, all
  accepted, a stop token among the accepted drafts.
- `loop/*`: `generate_decoding_sample` (greedy) on four scripted prompts (`loop/I/script`: the prompt then the target's
  greedy continuation; `loop/I/wrong`: positions where the scripted drafter proposes another token), max_new_tokens 12:
  one ends on the length budget, one on a stop token among accepted drafts, one on a stop token as the correction, one on
  a stop token from the prefill; per prompt `acceptance_lengths`, `proposal_lengths`, `accepted_draft_lengths`,
  `output_ids`; report `loop`: `allreduce_response_metrics` (gloo, world size 1) and `build_metrics_row`.
- `cutloop/*`: the same loop with the proposal cut by DeepSpec's `_confident_prefix_length` (deepspec/eval/dspark/
  draft_ops.py) on scripted per-position confidence logits at threshold 0.5: rounds and the metrics row (report `cutloop`).
- `cut/*`: `_confident_prefix_length` on scripted confidence logits [M, gamma] at several thresholds, one row where the
  per-step rule and a cumulative product disagree; `walkcut/*`: `build_dspark_proposal`'s draft count on the walk of
  tools/dspark_fixture.py (its model rebuilt by `build_model`, the walk's hidden states read from
  data_samples/deepspec_dspark_afdfa7c9.safetensors) at several thresholds, with the confidence logits it cut on.
"""
import argparse, json, os, shlex, socket, sys
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / 'tools'))
from dspark_fixture import COMMIT, start, build_model   # noqa: E402

V, GAMMA, EOS, T_SAMPLED, N_NEW = 16, 4, 15, 0.7, 12


class ScriptedTarget:
    "A causal LM whose logits at position t are `table[t]` (whatever the tokens): the call DeepSpec's loop makes."
    def __init__(self, table): self.table = table
    def __call__(self, input_ids, position_ids, past_key_values=None, use_cache=True, output_hidden_states=False, logits_to_keep=None):
        logits = self.table[position_ids[0]][None]
        if logits_to_keep: logits = logits[:, -logits_to_keep:]
        return SimpleNamespace(logits=logits, hidden_states=None)


def onehot_logits(torch, ids, scale=8.0):
    return torch.nn.functional.one_hot(torch.as_tensor(ids), V).float() * scale


def greedy_cases(torch):
    "name: (anchor, target argmax [n+1], drafts [n])"
    A = [7, 2, 9, 4, 11]
    return {'g_all': (3, A, A[:4]), 'g_reject2': (3, A, [7, 2, 5, 4]), 'g_reject0': (3, A, [1, 2, 9, 4]),
            'g_eos_drafts': (3, [7, EOS, 9, 4, 11], [7, EOS, 9, 4]), 'g_eos_bonus': (3, [7, 2, 9, 4, EOS], [7, 2, 9, 4]),
            'g_eos_correction': (3, [7, EOS, 9, 4, 11], [7, 3, 9, 4]), 'g_none': (3, A[:1], []), 'g_cut2': (3, A[:3], [7, 2])}


def sampled_case(torch, drafts, ratios, seed):
    "(target logits [n+1, V], draft logits [n, V]) at T_SAMPLED with p(d_k) = ratio_k q(d_k) (ratio None: p(d_k) >= q(d_k))."
    g = torch.Generator().manual_seed(seed + 1000)
    n = len(drafts)
    q = torch.softmax(torch.randn(n, V, generator=g), -1)
    p = torch.softmax(torch.randn(n + 1, V, generator=g), -1)
    for k, (d, r) in enumerate(zip(drafts, ratios)):
        want = min(r * float(q[k, d]), 0.95) if r is not None else max(float(p[k, d]), float(q[k, d]) + 0.05)
        rest = torch.ones(V, dtype=torch.bool); rest[d] = False
        p[k, rest] = p[k, rest] / p[k, rest].sum() * (1 - want); p[k, d] = want
    return T_SAMPLED * p.log(), T_SAMPLED * q.log()


def record_verify(torch, be, smp, T, name, anchor, drafts, tl, dl, temperature, seed):
    from deepspec.eval.base_evaluator import DraftProposal
    from deepspec.utils.sampling import logits_to_probs
    n = len(drafts)
    q = logits_to_probs(dl[None], temperature) if n else None
    u = torch.rand(n, generator=torch.Generator().manual_seed(seed))
    seen, orig_rand, orig_s, orig_b = [], torch.rand_like, smp.sample_from_probs, be.sample_from_probs
    def capture(probs): seen.append(probs.detach().clone()); return orig_s(probs)
    torch.rand_like = lambda x, **kw: u.view_as(x).to(x.dtype)
    smp.sample_from_probs = be.sample_from_probs = capture
    try:
        res = be.verify_draft_tokens(target_model=ScriptedTarget(tl), position_ids=torch.arange(n + 1)[None], start=0,
                                     proposal=DraftProposal(n, torch.tensor([[anchor, *drafts]]), q), past_key_values_target=None,
                                     temperature=temperature, max_proposal_tokens=GAMMA, current_token_ids=torch.tensor([[anchor]]),
                                     stop_token_ids=[EOS])
    finally: torch.rand_like, smp.sample_from_probs, be.sample_from_probs = orig_rand, orig_s, orig_b
    assert len(seen) == 1, len(seen)
    pre = f'v/{name}/'
    T.update({pre + 'target_logits': tl, pre + 'drafts': torch.tensor(drafts, dtype=torch.long).reshape(n), pre + 'anchor': torch.tensor([anchor]),
              pre + 'u': u, pre + 'target_probs': res.target_probs[0], pre + 'accepted': torch.tensor([res.accepted_draft_tokens]),
              pre + 'effective': torch.tensor([res.effective_proposal_length]), pre + 'terminated': torch.tensor([int(res.terminated_by_stop_token)]),
              pre + 'committed': res.committed_tokens[0], pre + 'next_token': res.next_token.reshape(1), pre + 'next_dist': seen[0].reshape(V)})
    if n:
        T.update({pre + 'draft_logits': dl, pre + 'draft_probs': q[0], pre + 'accept_prob': torch.clamp(
            q.new_tensor([float(res.target_probs[0, k, d]) for k, d in enumerate(drafts)]) / q[0, torch.arange(n), drafts].clamp_min(1e-8), max=1.0)})
    return {'temperature': temperature, 'seed': seed, 'n': n, 'accepted': res.accepted_draft_tokens,
            'effective': res.effective_proposal_length, 'terminated': res.terminated_by_stop_token, 'committed': res.committed_tokens[0].tolist()}


def loop_scripts(torch):
    "(prompt length, script, wrong positions) per prompt: the target's greedy continuation is script[S:], drafts follow it except at `wrong`."
    g = torch.Generator().manual_seed(5)
    base = lambda L: torch.randint(0, EOS - 1, (L,), generator=g)     # no stop token, no 14
    s0 = base(40)                                                   # length budget: rounds of 2, 5, 4, then one past it
    s1 = base(40); s1[13] = EOS                                     # 2nd draft of round 2 (start 11) is the stop token
    s2 = base(40); s2[11] = EOS                                     # the correction of round 2 (start 8) is the stop token
    s3 = base(40); s3[4] = EOS                                      # the prefill's token is the stop token
    return [(5, s0, [7, 14, 16]), (6, s1, []), (5, s2, [8, 11]), (4, s3, [])]


def script_table(torch, script):
    "Logits [L, V]: row t predicts script[t + 1]."
    return onehot_logits(torch, torch.cat([script[1:], script[-1:]]))


def make_propose(torch, script, wrong, cut=None):
    from deepspec.eval.base_evaluator import DraftProposal
    from deepspec.utils.sampling import logits_to_probs
    def propose(*, context, output_ids, position_ids, start, stop_token_ids):
        d = [int(script[p]) if p not in wrong else (int(script[p]) + 1) % (EOS - 1) for p in range(start + 1, start + 1 + GAMMA)]
        n = GAMMA if cut is None else cut(start)
        return DraftProposal(n, torch.tensor([[int(output_ids[0, start]), *d[:n]]]),
                             logits_to_probs(onehot_logits(torch, d[:n])[None], 0.0) if n else None)
    return propose


def run_loop(torch, be, T, rep, key, cut=None):
    from transformers import DynamicCache
    ev = SimpleNamespace(max_proposal_tokens=GAMMA, device=torch.device('cpu'))
    responses = []
    for i, (S, script, wrong) in enumerate(loop_scripts(torch)):
        r = be.generate_decoding_sample(target_model=ScriptedTarget(script_table(torch, script)), input_ids=script[:S][None],
                                        max_new_tokens=N_NEW, max_proposal_tokens=GAMMA, temperature=0.0, stop_token_ids=[EOS],
                                        init_context=lambda **kw: None, propose=make_propose(torch, script, set(wrong), cut),
                                        update=lambda c, v: None)
        responses.append(r)
        pre = f'{key}/{i}/'
        T.update({pre + 'script': script, pre + 'prompt_len': torch.tensor([S]), pre + 'wrong': torch.tensor(wrong, dtype=torch.long).reshape(len(wrong)),
                  pre + 'output_ids': r.output_ids[0], **{pre + k: torch.tensor(getattr(r, k), dtype=torch.long).reshape(-1)
                                                          for k in ('acceptance_lengths', 'proposal_lengths', 'accepted_draft_lengths')}})
    summary = be.BaseEvaluator.allreduce_response_metrics(ev, responses)
    rep[key] = {'summary': summary, 'row': be.BaseEvaluator.build_metrics_row(ev, dataset_name='toy', metric_summary=summary),
                'rounds': [{k: getattr(r, k) for k in ('acceptance_lengths', 'proposal_lengths', 'accepted_draft_lengths')} for r in responses]}


def main(argv=None):
    a = start(argv, __doc__)
    import torch, transformers, safetensors
    import torch.distributed as dist
    from safetensors.torch import save_file, load_file
    import deepspec.eval.base_evaluator as be
    import deepspec.utils.sampling as smp
    from deepspec.eval.dspark.draft_ops import _confident_prefix_length, build_dspark_proposal
    torch.manual_seed(0)      # DeepSpec's own draws (the token after the drafts): the file is the same on every run
    T, rep = {}, {'deepspec_commit': COMMIT, 'torch': torch.__version__, 'transformers': transformers.__version__,
                  'safetensors': safetensors.__version__, 'vocab': V, 'gamma': GAMMA, 'stop_token_ids': [EOS], 'max_new_tokens': N_NEW,
                  'command': shlex.join([Path(sys.executable).name, 'tools/deepspec_verify_fixture.py', *sys.argv[1:]]), 'verify': {}}

    # verify_draft_tokens, one block per case
    for name, (anchor, tgt, drafts) in greedy_cases(torch).items():
        tl = onehot_logits(torch, tgt) + 0.1 * torch.randn(len(tgt), V, generator=torch.Generator().manual_seed(len(rep['verify'])))
        dl = onehot_logits(torch, drafts) if drafts else torch.zeros(0, V)
        rep['verify'][name] = record_verify(torch, be, smp, T, name, anchor, drafts, tl, dl, 0.0, seed=0)
    seed = next(s for s in range(100) if (lambda u: u[0] < 0.7 and u[1] < 0.7 and 0.35 < u[2] < 0.9)(torch.rand(4, generator=torch.Generator().manual_seed(s))))
    u = torch.rand(4, generator=torch.Generator().manual_seed(seed))
    sampled = {'s_reject2': ([5, 1, 12, 3], [float(u[0]) + 0.2, float(u[1]) + 0.2, float(u[2]) - 0.25, 0.5]),
               's_all': ([5, 1, 12, 3], [None] * 4), 's_eos_drafts': ([5, EOS, 12, 3], [None] * 4)}
    for name, (drafts, ratios) in sampled.items():
        tl, dl = sampled_case(torch, drafts, ratios, seed)
        rep['verify'][name] = record_verify(torch, be, smp, T, name, 3, drafts, tl, dl, T_SAMPLED, seed=seed)

    # generate_decoding_sample over four scripted prompts, full proposals; then cut by a scripted confidence per step
    run_loop(torch, be, T, rep, 'loop')
    conf_at = torch.randn(64, GAMMA, generator=torch.Generator().manual_seed(11)) * 2 + 1.5
    T['cutloop/conf_logits'] = conf_at
    run_loop(torch, be, T, rep, 'cutloop', cut=lambda start: _confident_prefix_length(conf_at[start][None], block_size=GAMMA, threshold=0.5))

    # the threshold rule: scripted logits, then DSpark's proposal on the walk of tools/dspark_fixture.py
    sig = torch.tensor([[0.9, 0.8, 0.85, 0.3], [0.4, 0.9, 0.9, 0.9], [0.9, 0.9, 0.9, 0.9], [0.99, 0.6, 0.95, 0.95]])
    cl, ths = torch.logit(sig), torch.tensor([0.0, 0.5, 0.7, 0.95])
    T.update({'cut/conf_logits': cl, 'cut/thresholds': ths, 'cut/len': torch.tensor(
        [[_confident_prefix_length(c[None], block_size=GAMMA, threshold=float(t)) for t in ths] for c in cl])})
    fx = load_file(str(REPO / 'data_samples/deepspec_dspark_afdfa7c9.safetensors'))
    model = build_model(torch).eval()
    wanc, whid, G = fx['walk/anchor_ids'], fx['walk/hidden'], fx['walk/hidden'].shape[1]
    wths = torch.tensor([0.0, 0.2, 0.4, 0.5, 0.6, 0.8])
    lens, confs = [], []
    with torch.no_grad():
        for i in range(len(wanc)):
            bids = torch.full((1, G), 159); bids[0, 0] = wanc[i]
            props = [build_dspark_proposal(model, draft_input_ids=bids, block_hidden=whid[i:i + 1], block_size=G, temperature=0.0,
                                           confidence_threshold=float(t)) for t in wths]
            lens.append([p.draft_token_count for p in props]); confs.append(props[0].confidence_logits[0])
    assert torch.allclose(torch.stack(confs), fx['walk/proposal_confidence'], atol=1e-6), 'the rebuilt model is not the walk fixture\'s'
    T.update({'walkcut/thresholds': wths, 'walkcut/len': torch.tensor(lens), 'walkcut/conf_logits': torch.stack(confs)})

    dist.destroy_process_group()
    T = {k: v.contiguous() for k, v in T.items()}
    save_file(T, a.out, metadata={'report': json.dumps(rep)})
    print(f"{a.out}: {len(T)} tensors, {os.path.getsize(a.out) / 1e3:.0f} kB; loop {rep['loop']['row']}; cutloop {rep['cutloop']['row']}")


if __name__ == '__main__': main()
