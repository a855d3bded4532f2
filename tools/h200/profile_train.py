"""Where a training step spends its time: `dflash_nb_train` on a random-weight model of a target's shape, with
torch.profiler over steps [P0, P0+PN) of the step loop (environment, default 40 and 8), then the medians of the
steps after the 10th from metrics.jsonl.
  python3 tools/h200/profile_train.py SHAPE_DIR TAG OUTDIR [dflash_nb_train flags]
SHAPE_DIR: a model folder whose config.json and tokenizer are used (its weights are not: a random model of that
shape is written to $HOME/prof-target once), e.g. the demo target's folder (`demo_target()`). Writes to OUTDIR:
profile_TAG.txt (per-step wall, GPU kernel time, launches and syncs, then the top ops by GPU time, by own CPU time
and by CPU time with children), summary_TAG.json (step time, tokens/s, MFU, capture share), the run's metrics.jsonl,
and trace_TAG.json (Chrome trace). The run folder is $HOME/prof-TAG; copy an earlier run's compile_cache/ into it
to start warm."""
import json, os, shutil, statistics, sys, time
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM
src, tag, out, flags = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4:]
out.mkdir(parents=True, exist_ok=True)
dst = Path.home() / 'prof-target'
if not (dst / 'model.safetensors').exists():
    cfg = AutoConfig.from_pretrained(src); torch.manual_seed(0)
    AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16).save_pretrained(dst)
    for f in src.iterdir():
        if f.is_file() and f.name != 'config.json' and f.suffix not in ('.safetensors', '.bin', '.gguf', '.pt'):
            shutil.copy(f, dst / f.name)   # tokenizer, chat template, generation config: not the weights
import dflash_nb.train as T
P0, PN = int(os.environ.get('P0', 40)), int(os.environ.get('PN', 8))
orig, st = T.Trainer.drafter_step, dict(n=0)
cuda = torch.cuda.is_available()
acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])

def step(self, s, epoch, k):
    n = st['n']; st['n'] += 1
    if n == P0:
        if cuda: torch.cuda.synchronize()
        st['p'] = torch.profiler.profile(activities=acts); st['p'].__enter__(); st['t0'] = time.perf_counter()
    r = orig(self, s, epoch, k)
    if n == P0 + PN - 1:
        if cuda: torch.cuda.synchronize()
        wall = time.perf_counter() - st['t0']; p = st['p']; p.__exit__(None, None, None)
        ka = p.key_averages()
        dev = lambda e: getattr(e, 'self_device_time_total', None) or getattr(e, 'self_cuda_time_total', 0)
        gpu_us = sum(dev(e) for e in ka if e.device_type == torch.autograd.DeviceType.CUDA)   # kernels only, once each
        launches = sum(e.count for e in ka if e.key in ('cudaLaunchKernel', 'cuLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernelEx'))
        syncs = {e.key: e.count for e in ka if 'ynchronize' in e.key or e.key in ('aten::item', 'aten::_local_scalar_dense')}
        lines = [f"[{tag}] profiled {PN} steps: wall {wall * 1e3 / PN:.1f} ms/step, GPU kernel time {gpu_us / 1e3 / PN:.1f} ms/step "
                 f"(busy {gpu_us / 1e6 / wall:.0%}), kernel launches {launches / PN:.0f}/step, syncs/step {({k: v / PN for k, v in syncs.items()})}"]
        for key in ('self_cuda_time_total', 'self_cpu_time_total', 'cpu_time_total'):
            try: lines.append(ka.table(sort_by=key, row_limit=30, max_name_column_width=70))
            except Exception as e: lines.append(f"table by {key}: {e}")
        (out / f'profile_{tag}.txt').write_text('\n'.join(lines))
        print(lines[0], flush=True)
        try: p.export_chrome_trace(str(out / f'trace_{tag}.json'))
        except Exception as e: print('trace:', e)
    return r
T.Trainer.drafter_step = step
run_dir = Path.home() / f'prof-{tag}'
sys.argv = ['dflash_nb_train', '--target', str(dst), '--heldout', '', '--resume', 'none', '--run-dir', str(run_dir), *flags]
print(' '.join(sys.argv), flush=True)
t0 = time.time()
try: T.main()
except SystemExit as e: print('exit', e.code)
print(f"[{tag}] main() {time.time() - t0:.1f} s", flush=True)
ms = [json.loads(l) for l in (run_dir / 'metrics.jsonl').read_text().splitlines() if l.strip()]
ms = [m for m in ms if 'step_s' in m]
late = [m for m in ms if m['step'] > 10]
if late:
    med = lambda k: statistics.median(m[k] for m in late if m.get(k) is not None)
    s = dict(tag=tag, flags=flags, steps=len(ms), first_step_s=ms[0]['step_s'], step_s=med('step_s'), tokens=med('tokens'),
             tok_s=med('tok_s'), block_tok_s=med('block_tok_s'), mfu=med('mfu') if late[0].get('mfu') is not None else None,
             wait_frac=statistics.median(m['wait_frac'][0] for m in late), loss_last=ms[-1]['loss'], acc_last=ms[-1]['acc'])
    print(json.dumps(s), flush=True)
    (out / f'summary_{tag}.json').write_text(json.dumps(s, indent=1))
for f in ('metrics.jsonl', 'summary.json', 'train.log'):
    if (run_dir / f).exists(): shutil.copy(run_dir / f, out / f'{tag}_{f}')
