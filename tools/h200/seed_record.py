"""One demo run of a GPU round as a record for nbs/records/: its config, step figures, tau, its startup and every tenth step.

    python tools/h200/seed_record.py RUN LOG OUT.json --date 2026-12-04 --command "..." --what "..."

RUN is the run's folder as `demo_round.sh poll` brings it back (runs/<name>: metrics.jsonl, config.json, summary.json
and eval/tau_*.json when the run measured its tau), LOG its console log (<name>.log), whose tau bar gives the pooled tau
after each prompt it printed (tqdm skips some): kept as `tau_progress`, so a run whose tau was cut short still compares with another on the prompts
both measured (greedy decoding makes the same tokens for the same prompts; the bar's token counts show it).
"""
import argparse, json, re, statistics
from pathlib import Path

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
    late = [r for r in steps if r['step'] > 150]
    med = lambda k: statistics.median(r[k] for r in late)
    peak = max(r['lr'] for r in steps)
    cfg = json.loads((run / 'config.json').read_text())
    taus = sorted((run / 'eval').glob('tau_*.json')) if (run / 'eval').is_dir() else []
    rec = dict(meta, config={k: cfg[k] for k in KEEP if k in cfg}, steps=steps[-1]['step'],
               steps_sum_s=round(sum(r['step_s'] for r in steps), 1),
               steps_over_1s=[[r['step'], round(r['wall_s'], 2)] for r in steps if r['wall_s'] > 1],
               median_loop_ms_after_150=round(1000 * med('wall_s'), 2), median_step_s_after_150=round(med('step_s'), 5),
               median_mfu_after_150=round(med('mfu'), 4), median_tok_s_after_150=round(med('tok_s')),
               lr_peak=peak, first_step_at_peak=next(r['step'] for r in steps if r['lr'] >= peak * (1 - 1e-6)),
               last={k: steps[-1][k] for k in ('loss', 'acc', 'accept_len', 'progress')},
               last200={k: round(statistics.mean(r[k] for r in steps[-200:]), 4) for k in ('loss', 'acc', 'accept_len', 'tokens')},
               acc_pos_last1000=acc_pos(steps),
               tau={k: v for k, v in json.loads(taus[-1].read_text()).items() if k in TAU_KEEP} if taus else done_tau(text),
               tau_progress=tau_progress(text), startup=startup(run, text),
               steps_thinned=[{k: round(r[k], 5) if isinstance(r[k], float) else r[k]
                               for k in ('step', 'loss', 'acc', 'accept_len', 'lr', 'wall_s', 'progress', 'epoch')}
                              for r in steps if r['step'] <= 3 or r['step'] % 10 == 0])
    if rec['tau'] and 'source' in rec['tau'] and rec['tau_progress']:   # the tau bar's last row: its prompts and tokens
        rec['tau'].update(prompts=rec['tau_progress'][-1][0], tokens=rec['tau_progress'][-1][1])
    return rec

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('run', type=Path); p.add_argument('log', type=Path); p.add_argument('out', type=Path)
    for k in ('date', 'lease', 'machine', 'command', 'what'): p.add_argument(f'--{k}', default='')
    a = p.parse_args()
    rec = record(a.run, a.log, **{k: getattr(a, k) for k in ('date', 'lease', 'machine', 'command', 'what') if getattr(a, k)})
    a.out.write_text(json.dumps(rec, indent=1) + '\n')
    t = rec['tau'] or {}
    print(f"{a.out}: {rec['steps']:,} steps, median loop {rec['median_loop_ms_after_150']} ms after step 150, "
          f"tau {t.get('tau_pooled', 'not measured')} pooled; tau bar: {len(rec['tau_progress'])} prompts")
