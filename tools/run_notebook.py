"""Execute notebooks as a user would and keep their outputs, short: how the committed outputs are made.

    python tools/run_notebook.py --all                      # every notebook in nbs/, CPU cells, in place; then nbdev_clean
                                                            # and README.md (the one command that refreshes the outputs)
    python tools/run_notebook.py nbs/08_bench.ipynb [--out OUT.ipynb] [--skip-flags "multigpu slow"]   # e.g. on a GPU
    python tools/run_notebook.py nbs/08_bench.ipynb --cells ID[,ID]   # every unflagged cell, and of the flagged ones these
    python tools/run_notebook.py --all --scrub              # run nothing: take machine paths out of the outputs held

Runs every code cell in order (the cells whose nbdev flags are named in --skip-flags are skipped and keep the outputs
they have, e.g. GPU outputs recorded on a GPU machine; `#| eval: false` cells are skipped too), with the project root
on sys.path and cwd = the notebook's folder, then writes the notebook with its outputs. Outputs are made readable on
GitHub: progress bars are left out (their text around them stays), long text keeps its first and last lines, widget views are dropped
(plots stay, as PNG). Stops at the first failing cell but still writes what ran; exit status 1 then.
"""
import argparse, os, re, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDGET = ('application/vnd.jupyter.widget-view+json', 'application/vnd.jupyter.widget-state+json')

_BAR = re.compile(r'\d+%\|.*\|')   # a tqdm progress bar ("  40%|####      | 4/10 [...]")

def _lines(text: str) -> list:
    "Text as its lines: a carriage-return-overwritten line reduced to what it shows last, progress bars left out."
    out = []
    for l in text.split('\n'):
        parts = [p for p in l.split('\r') if p.strip() and not _BAR.search(p)]
        if parts or not l.strip(): out.append(parts[-1] if parts else '')
    return out

def short_text(text: str, max_lines: int = 40) -> str:
    "`text` with progress bars at their last state and at most `max_lines` lines (its head and tail)."
    ls = _lines(text if isinstance(text, str) else ''.join(text))
    ls = [l for i, l in enumerate(ls) if l.strip() or (i and ls[i - 1].strip())]   # no runs of blank lines
    if len(ls) > max_lines:
        head, tail = max_lines * 2 // 3, max_lines // 3 - 1
        ls = ls[:head] + [f'... ({len(ls) - head - tail} lines left out)'] + ls[-tail:]
    return '\n'.join(ls)

_PATHS = [(re.compile(r'\S*/site-packages/'), '<site-packages>/'),                 # a venv's or the system's packages
          (re.compile(re.escape(str(ROOT)) + r'/?'), ''),                           # this checkout: paths relative to its root
          (re.compile(r'/tmp/'), '<tmp>/'), (re.compile(r'/(root|home/[^/\s]+)/'), '<home>/')]

def scrub(text: str) -> str:
    "`text` without this machine's paths: temporary folders, home folders, site-packages and the checkout become placeholders."
    for pat, rep in _PATHS: text = pat.sub(rep, text)
    return text

def scrub_outputs(fn: Path):
    "The outputs notebook `fn` holds, scrubbed of machine paths in place (nothing is run)."
    import json
    nb = json.loads(fn.read_text())
    fix = lambda v: scrub(v) if isinstance(v, str) else scrub(''.join(v)).splitlines(keepends=True)   # lines stay lines
    for c in nb['cells']:
        for o in c.get('outputs', []):
            if 'text' in o: o['text'] = fix(o['text'])
            for k, v in (o.get('data') or {}).items():
                if k.startswith('text/'): o['data'][k] = fix(v)
    fn.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')

def short_outputs(outputs: list, max_lines: int = 40) -> list:
    "Outputs without widget views, with short text (streams of one name merged)."
    res = []
    for o in outputs:
        o = dict(o)
        if o.get('output_type') == 'stream':
            if res and res[-1].get('output_type') == 'stream' and res[-1].get('name') == o.get('name'):
                res[-1]['text'] = res[-1]['text'] + (o['text'] if isinstance(o['text'], str) else ''.join(o['text'])); continue
            o['text'] = o['text'] if isinstance(o['text'], str) else ''.join(o['text'])
        elif 'data' in o:
            data = {k: v for k, v in o['data'].items() if k not in WIDGET}
            if not data: continue
            if 'text/plain' in data and 'image/png' not in data:
                data['text/plain'] = scrub(short_text(data['text/plain'], max_lines))
            for k in ('text/markdown', 'text/html'):
                if k in data: data[k] = scrub(data[k] if isinstance(data[k], str) else ''.join(data[k]))
            o['data'] = data
        res.append(o)
    for o in res:
        if o.get('output_type') == 'stream':
            o['text'] = scrub(short_text(o['text'], max_lines))
            if o['text'] and not o['text'].endswith('\n'): o['text'] += '\n'
    return [o for o in res if o.get('output_type') != 'stream' or o['text'].strip()]

