"""H200: target load time/memory and truncated-capture throughput vs the naive path on a random Qwen3-8B-shaped target.
Run on the device machine: source tools/h200/setup.sh && python3 tools/h200/bench_capture.py"""
import os, time
from pathlib import Path
from dflash_nb.targets import make_random_target, benchmark_capture, QWEN3_8B_SHAPE
path = Path('/tmp/bench/qwen3-8b-random')
if not (path / 'config.json').exists():
    t = time.time(); make_random_target(path, **QWEN3_8B_SHAPE); print(f'make_random_target {time.time() - t:.1f}s', flush=True)
df = benchmark_capture(path, 'cuda:0', lengths=(1024, 3072, 8192), tokens_per_batch=16384)
df.to_csv(os.path.join(os.environ.get('OUT', '/tmp'), 'capture_bench.csv'), index=False)
