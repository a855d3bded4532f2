"""Why a CUDA graph of the compiled capture fails, and which way of recording works (needs a CUDA GPU; no model, no data).

    python3 benchmarks/probe_graphs.py --out DIR [variant ...]      (default: every variant: eager-layers as-is
                                                                    current-stream-warmup as-is-static)

Each variant records the capture of a tiny random llama (compiled layers) as a CUDA graph, compares it with the eager
capture, and prints the full error when it fails (the warning in `capture` keeps only its first line), with dynamo's
recompile log. Each variant runs in a process of its own: a broken capture leaves the CUDA generator unusable.
DIR/graphs.log gets what it prints, DIR/provenance.json the command, hardware, software and date.
"""
import os, subprocess, sys, tempfile, traceback, contextlib, pathlib
if __name__ == '__main__' and (len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help')): print(__doc__); sys.exit(0 if len(sys.argv) > 1 else 2)
import torch
from dflash_nb.targets import Target, make_tiny_target, _capture, _capture_graphed
import dflash_nb.targets as T
from transformers import AutoModelForCausalLM

torch._logging.set_logs(recompiles=True, graph_breaks=True)
path = make_tiny_target(pathlib.Path(tempfile.mkdtemp()) / 'llama', 'llama', num_layers=5, hidden_size=48, num_heads=3, num_kv_heads=1, seed=1)
mk = lambda: Target(AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16, attn_implementation='sdpa').cuda(), layer_ids=[0, 1, 3])
ref = mk()

def current_stream_record(self, ids, out):
    "The first recording: the run before it on the current stream, the recording on a side stream."
    _capture(self, ids, None, out=out)
    if getattr(self, '_graph_stream', None) is None: self._graph_stream = torch.cuda.Stream(self.device)
    g, s, cur = torch.cuda.CUDAGraph(), self._graph_stream, torch.cuda.current_stream(self.device)
    s.wait_stream(cur)
    with torch.cuda.device(self.device), torch.cuda.stream(s):
        g.capture_begin(self._graph_pool, capture_error_mode='thread_local')
        try: _capture(self, ids, None, out=out)
        except BaseException:
            with contextlib.suppress(Exception): g.capture_end()
            raise
        g.capture_end()
    cur.wait_stream(s)
    return g

def run(name, compiled=True, record=None, dynamic=True):
    print(f'===== {name}', flush=True)
    orig = T._graph_record
    if record is not None: T._graph_record = record
    try:
        t = mk()
        if compiled: t.compile_capture(dynamic=dynamic)
        t.graph_capture(multiple=16)
        for B, S in ((3, 16), (2, 20), (4, 9), (3, 16)):
            ids = torch.randint(0, 200, (B, S), device='cuda')
            h = _capture_graphed(t, ids); torch.cuda.synchronize()
            e = ref.capture(ids).float(); err = ((h.float() - e).norm() / e.norm()).item()
            print(f'{name} {(B, S)} ok rel_err={err:.4f} graphs={sorted(t._graphs)}', flush=True)
    except BaseException as ex:
        print(f'{name} FAILED {type(ex).__name__}', flush=True); traceback.print_exc(limit=12); print(str(ex)[:6000])
        c = ex.__cause__ or ex.__context__
        while c is not None:
            print('--- cause:', type(c).__name__, str(c)[:6000]); c = c.__cause__ or c.__context__
    finally: T._graph_record = orig

VARIANTS = {'eager-layers': dict(compiled=False), 'as-is': {}, 'current-stream-warmup': dict(record=current_stream_record),
            'as-is-static': dict(dynamic=False)}
if len(sys.argv) == 3 and sys.argv[1] == '--one': run(sys.argv[2], **VARIANTS[sys.argv[2]])
else:
    args = sys.argv[1:]
    if args[:1] != ['--out'] or len(args) < 2: sys.exit('usage: python3 benchmarks/probe_graphs.py --out DIR [variant ...]')
    out = pathlib.Path(args[1]); sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from provenance import write; write(out)
    with open(out / 'graphs.log', 'w') as log:
        for v in args[2:] or VARIANTS:
            r = subprocess.run([sys.executable, __file__, '--one', v], capture_output=True, text=True, timeout=240)
            text = r.stdout[-6000:] + '\n' + '\n'.join(l for l in r.stderr.splitlines() if 'Loading weights' not in l)[-8000:]
            print(text, flush=True); log.write(text + '\n')
