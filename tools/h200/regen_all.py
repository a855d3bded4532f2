"""Answer a prompt file with the demo target on every visible GPU, within a wall-clock deadline.

  python3 tools/h200/regen_all.py PROMPTS OUTDIR [--deadline-s 540] [--max-new-tokens 256] [--batch-size 1024]
                                  [--limit N] [--turns auto|first|all] [--temperature 0] [--seed 0] [--name NAME]
                                  [--target PATH] [--procs N] [--skip DONE.jsonl.gz,...]

PROMPTS: a JSONL file (gzipped or not) of `messages` records, e.g. data_samples/chitchat_train.jsonl.gz; fields
other than `messages` (`chat`, `turn`) are carried into the answers. The model is `dflash_nb.targets.demo_target()`
(SmolLM2-135M-Instruct) in bf16 with SDPA attention on a GPU (float32 on CPU), or the HF folder `--target PATH`
(e.g. a `make_tiny_target` for a dry run); `--skip` leaves out the records already answered in those files (same
`chat` and `turn`, or the same user turns when a record has no such fields), before `--limit`; answers are greedy unless `--temperature` > 0, made by
`dflash_nb.data.regenerate` (`turns='all'` when a record holds several user turns: every one is answered).

One process per GPU (`--procs` on CPU), process r answering records r, r+N, r+2N, ... of the first `--limit`, in
chunks of `--chunk-batches` batches taken in file order, each chunk sorted by length so a batch pads little.
Before each batch a process estimates its time from the batches it ran (the first one, `--first-batch`, as big as the rest by default)
and stops starting batches when the estimate would pass the deadline; answers are appended to a part file after
every batch, so even a process killed at the hard limit keeps what it wrote; a batch that runs out of GPU memory is
halved and retried, and so are the batches after it. Throughput knobs: `--batch-size` (generation of a 135M model is launch-bound, so bigger batches
give more tokens/s until memory or the longest answer dominates; the log shows answer tokens/s per batch) and
`--chunk-batches` (more batches per length-sorted chunk: less padding, a coarser prefix). At the end the parts are merged in
file order into OUTDIR/NAME.jsonl.gz, with OUTDIR/NAME.json: counts, times, throughput and settings.
`complete_prefix` there is the number n such that records 0..n-1 were all answered (or left out: an empty answer).
"""
import time
T0 = time.time()  # the deadline counts from here, before the slow imports
import argparse, datetime, gzip, hashlib, importlib.metadata, io, json, os, platform, shutil, subprocess, sys
from pathlib import Path

