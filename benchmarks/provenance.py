"""What ran, on what hardware and software, and when: the provenance every benchmark writes beside its results.

    python3 benchmarks/provenance.py OUT_DIR -- COMMAND ...     # writes OUT_DIR/provenance.json, prints it

The record holds the command line as given, the date (UTC), the hardware (GPU names and count, driver and CUDA
versions, CPU count), the software (python, torch, transformers, dflash_nb's version, where it was imported from and
the git commit of that checkout, with `+dirty` when it has uncommitted changes). The Python scripts of `benchmarks/`
import `provenance()`; the shell scripts call this file.
"""
import datetime, json, os, platform, subprocess, sys
from pathlib import Path

def _run(*cmd, cwd=None):
    try: return subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=cwd).stdout.strip()
    except Exception: return ''

def hardware() -> dict:
    "GPU names and count, driver and CUDA versions (torch's build and nvidia-smi's driver), CPU cores."
    out = dict(cpu_count=os.cpu_count(), gpus=[], gpu_count=0, driver=None, cuda=None)
    try:
        import torch
        out['cuda'] = torch.version.cuda
        if torch.cuda.is_available():
            out['gpus'] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
            out['gpu_count'] = len(out['gpus'])
    except Exception as e: out['error'] = repr(e)
    drv = _run('nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader')
    out['driver'] = drv.splitlines()[0] if drv else None
    return out

def software() -> dict:
    "Python, torch, transformers, dflash_nb (version, location, git commit of its checkout)."
    out = dict(python=platform.python_version())
    for m in ('torch', 'transformers'):
        try: out[m] = __import__(m).__version__
        except Exception: out[m] = None
    try:
        import dflash_nb
        root = Path(dflash_nb.__file__).resolve().parents[1]
        commit = _run('git', 'rev-parse', '--short', 'HEAD', cwd=root)
        dirty = _run('git', 'status', '--porcelain', '--untracked-files=no', '--', 'dflash_nb', cwd=root)
        out['dflash_nb'] = dict(version=getattr(dflash_nb, '__version__', None), path=str(root),
                                commit=(commit + ('+dirty' if dirty else '')) if commit else None)
    except Exception as e: out['dflash_nb'] = dict(error=repr(e))
    return out

def provenance(argv=None) -> dict:
    "The provenance of this process: `argv` (default `sys.argv`) as the command."
    cmd = argv if argv is not None else sys.argv
    return dict(command=' '.join(cmd) if isinstance(cmd, (list, tuple)) else str(cmd),
                date=datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
                hardware=hardware(), software=software())

def write(out_dir, argv=None) -> dict:
    "Write `provenance.json` into `out_dir` (made if missing) and return it."
    p = provenance(argv); Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / 'provenance.json').write_text(json.dumps(p, indent=1) + '\n')
    return p

if __name__ == '__main__':
    if len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help'): print(__doc__); sys.exit(0 if len(sys.argv) > 1 else 2)
    rest = sys.argv[2:]; rest = rest[1:] if rest[:1] == ['--'] else rest
    print(json.dumps(write(sys.argv[1], rest), indent=1))
