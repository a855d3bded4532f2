# On a CPU, no GPU needed: how many batch shapes the demo's capture meets, and when each is first seen, for padding
# multiples of the graphed capture (`--target-graphs`, `--target-graph-multiple`): each new shape costs one recording.
#   python3 tools/demo_shapes.py [STEPS] [MULTIPLE ...]     (defaults: 12000 steps, multiples 64 128 256; about a minute)
# It tokenizes the demo's data with the demo's GPU settings (DEMO_GPU) and collates its batches in training order.
import sys, numpy as np
from dflash_nb.options import TrainConfig, DEMO_GPU
from dflash_nb.train import Trainer

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12000
mults = [int(m) for m in sys.argv[2:]] or [64, 128, 256]
t = Trainer(TrainConfig(**{**DEMO_GPU, 'small': 'off', 'run_dir': '/tmp/demo_shapes_run'})); t.setup_data()
shapes, n = [], 0
for e in range(len(t.epoch_steps)):
    for i in range(t.epoch_steps[e]):
        shapes.append(tuple(t.collate(e, i)['input_ids'].shape)); n += 1
        if n >= steps: break
    if n >= steps: break
rows = sorted({b for b, _ in shapes})
print(f"{n} steps; rows per batch {rows[0]}-{rows[-1]} ({len(rows)} values); lengths {min(s for _, s in shapes)}-{max(s for _, s in shapes)}")
for m in mults:
    seen, first = set(), []
    for k, (b, s) in enumerate(shapes, 1):
        if (b, -(-s // m) * m) not in seen: seen.add((b, -(-s // m) * m)); first.append(k)
    f = np.array(first)
    print(f"multiple {m}: {len(seen)} shapes; first seen in steps 1-100: {(f <= 100).sum()}, 101-250: {((f > 100) & (f <= 250)).sum()}, "
          f"251-1000: {((f > 250) & (f <= 1000)).sum()}, later: {(f > 1000).sum()}")
