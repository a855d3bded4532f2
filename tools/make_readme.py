"""Regenerate README.md from nbs/index.ipynb (quarto, which `nbdev_readme` needs, is not available here).

Markdown cells are copied; code cells become ```python blocks followed by their text output; cells marked
`#| hide` are left out and nbdev directive lines (`#| ...`) are dropped.
Usage: python tools/make_readme.py          # writes README.md
       python tools/make_readme.py --check  # exit 1 if README.md differs from what would be written
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file. -->\n\n"

def _src(cell): return ''.join(cell['source']) if isinstance(cell['source'], list) else cell['source']

def _directives(src): return [l[3:].strip() for l in src.splitlines() if l.startswith('#|')]

def _text_outputs(cell):
    out = []
    for o in cell.get('outputs', []):
        if o.get('output_type') == 'stream' and o.get('name') == 'stdout': out.append(''.join(o['text']))
        elif 'data' in o and 'text/plain' in o['data']: out.append(''.join(o['data']['text/plain']))
    return ''.join(out).rstrip('\n')

def render(nb_path=ROOT / 'nbs' / 'index.ipynb'):
    nb = json.loads(Path(nb_path).read_text())
    parts = []
    for cell in nb['cells']:
        src = _src(cell)
        if any(d.split()[0] in ('hide', 'exporti') for d in _directives(src) if d): continue
        if cell['cell_type'] == 'markdown': parts.append(src.strip('\n'))
        elif cell['cell_type'] == 'code':
            code = '\n'.join(l for l in src.splitlines() if not l.startswith('#|')).strip('\n')
            if not code: continue
            parts.append(f"```python\n{code}\n```")
            out = _text_outputs(cell)
            if out: parts.append(f"```\n{out}\n```")
    return HEADER + '\n\n'.join(parts) + '\n'

def main(argv=sys.argv[1:]):
    text, readme = render(), ROOT / 'README.md'
    if '--check' in argv:
        if not readme.exists() or readme.read_text() != text:
            print('README.md is stale: run `python tools/make_readme.py` and commit it'); return 1
        print('README.md is up to date'); return 0
    readme.write_text(text); print(f'wrote {readme}'); return 0

if __name__ == '__main__': sys.exit(main())