FLAGS = ('gpu', 'multigpu', 'slow', 'vllm')   # settings.ini's tst_flags

def run(fn: Path, out=None, skip=frozenset(), max_lines: int = 40, only=None) -> bool:
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from nbdev.process import extract_directives
    fn = Path(fn).resolve(); nb = read_nb(fn)
    if only is not None and (unknown := sorted(only - {c.get('id') for c in nb.cells})):
        print(f'{fn.name}: no cell with id {", ".join(unknown)}', file=sys.stderr); return False
    def _skip(cell):
        if cell.cell_type != 'code': return True
        if 'nbdev_export' + '(' in cell.source: return True
        d = extract_directives(cell, remove=False)
        if d.get('eval:', [''])[0].lower() == 'false': return True
        flagged = set(FLAGS) & d.keys()
        if only is not None and flagged:                  # with --cells, a flagged cell runs only if named
            if cell.get('id') not in only: return True
        elif skip & d.keys(): return True
        cell.outputs = []   # a cell that now prints nothing must not keep what it printed before
        return False
    def _post(cell):   # a line per cell as it ends, so that a run stopped by a time limit still says where it was
        cell.outputs = short_outputs(cell.get('outputs', []), max_lines)
        print(f'[{fn.name}] cell {cell.get("id")} done at {time.time() - t0:.0f} s', file=sys.stderr, flush=True)
    sh = CaptureShell(fn, mpl_format='png'); t0 = time.time(); ok = True
    cwd = os.getcwd(); os.chdir(fn.parent)
    try: sh.run_all(nb, exc_stop=True, preproc=_skip, postproc=_post)
    except Exception as e: ok = False; print(f'FAILED: {e}', file=sys.stderr)
    finally: os.chdir(cwd)
    for c in nb.cells:  # echo outputs so the run log holds them too
        for o in c.get('outputs', []):
            if o.get('output_type') == 'stream': print(o['text'], end='')
            elif 'text/plain' in o.get('data', {}): print(''.join(o['data']['text/plain']))
            elif o.get('output_type') == 'error': print('\n'.join(o.get('traceback', [])))
    write_nb(nb, out or fn)
    print(f'{"ok" if ok else "FAILED"}: {fn.name} in {time.time() - t0:.0f} s -> {out or fn}', flush=True)
    return ok

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('notebooks', nargs='*'); ap.add_argument('--out', default=None)
    ap.add_argument('--all', action='store_true', help='every notebook in nbs/ in place, then nbdev_clean and README.md')
    ap.add_argument('--skip-flags', default=None, help='space-separated cell flags to skip (default: "gpu multigpu slow" '
                    'with --all or without a GPU, else "multigpu slow"; and "vllm" unless DFLASH_NB_VLLM_PYTHON is set)')
    ap.add_argument('--max-lines', type=int, default=40, help='lines kept of a long text output')
    ap.add_argument('--scrub', action='store_true', help="run nothing: only take this machine's paths out of the outputs "
                    "the notebooks already hold (e.g. GPU outputs recorded elsewhere)")
    ap.add_argument('--cells', default=None, help='comma-separated ids of the flagged cells to run (whatever their flags); '
                    'the other flagged cells are skipped and keep their outputs, unflagged cells run as always')
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    nbs = sorted(p for p in (ROOT / 'nbs').glob('*.ipynb') if not p.name.startswith(('_', '.'))) if a.all else a.notebooks
    if not nbs: ap.error('give notebooks or --all')
    if a.out and len(nbs) > 1: ap.error('--out takes one notebook')
    if a.scrub:
        for n in nbs: scrub_outputs(Path(n))
        return 0
    if a.skip_flags is None:   # default: what this machine can run (GPU cells only where there is a GPU), never the long ones
        import torch
        a.skip_flags = 'multigpu slow' if torch.cuda.is_available() and not a.all else 'gpu multigpu slow'
        if not os.environ.get('DFLASH_NB_VLLM_PYTHON'): a.skip_flags += ' vllm'   # vLLM cells need a python with vllm
    skip = set(a.skip_flags.split())
    only = set(a.cells.split(',')) if a.cells else None
    failed = [str(n) for n in nbs if not run(Path(n), a.out, skip, a.max_lines, only)]
    if a.all:
        subprocess.run(['nbdev_clean'], cwd=ROOT, check=True)
        subprocess.run([sys.executable, str(ROOT / 'tools' / 'make_readme.py')], check=True)
    if failed: print('failed:', *failed)
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
