"""H200: drafter correctness (flex vs dense sdpa, forward and gradients) and the Qwen3-8B-sized drafter benchmark.
Run on the device machine: source tools/h200/setup.sh && python3 tools/h200/bench_drafter.py"""
import os, time, torch
from dflash_nb.compile import configure_compile
from dflash_nb.drafter import *
configure_compile('/tmp/dflash-bench', rank=0)
out = os.environ.get('OUT', '/tmp')

def rel(a, b): return ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-12)).item()
cfg = DFlashConfig(hidden_size=1024, intermediate_size=2816, num_attention_heads=16, num_key_value_heads=4, head_dim=64,
                   vocab_size=32000, num_hidden_layers=2, target_layer_ids=[1, 9, 17, 25, 33], mask_token_id=31999)
torch.manual_seed(0)
d = DFlashDrafter(cfg).cuda().to(torch.bfloat16)
emb = torch.randn(cfg.vocab_size, cfg.hidden_size, device='cuda', dtype=torch.bfloat16)
head = torch.randn(cfg.vocab_size, cfg.hidden_size, device='cuda', dtype=torch.bfloat16) * cfg.hidden_size ** -0.5
B, S = 2, 1024
ids = torch.randint(0, cfg.vocab_size - 1, (B, S), device='cuda'); lm = torch.ones(B, S, dtype=torch.long, device='cuda'); lm[:, :100] = 0
hid = torch.randn(B, S, 5 * cfg.hidden_size, device='cuda', dtype=torch.bfloat16)
anchors, keep = sample_anchors(lm, 256, torch.Generator(device='cuda').manual_seed(0))
res = {}
for backend in ('sdpa', 'flex'):
    d.zero_grad(set_to_none=True)
    o = dflash_forward_loss(d, emb, head, ids, lm, hid, anchors, keep, backend=backend)
    (o['loss_sum'] / o['weight_sum']).backward()
    res[backend] = (o['loss_sum'].item() / o['weight_sum'].item(), {n: p.grad.clone() for n, p in d.named_parameters()})
errs = {n: rel(res['flex'][1][n], res['sdpa'][1][n]) for n in res['sdpa'][1]}
print(f"flex vs sdpa: loss {res['flex'][0]:.5f} vs {res['sdpa'][0]:.5f}; worst gradient rel. error {max(errs.values()):.2e} ({max(errs, key=errs.get)})")
assert abs(res['flex'][0] - res['sdpa'][0]) < 1e-2 and max(errs.values()) < 3e-2, errs
t = time.time()
r, fit = benchmark_drafter()
print(r.to_string(index=False, float_format=lambda x: f'{x:.3g}'))
print(fit.to_string(index=False, float_format=lambda x: f'{x:.3g}'))
f, s = r.set_index('backend').loc['flex'], r.set_index('backend').loc['sdpa']
print(f"compiled flex vs dense sdpa: {s.ms / f.ms:.2f}x faster, {s.peak_gb / f.peak_gb:.2f}x less peak memory ({time.time() - t:.0f} s)")
r.to_csv(f'{out}/drafter_bench.csv', index=False); fit.to_csv(f'{out}/drafter_fit.csv', index=False)
for b, ms in r.attrs['breakdown'].items(): print(f"{b} step breakdown (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in ms.items()))
print(r.attrs['profile'].to_string(index=False, float_format=lambda x: f'{x:.1f}'))