def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('prompts'); p.add_argument('outdir')
    p.add_argument('--deadline-s', type=float, default=540, help="the whole call ends within this many seconds of its start")
    p.add_argument('--reserve-s', type=float, default=None, help="kept for merging and writing (default min(30, deadline/4))")
    p.add_argument('--max-new-tokens', type=int, default=256)
    p.add_argument('--batch-size', type=int, default=None, help="prompts per generate call (default 1024 on GPU, 8 on CPU)")
    p.add_argument('--chunk-batches', type=int, default=4, help="batches per length-sorted chunk")
    p.add_argument('--first-batch', type=int, default=None,
                   help="size of each process's first batch, which times the rest (default: --batch-size; a smaller first batch "
                        "makes the deadline estimate for full batches pessimistic: it scales linearly, generation time does not)")
    p.add_argument('--limit', type=int, default=None, help="answer only the first LIMIT records")
    p.add_argument('--turns', choices=['auto', 'first', 'all'], default='auto')
    p.add_argument('--temperature', type=float, default=0.0); p.add_argument('--top-p', type=float, default=1.0)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--name', default=None, help="output name (default: PROMPTS' stem + _greedy or _t{T}_s{SEED})")
    p.add_argument('--target', default=None, help="HF model folder instead of the demo target (e.g. a tiny one for a dry run)")
    p.add_argument('--procs', type=int, default=None, help="processes (default: one per visible GPU, 1 on CPU)")
    p.add_argument('--skip', default='', help="comma-separated answer files: their records (by chat and turn) are not answered again")
    p.add_argument('--worker', type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument('--world', type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument('--deadline-at', type=float, default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)

# The launcher imports neither torch nor dflash_nb (seconds on a busy machine): the standard library reads and writes,
# the same way as dflash_nb.data.open_text (gzip recognised by its magic bytes, a BOM skipped, gzip written without
# name or time stamp).
def _open(path, mode='r'):
    if mode == 'w':
        g = gzip.GzipFile(filename='', mode='wb', fileobj=open(path, 'wb'), mtime=0); g.myfileobj = g.fileobj
        return io.TextIOWrapper(g, encoding='utf-8')
    with open(path, 'rb') as f: gz = f.read(2) == b'\x1f\x8b'
    return gzip.open(path, 'rt', encoding='utf-8-sig') if gz else open(path, encoding='utf-8-sig')

def _key(r):
    "What identifies a prompt across files: its chat and turn, else its user turns."
    if 'chat' in r and 'turn' in r: return ('chat', r['chat'], r['turn'])
    return ('users',) + tuple(m.get('content', m.get('value')) for m in r.get('messages', r.get('conversations', []))
                              if m.get('role', m.get('from')) in ('user', 'human'))

def _records(path, limit=None, skip='') -> list:
    "The prompt records of `path`, without those already answered in the `skip` files, the first `limit` of them."
    with _open(path) as f: recs = [json.loads(l) for l in f if l.strip()]
    done = set()
    for s in filter(None, skip.split(',')):
        with _open(s) as f: done.update(_key(json.loads(l)) for l in f if l.strip())
    return [r for r in recs if _key(r) not in done][:limit]

def _gpus() -> list:
    "The visible GPUs' ids for CUDA_VISIBLE_DEVICES, from the variable itself or `nvidia-smi -L` (none without either)."
    vis = os.environ.get('CUDA_VISIBLE_DEVICES')
    if vis is not None: return [d.strip() for d in vis.split(',') if d.strip() and d.strip() != '-1']
    try: out = subprocess.run(['nvidia-smi', '-L'], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError): return []
    return [str(i) for i, l in enumerate(l for l in out.splitlines() if l.startswith('GPU '))]

def _model_path(a) -> str:
    "`--target`, else the demo target, converted by the first process while the others wait for it."
    if a.target: return a.target
    import fcntl
    from dflash_nb.targets import demo_target
    with open(Path(a.outdir) / f'.parts-{a.name}' / 'demo_target.lock', 'w') as f:
        fcntl.flock(f, fcntl.LOCK_EX); return str(demo_target())

def _users(msgs) -> list: return [m['content'] for m in msgs if m['role'] == 'user']

def _turns(recs) -> str:
    "'all' when some record holds several user turns (a prompt with context: answer each), else 'first'."
    from dflash_nb.data import normalize_conversation
    return 'all' if any(len(_users(normalize_conversation(r, require_assistant=False))) > 1 for r in recs) else 'first'

def _match(inputs, outputs) -> list:
    "Index into `inputs` of each regenerated record: `regenerate` keeps the order and leaves some out (empty answers)."
    from dflash_nb.data import normalize_conversation
    users, k, idx = [_users(normalize_conversation(r, require_assistant=False)) for r in inputs], 0, []
    for o in outputs:
        u = _users(o['messages'])
        while users[k][:len(u)] != u: k += 1   # IndexError here would be a bug: every output comes from an input
        idx.append(k); k += 1
    return idx

def _batches(mine, B, chunk_batches, first):
    "Batches of `(index, record)`: chunks in file order, each sorted longest first; the very first batch has `first` records."
    size = lambda r: sum(len(m.get('content', m.get('value', ''))) for m in r.get('messages', r.get('conversations', [])))
    out = []
    for c in range(0, len(mine), B * chunk_batches):
        chunk = sorted(mine[c:c + B * chunk_batches], key=lambda x: -size(x[1]))
        while chunk:
            n = min(first, B) if not out else B
            out.append(chunk[:n]); chunk = chunk[n:]
    return out

def worker(a):
    import torch
    from transformers import AutoModelForCausalLM
    from dflash_nb.data import regenerate, open_text
    from dflash_nb.targets import load_tokenizer
    t0, rank, world = T0, a.worker, a.world
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    if dev == 'cpu': torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    recs = _records(a.prompts, a.limit, a.skip)
    if a.turns == 'auto': a.turns = _turns(recs)
    mine = [(i, r) for i, r in enumerate(recs) if i % world == rank]
    path = _model_path(a)
    tok = load_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16 if dev == 'cuda' else torch.float32,
                                                 attn_implementation='sdpa').to(dev).eval()
    load_s = time.time() - t0
    parts = Path(a.outdir) / f'.parts-{a.name}'; part, tmp = parts / f'r{rank}.jsonl', parts / f'r{rank}.tmp.jsonl'
    st = dict(rank=rank, turns=a.turns, device=torch.cuda.get_device_name() if dev == 'cuda' else platform.processor() or 'cpu',
              assigned=len(mine), load_s=round(load_s, 2), batches=[], answered=0, answer_tokens=0, stopped_early=False,
              regenerate={})
    batches, hist, b = _batches(mine, a.batch_size, a.chunk_batches, a.first_batch), [], 0
    with open(part, 'w', encoding='utf-8') as out:
        while b < len(batches):
            batch = batches[b]
            if hist:   # the slowest batch at least this big, else the biggest one scaled up: a safe guess on a GPU
                same = [t for m, t in hist if m >= len(batch)]
                est = 1.25 * (max(same) if same else max(t * len(batch) / m for m, t in hist))
            else: est = 0.0
            if time.time() + est > a.deadline_at:
                st.update(stopped_early=True, not_started=sum(len(x) for x in batches[b:])); break
            tb = time.time()
            try:
                r = regenerate(model, tok, [x[1] for x in batch], tmp, max_new_tokens=a.max_new_tokens, batch_size=len(batch),
                               temperature=a.temperature, top_p=a.top_p, seed=a.seed * 1_000_003 + rank * 10_007 + b,
                               turns=a.turns, progress=False)
            except torch.cuda.OutOfMemoryError:
                if len(batch) == 1: raise
                torch.cuda.empty_cache(); st['oom_splits'] = st.get('oom_splits', 0) + 1
                cap = len(batch) // 2
                print(f"[r{rank}] out of memory with {len(batch)} prompts: batches of {cap} from here on", flush=True)
                batches[b:] = [x[i:i + cap] for x in batches[b:] for i in range(0, len(x), cap)]; continue
            with open_text(tmp) as f: got = [json.loads(l) for l in f]
            dt = time.time() - tb; hist.append((len(batch), dt))
            ks = _match([x[1] for x in batch], got)
            for k, o in zip(ks, got):
                i, src = batch[k]
                out.write(json.dumps({**o, **{f: v for f, v in src.items() if f not in ('messages', 'conversations')}, 'i': i},
                                     ensure_ascii=False) + '\n')
            for k in sorted(set(range(len(batch))) - set(ks)): out.write(json.dumps({'i': batch[k][0], 'left_out': True}) + '\n')
            out.flush()
            answers = [m['content'] for o in got for m in o['messages'] if m['role'] == 'assistant']
            ntok = sum(len(x) for x in tok(answers, add_special_tokens=False)['input_ids']) if answers else 0
            for key, v in r.items(): st['regenerate'][key] = st['regenerate'].get(key, 0) + v
            st['answered'] += len(got); st['answer_tokens'] += ntok
            st['batches'].append(dict(size=len(batch), s=round(dt, 2), answer_tokens=ntok))
            print(f"[r{rank}] batch {b + 1}/{len(batches)}: {len(batch)} prompts in {dt:.1f}s ({ntok / dt:,.0f} answer tokens/s, re-tokenized), "
                  f"{time.time() - t0:.0f}s since start", flush=True)
            b += 1
    tmp.unlink(missing_ok=True)
    gen_s = sum(x['s'] for x in st['batches'])
    st.update(gen_s=round(gen_s, 2), prompts_per_s=round(st['answered'] / gen_s, 2) if gen_s else None,
              answer_tokens_per_s=round(st['answer_tokens'] / gen_s) if gen_s else None, wall_s=round(time.time() - t0, 2))
    (parts / f'r{rank}.json').write_text(json.dumps(st, indent=1))
    sys.stdout.flush(); os._exit(0)   # done: skip the interpreter's slow teardown (CUDA, threads), the launcher is waiting

def _read_part(p) -> list:
    "The records of a part file; a last line cut short by a kill is left out."
    out = []
    for l in p.read_text(encoding='utf-8').splitlines():
        try: out.append(json.loads(l))
        except json.JSONDecodeError: pass
    return out

def main(a):
    start = T0
    reserve = a.reserve_s if a.reserve_s is not None else min(30.0, a.deadline_s / 4)
    gpus = _gpus(); n_gpu = len(gpus)
    world = a.procs or max(1, n_gpu)
    a.batch_size = a.batch_size or (1024 if n_gpu else 8)
    a.first_batch = a.first_batch or a.batch_size
    a.name = a.name or Path(a.prompts).name.split('.')[0] + ('_greedy' if a.temperature == 0 else f'_t{a.temperature:g}_s{a.seed}')
    out = Path(a.outdir); parts = out / f'.parts-{a.name}'
    shutil.rmtree(parts, ignore_errors=True); parts.mkdir(parents=True)
    at, procs = start + a.deadline_s - reserve, []
    for r in range(world):
        env = dict(os.environ, **({'CUDA_VISIBLE_DEVICES': gpus[r % n_gpu]} if n_gpu else {}))
        cmd = [sys.executable, __file__, a.prompts, a.outdir, '--worker', str(r), '--world', str(world), '--deadline-at', repr(at),
               '--name', a.name, '--turns', a.turns, '--batch-size', str(a.batch_size), '--max-new-tokens', str(a.max_new_tokens),
               '--chunk-batches', str(a.chunk_batches), '--first-batch', str(a.first_batch), '--temperature', repr(a.temperature),
               '--top-p', repr(a.top_p), '--seed', str(a.seed), '--skip', a.skip] + (['--limit', str(a.limit)] if a.limit else []) \
              + (['--target', a.target] if a.target else [])
        procs.append(subprocess.Popen(cmd, env=env))
    hard, killed = start + a.deadline_s - reserve / 2, []
    for r, p in enumerate(procs):
        try: p.wait(timeout=max(0.1, hard - time.time()))
        except subprocess.TimeoutExpired: p.kill(); p.wait(); killed.append(r)
    n_recs = len(_records(a.prompts, a.limit, a.skip))
    got = sorted((x for r in range(world) if (parts / f'r{r}.jsonl').exists() for x in _read_part(parts / f'r{r}.jsonl')),
                 key=lambda x: x['i'])
    done = {x['i'] for x in got}   # answered, or left out by regenerate (an empty answer): attempted either way
    got = [x for x in got if not x.get('left_out')]
    ranks = [json.loads((parts / f'r{r}.json').read_text()) if (parts / f'r{r}.json').exists()
             else dict(rank=r, failed=True, rc=procs[r].returncode, killed=r in killed) for r in range(world)]
    dst, tmp = out / f'{a.name}.jsonl.gz', out / f'.{a.name}.jsonl.gz.tmp'
    with _open(tmp, 'w') as f:
        for x in got: f.write(json.dumps({k: v for k, v in x.items() if k != 'i'}, ensure_ascii=False) + '\n')
    os.replace(tmp, dst)
    with _open(a.prompts) as f: sha = hashlib.sha256(f.read().encode()).hexdigest()
    gen_s = max((x.get('gen_s', 0) for x in ranks), default=0)
    ver = importlib.metadata.version
    summary = dict(
        output=str(dst), records=n_recs, answered=len(got), left_out=len(done) - len(got),
        empty_answers=sum(x.get('regenerate', {}).get('empty', 0) for x in ranks),
        complete_prefix=next((i for i in range(n_recs) if i not in done), n_recs),
        stopped_early=any(x.get('stopped_early') for x in ranks), killed_ranks=killed,
        failed_ranks=[x['rank'] for x in ranks if x.get('failed') and not x.get('killed')],   # crashed: see its output
        answer_tokens=sum(x.get('answer_tokens', 0) for x in ranks),
        answer_tokens_per_s=round(sum(x.get('answer_tokens', 0) for x in ranks) / gen_s) if gen_s else None,
        wall_s=round(time.time() - start, 2), deadline_s=a.deadline_s, reserve_s=reserve,
        settings=dict(prompts=a.prompts, prompts_sha256=sha, limit=a.limit, skip=a.skip, model=a.target or 'dflash_nb.targets.demo_target()',
                      dtype='bfloat16' if n_gpu else 'float32', attn='sdpa', temperature=a.temperature, top_p=a.top_p,
                      seed=a.seed, max_new_tokens=a.max_new_tokens, batch_size=a.batch_size, chunk_batches=a.chunk_batches,
                      first_batch=a.first_batch, turns=next((x['turns'] for x in ranks if 'turns' in x), a.turns),
                      processes=world, gpus=n_gpu),
        versions=dict(python=platform.python_version(), torch=ver('torch'), transformers=ver('transformers')),
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
        command=' '.join([Path(sys.executable).name] + sys.argv), ranks=ranks)
    (out / f'{a.name}.json').write_text(json.dumps(summary, indent=1))
    shutil.rmtree(parts, ignore_errors=True)
    print(json.dumps({k: v for k, v in summary.items() if k not in ('ranks', 'settings', 'versions')}), flush=True)
    return 0 if not summary['failed_ranks'] else 1

if __name__ == '__main__':
    a = _args()
    if a.worker is not None: worker(a)
    else: rc = main(a); sys.stdout.flush(); sys.stderr.flush(); os._exit(rc)   # no slow interpreter teardown: the deadline holds
