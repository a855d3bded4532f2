"""Execute a notebook in place, keeping its outputs (used to record benchmark results on the H200).

Runs every code cell (nbdev test flags are ignored: the notebook is executed as a user would run it; `#| eval: false`
cells are skipped), with the project root on sys.path and cwd = the notebook's folder, then writes the notebook with
its outputs to --out (default: in place). Stops at the first failing cell but still writes what ran.
Usage: python tools/run_notebook.py nbs/08_bench.ipynb [--out OUT.ipynb] [--skip-flags "multigpu"]
"""
import argparse, os, sys, time
from pathlib import Path

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('notebook'); ap.add_argument('--out', default=None)
    ap.add_argument('--skip-flags', default='', help='space-separated cell flags to skip (e.g. "multigpu")')
    a = ap.parse_args()
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from nbdev.process import NBProcessor, extract_directives
    root = Path(__file__).resolve().parents[1]; sys.path.insert(0, str(root))
    fn = Path(a.notebook).resolve(); skip = set(a.skip_flags.split())
    nb = read_nb(fn)
    def _skip(cell):
        if cell.cell_type != 'code': return True
        if 'nbdev_export' + '(' in cell.source: return True
        d = extract_directives(cell, remove=False)
        if d.get('eval:', [''])[0].lower() == 'false': return True
        return bool(skip & d.keys())
    sh = CaptureShell(fn); t0 = time.time(); ok = True
    cwd = os.getcwd(); os.chdir(fn.parent)
    try: sh.run_all(nb, exc_stop=True, preproc=_skip)
    except Exception as e: ok = False; print(f'FAILED: {e}', file=sys.stderr)
    finally: os.chdir(cwd)
    for c in nb.cells:  # echo outputs so the run log holds them too
        for o in c.get('outputs', []):
            if o.get('output_type') == 'stream': print(''.join(o['text']), end='')
            elif 'text/plain' in o.get('data', {}): print(''.join(o['data']['text/plain']))
            elif o.get('output_type') == 'error': print('\n'.join(o.get('traceback', [])))
    write_nb(nb, a.out or fn)
    print(f'{"ok" if ok else "FAILED"}: {fn.name} in {time.time() - t0:.0f} s -> {a.out or fn}')
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
