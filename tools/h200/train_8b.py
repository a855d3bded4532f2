"""H200: a single-GPU colocated dflash_nb_train run on a random-initialised Qwen3-8B-shaped target (written to disk as
safetensors and loaded through load_targets) with its 5-layer drafter, on synthetic conversations shaped like the
reference run. Usage: python3 tools/h200/train_8b.py [MINUTES]"""
import os, subprocess, sys, time
from pathlib import Path
from dflash_nb.targets import make_random_target, QWEN3_8B_SHAPE
minutes = sys.argv[1] if len(sys.argv) > 1 else '2'
root = Path('/tmp/dflash-8b'); root.mkdir(exist_ok=True)
if not (root / 'target' / 'config.json').exists():
    t = time.time(); make_random_target(root / 'target', **QWEN3_8B_SHAPE); print(f"random Qwen3-8B target written in {time.time() - t:.0f}s")
subprocess.run([sys.executable, 'tools/h200/synthetic_data.py', str(root / 'data.jsonl'), '2000', '3072'], check=True)
cmd = [sys.executable, '-m', 'dflash_nb.train', '--target', str(root / 'target'), '--data', str(root / 'data.jsonl'), '--heldout', '',
       '--run-dir', str(root / 'run'), '--boundaries', '770,1216,1728,2432,3073', '--max-tokens', '8192', '--num-anchors', '512',
       '--epochs', '1', '--time-limit-min', minutes, '--save-every', '100000', '--log-every', '1', '--resume', 'none']
print(' '.join(cmd), flush=True)
rc = subprocess.call(cmd)
import json
m = [json.loads(l) for l in open(root / 'run' / 'metrics.jsonl') if '"loss"' in l]
tail = m[len(m) // 4:] or m  # steady state: skip warm-up (compiles)
tok = sum(r['tokens'] for r in tail); sec = sum(r['step_s'] for r in tail)
mfu = sorted(r['mfu'] for r in tail)[len(tail) // 2]
print(f"steps {len(m)}; steady state (last {len(tail)}): {tok / sec:,.0f} trained tokens/s end to end, median drafter MFU {mfu:.1%}, "
      f"median step {sorted(r['step_s'] for r in tail)[len(tail) // 2]:.3f}s, capture {tail[-1].get('target_tok_s') or 0:,.0f} tok/s, "
      f"loss {m[0]['loss']:.3f} -> {m[-1]['loss']:.3f}")
os.makedirs(os.environ.get('OUT', '/tmp'), exist_ok=True)
subprocess.call(['cp', str(root / 'run' / 'metrics.jsonl'), os.path.join(os.environ.get('OUT', '/tmp'), 'metrics_8b.jsonl')])
sys.exit(rc)
