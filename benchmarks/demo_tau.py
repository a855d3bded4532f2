"""The demo's tau: README's first command (`python3 -m dflash_nb.train`) for each seed, alone on the GPU, then its record.

    python3 benchmarks/demo_tau.py --out DIR [--seeds 0 1] [--name seed] [-- TRAIN FLAGS ...]
    python3 benchmarks/demo_tau.py --out DIR --seeds 0 --name dl8_s -- --draft-layers 8      # a candidate's flags
    python3 benchmarks/demo_tau.py --record RUN LOG OUT.json                                  # the record of a run made before
    python3 benchmarks/demo_tau.py --out /tmp/demo_dry --dry                                  # a check of this script on a CPU

Each seed runs `python3 -m dflash_nb.train --run-dir DIR/<name><seed> --seed <seed> FLAGS` (the defaults: the GPU demo
profile, an 8-minute clock, tau on the first 100 held-out chats at the end), its console in DIR/<name><seed>.log, and
writes DIR/<date>_<name><seed>.json, the record that `nbs/records/demo_tau/` keeps: the command, hardware and software
(`provenance.py`), the run's settings, step figures, tau, the tau bar's pooled figure after each prompt it printed
(`tau_progress`: a run whose tau was cut short still compares with another on the prompts both measured; greedy
decoding makes the same tokens for the same prompts), where the clock went before the loop (`startup`), the training
accuracy of each draft position over the last 1,000 steps and every tenth step. About 9 minutes a seed on an H200.
`--dry` trains a tiny random target on the CPU for a few steps (a check of the script, not a measurement).
"""
import argparse, datetime, json, os, re, statistics, subprocess, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import provenance

KEEP = ('draft_layers', 'num_anchors', 'max_tokens', 'max_length', 'lr', 'warmup_ratio', 'time_limit_min', 'loss',
        'gamma', 'drafter', 'capture_ahead', 'async_step', 'target_graphs', 'compile_shapes', 'ce_kernel', 'flex_tile', 'seed')
TAU_KEEP = ('tau_pooled', 'tau_prompt_mean', 'prompts', 'steps', 'tokens', 'speedup', 'identical', 'max_new_tokens',
            'histogram', 'per_position')

def tau_progress(log:str):
    "`[prompts, tokens, pooled tau]` at each update of the last tau bar in `log` (the bar's text, carriage returns and all)."
    rows = {}
    for m in re.finditer(r'tau:\s+\d+%\|[^|]*\|\s*(\d+)/(\d+) \[[^\]]*?(\d+) tokens, [\d.]+ tok/s, tau ([\d.]+) pooled\]', log):
        n, total, tok, tau = int(m[1]), int(m[2]), int(m[3]), float(m[4])
        if n == 1: rows = {}                  # a new bar: keep only the last one
        rows[n] = [n, tok, tau]
    return [rows[k] for k in sorted(rows)]

def startup(run:Path, log:str) -> dict:
    "Where the clock went before the training loop: the tokenizing bar's last time, the preflight's seconds (the log), the loop's seconds (ranks/rank0.json)."
    tok = re.findall(r'tokenizing: 100%\|[^|]*\|[^\[]*\[(\d+):(\d+)<', log)
    pre = re.findall(r'Preflight passed on rank 0 \([^)]*\) in ([\d.]+)s', log)
    r0 = run / 'ranks' / 'rank0.json'
    loop = json.loads(r0.read_text()).get('loop_s') if r0.exists() else None
    return dict(tokenize_s=60 * int(tok[-1][0]) + int(tok[-1][1]) if tok else None, preflight_s=float(pre[-1]) if pre else None,
                loop_s=round(loop, 1) if loop is not None else None)

def done_tau(log:str):
    "The tau of the run's console line `done: ... tau_pooled=..., tau_prompt_mean=..., speedup=...` (rounded as printed), or None."
    m = re.findall(r'^done: .*', log.replace('\r', '\n'), re.M)
    kv = dict(re.findall(r'(\w+)=([\d.]+)(?:,|$)', m[-1])) if m else {}
    if 'tau_pooled' not in kv: return None
    return dict({k: float(kv[k]) for k in ('tau_pooled', 'tau_prompt_mean', 'speedup') if k in kv},
                source="the run's console line `done: ...`, rounded as printed (its eval/tau_*.json did not come back)")

def acc_pos(steps:list, last:int=1000):
    "The training accuracy of each draft position, averaged over the last `last` steps (rows that carry `acc_pos`)."
    rows = [r['acc_pos'] for r in steps if r.get('acc_pos') and r['step'] > steps[-1]['step'] - last]
    return [round(statistics.mean(col), 4) for col in zip(*rows)] if rows else None

