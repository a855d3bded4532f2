"""The command that made the demo's answer files, kept so that the commands recorded beside them still run.

  python3 tools/h200/regen_all.py PROMPTS OUTDIR [options of dflash_nb_regen]

It is `dflash_nb_regen` (`nbs/00a_regen.ipynb`, `python -m dflash_nb.regen`) run from a checkout that is not
installed, with one difference kept from this script's past: `--deadline-s` defaults to 540 (a GPU call of 10
minutes) instead of none. Since it became the package's command a run also resumes: the same command started
again answers only what its part files do not hold yet. Use `dflash_nb_regen` (or `python -m dflash_nb.regen`).
"""
import time
T0 = time.time()  # the deadline counts from here, before the slow imports
import sys
from pathlib import Path

if __name__ == '__main__':
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from dflash_nb.regen import main
    argv = sys.argv[1:]
    if not any(a.split('=')[0] in ('--deadline-s', '--deadline_s') for a in argv): argv += ['--deadline-s', '540']
    sys.exit(main(argv, prog='python3 tools/h200/regen_all.py', start=T0))
