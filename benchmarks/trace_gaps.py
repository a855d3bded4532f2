"""Where the GPU waits in a profiled step: the idle gaps of a `step_profile.sh` trace, and what the host was doing.

    python3 benchmarks/trace_gaps.py PROF_DIR/today/trace.json.gz [--top 20]

Reads the Chrome trace that `--profile-steps` writes (torch.profiler, CUDA activities). Within the profiled steps (from the
first `step/...` annotation to the end of the last) it takes the union of the GPU's kernels, copies and fills over all
streams, and lists each gap where none ran. A gap whose next GPU op was launched by the host *after* the GPU went idle is
`host-late` (the GPU waited for the host to issue work); one launched before is `waiting` (a dependency: an event, another
stream). Host-late gaps are summed by the step phase (`step/...` annotation) and the innermost host op that launched the
op ending the gap. The profiler's own stalls (`Activity Buffer Request`) are counted apart: they are not the step's.
"""
import argparse, bisect, collections, gzip, json

def load(path):
    t = json.load(gzip.open(path) if str(path).endswith('.gz') else open(path))
    return t['traceEvents'] if isinstance(t, dict) else t

def gaps(ev):
    "(span_us, busy_us, [(gap_us, start_us, next_gpu_event)]) within the profiled steps."
    ann = [e for e in ev if e.get('cat') == 'user_annotation' and e.get('ph') == 'X']
    t0, t1 = min(e['ts'] for e in ann), max(e['ts'] + e['dur'] for e in ann)
    gpu = sorted((e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset') and e.get('ph') == 'X' and t0 <= e['ts'] <= t1),
                 key=lambda e: e['ts'])
    busy, end, out = 0., t0, []
    for e in gpu:
        if e['ts'] > end: out.append((e['ts'] - end, end, e))
        busy += max(0., e['ts'] + e['dur'] - max(end, e['ts'])); end = max(end, e['ts'] + e['dur'])
    return t1 - t0, busy, out

def explain(ev, out, min_us=20.):
    "Sum the gaps of at least `min_us` by kind, and the host-late ones by (phase, host op)."
    launch = {e['args'].get('correlation'): e for e in ev if e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'args' in e}
    ops = sorted((e for e in ev if e.get('cat') == 'cpu_op' and e.get('ph') == 'X'), key=lambda e: e['ts'])
    ann = [e for e in ev if e.get('cat') == 'user_annotation' and e.get('ph') == 'X']
    stalls = [e for e in ev if e.get('cat') == 'overhead' and e.get('name') == 'Activity Buffer Request']
    starts = [e['ts'] for e in ops]
    def innermost(ts, tid):
        best = None
        for e in ops[max(0, bisect.bisect_right(starts, ts) - 400):bisect.bisect_right(starts, ts)]:
            if e.get('tid') == tid and e['ts'] <= ts <= e['ts'] + e['dur']: best = e
        return best['name'] if best else '-'
    kinds, where = collections.Counter(), collections.Counter()
    for g, s, e in out:
        if g < min_us: continue
        if any(x['ts'] < s + g and x['ts'] + x['dur'] > s for x in stalls): kinds['profiler stall'] += g; continue
        L = launch.get(e.get('args', {}).get('correlation'))
        if L is None: kinds['unknown'] += g; continue
        if L['ts'] <= s: kinds['waiting'] += g; continue
        kinds['host-late'] += g
        phase = next((a['name'] for a in ann if a['ts'] <= L['ts'] <= a['ts'] + a['dur'] and a['name'].startswith('step/')), 'step/backward or between')
        where[(phase, innermost(L['ts'], L.get('tid'))[:70])] += g
    return kinds, where

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0]); p.add_argument('trace'); p.add_argument('--top', type=int, default=20)
    p.add_argument('--steps', type=int, default=None, help='profiled steps, to print per-step figures (default: the number of step/drafter annotations)')
    a = p.parse_args(); ev = load(a.trace)
    n = a.steps or sum(1 for e in ev if e.get('cat') == 'user_annotation' and e.get('name') == 'step/drafter') or 1
    span, busy, out = gaps(ev)
    if not busy: print(f'{n} steps profiled: {span / 1e3 / n:.1f} ms a step, no GPU activity in this trace (a CPU run?)'); return
    kinds, where = explain(ev, out)
    print(f"{n} steps profiled: {span / 1e3 / n:.1f} ms a step, GPU busy {busy / 1e3 / n:.1f} ms ({busy / span:.0%}), idle {(span - busy) / 1e3 / n:.1f} ms in {len(out) / n:.0f} gaps a step")
    size = collections.Counter()
    for g, _, _ in out: size['<20 us' if g < 20 else '20-200 us' if g < 200 else '0.2-1 ms' if g < 1000 else '>=1 ms'] += g
    print('idle ms a step by gap size: ' + ', '.join(f"{k} {v / 1e3 / n:.2f}" for k, v in size.items()))
    print('idle ms a step in gaps of 20 us or more, by kind: ' + ', '.join(f"{k} {v / 1e3 / n:.2f}" for k, v in kinds.most_common()))
    print(f'host-late gaps by step phase and the host op that launched the work ending them (ms a step, top {a.top}):')
    for (phase, op), v in where.most_common(a.top): print(f"  {v / 1e3 / n:6.2f}  {phase:26} {op}")

if __name__ == '__main__': main()