def record(run:Path, log:Path, **meta):
    "The record of the run in folder `run` with console log `log`; `meta` (date, command, what, ...) goes first."
    rows, text = [json.loads(l) for l in (run / 'metrics.jsonl').read_text().splitlines() if l.strip()], log.read_text(errors='replace')
    steps = [r for r in rows if 'step_s' in r]
    late = [r for r in steps if r['step'] > 150] or steps   # a short (dry) run: all its steps
    def med(k, nd=None, scale=1):
        "The median of `k` over `late` (None where no step has it, as `mfu` on a CPU), times `scale`, rounded to `nd`."
        v = [r[k] for r in late if r.get(k) is not None]
        return round(scale * statistics.median(v), nd) if v else None
    peak = max(r['lr'] for r in steps)
    cfg = json.loads((run / 'config.json').read_text())
    taus = sorted((run / 'eval').glob('tau_*.json')) if (run / 'eval').is_dir() else []
    rec = dict(meta, config={k: cfg[k] for k in KEEP if k in cfg}, steps=steps[-1]['step'],
               steps_sum_s=round(sum(r['step_s'] for r in steps), 1),
               steps_over_1s=[[r['step'], round(r['wall_s'], 2)] for r in steps if r['wall_s'] > 1],
               median_loop_ms_after_150=med('wall_s', 2, 1000), median_step_s_after_150=med('step_s', 5),
               median_mfu_after_150=med('mfu', 4), median_tok_s_after_150=med('tok_s'),
               lr_peak=peak, first_step_at_peak=next(r['step'] for r in steps if r['lr'] >= peak * (1 - 1e-6)),
               last={k: steps[-1].get(k) for k in ('loss', 'acc', 'accept_len', 'progress')},
               last200={k: round(statistics.mean(r[k] for r in steps[-200:]), 4) for k in ('loss', 'acc', 'accept_len', 'tokens')},
               acc_pos_last1000=acc_pos(steps),
               tau={k: v for k, v in json.loads(taus[-1].read_text()).items() if k in TAU_KEEP} if taus else done_tau(text),
               tau_progress=tau_progress(text), startup=startup(run, text),
               steps_thinned=[{k: round(r.get(k), 5) if isinstance(r.get(k), float) else r.get(k)
                               for k in ('step', 'loss', 'acc', 'accept_len', 'lr', 'wall_s', 'progress', 'epoch')}
                              for r in steps if r['step'] <= 3 or r['step'] % 10 == 0])
    if rec['tau'] and 'source' in rec['tau'] and rec['tau_progress']:   # the tau bar's last row: its prompts and tokens
        rec['tau'].update(prompts=rec['tau_progress'][-1][0], tokens=rec['tau_progress'][-1][1])
    return rec

def run_seed(out:Path, name:str, seed:int, flags:list, dry_flags:list=()) -> Path:
    "Train one seed into `out/<name><seed>` (console to `<name><seed>.log`, echoed) and write its record; the record's path."
    run, log = out / f'{name}{seed}', out / f'{name}{seed}.log'
    cmd = [sys.executable, '-m', 'dflash_nb.train', '--run-dir', str(run), '--seed', str(seed), *dry_flags, *flags]
    print(' '.join(cmd[1:]), flush=True)
    with open(log, 'w') as f:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, 'PYTHONUNBUFFERED': '1'})
        for line in p.stdout: f.write(line); sys.stdout.write(line)
    if p.wait() != 0: print(f"{name}{seed}: exit status {p.returncode} (see {log})", file=sys.stderr)
    prov = provenance(['python3', *cmd[1:]])
    date = prov['date'][:10]
    rec = record(run, log, date=date, command=prov['command'], hardware=prov['hardware'], software=prov['software'],
                 what=f"README's first command{' with ' + ' '.join(flags) if flags else ', its defaults'}, seed {seed}, alone on the GPU")
    dest = out / f'{date}_{name}{seed}.json'; dest.write_text(json.dumps(rec, indent=1) + '\n')
    t = rec['tau'] or {}
    print(f"{dest}: {rec['steps']:,} steps, median loop {rec['median_loop_ms_after_150']} ms after step 150, "
          f"tau {t.get('tau_pooled', 'not measured')} pooled, {t.get('tau_prompt_mean', '-')} per-prompt mean", flush=True)
    return dest

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    flags = argv[argv.index('--') + 1:] if '--' in argv else []
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog='Flags after -- go to python3 -m dflash_nb.train (after the defaults, so they win).')
    p.add_argument('--out', type=Path, help='folder for the runs, their logs and records')
    p.add_argument('--seeds', type=int, nargs='+', default=[0, 1], help='seeds, one run each, one after the other (default: 0 1)')
    p.add_argument('--name', default='seed', help="run folders and records are named NAME<seed> (default: seed; e.g. dl8_s for a candidate)")
    p.add_argument('--dry', action='store_true', help='a tiny random target on the CPU for a few steps: a check of the script')
    p.add_argument('--record', type=Path, nargs=3, metavar=('RUN', 'LOG', 'OUT_JSON'), help='only write the record of run folder RUN with console log LOG')
    for k in ('date', 'machine', 'command', 'what'): p.add_argument(f'--{k}', default='', help=f'with --record: the record\'s {k}')
    a = p.parse_args(argv[:argv.index('--')] if '--' in argv else argv)
    if a.record:
        run, log, out = a.record
        rec = record(run, log, **{k: getattr(a, k) for k in ('date', 'machine', 'command', 'what') if getattr(a, k)})
        out.write_text(json.dumps(rec, indent=1) + '\n')
        t = rec['tau'] or {}
        print(f"{out}: {rec['steps']:,} steps, median loop {rec['median_loop_ms_after_150']} ms after step 150, "
              f"tau {t.get('tau_pooled', 'not measured')} pooled; tau bar: {len(rec['tau_progress'])} prompts")
        return 0
    if not a.out: p.error('--out DIR is needed (or --record)')
    a.out.mkdir(parents=True, exist_ok=True)
    dry = []
    if a.dry:
        from dflash_nb.targets import make_tiny_target
        tiny = a.out / 'tiny_target'
        if not (tiny / 'config.json').exists(): make_tiny_target(tiny, 'qwen3', num_layers=6)
        dry = ['--target', str(tiny), '--target-devices', 'cpu', '--drafter-devices', 'cpu', '--max-steps', '6', '--max-records', '300',
               '--max-tokens', '1024', '--num-anchors', '16', '--eval-prompts', '2', '--eval-max-new-tokens', '8', '--time-limit-min', '0']
    for s in a.seeds: run_seed(a.out, a.name, s, flags, dry)
    return 0

if __name__ == '__main__': sys.exit(main())
