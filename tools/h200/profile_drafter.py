"""H200: where a Qwen3-8B-sized drafter training step spends its time (phase breakdown with CUDA events, then the top
kernels by GPU time), eager layers, flex attention, 512 anchors at 3072.
Run on a GPU machine: source tools/h200/setup.sh && python3 tools/h200/profile_drafter.py"""
import pandas as pd, torch
from dflash_nb.compile import configure_compile
configure_compile('/tmp/dflash-profile')
from dflash_nb.drafter import DFlashConfig, DFlashDrafter, step_breakdown, profile_step, _bench_batch
cfg = DFlashConfig(); torch.manual_seed(0)
d = DFlashDrafter(cfg).to('cuda', torch.bfloat16).train()
emb = torch.randn(cfg.vocab_size, cfg.hidden_size, device='cuda', dtype=torch.bfloat16); head = emb * 0.02
batch = _bench_batch(cfg, 1, 512, 3072, 'cuda')
for _ in range(2): print(step_breakdown(d, emb, head, batch, 'flex'), flush=True)  # the first includes compiles
pd.set_option('display.width', 200)
print(profile_step(d, emb, head, batch, 'flex', top=12).to_string())
