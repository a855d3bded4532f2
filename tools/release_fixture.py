"""What the recorders of released drafter layouts share (each runs in the venv of the project whose code it records).

`start(tool, package, pinned, argv)`: OUT and --any-version parsed, the project's version checked against the pin, OUT
made, and the report's first fields (versions and the command). `seeded_fill(model)`: every parameter set from a
seeded generator (linear weights N(0, 0.2), norms 1 + N(0, 0.1)); `seeded_save(model, out)` that, then the model's own
`save_pretrained`; both return the generator, which the recorder goes on drawing its inputs from (so the files are the
same on every run).
"""
import argparse, shlex, sys
from pathlib import Path


def start(tool:str, package:str, pinned:str, argv=None, doc:str=''):
    "`(args, out, report)` for recorder `tool` of `package` pinned to `pinned`."
    from importlib.metadata import version
    import torch, transformers
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('out'); ap.add_argument('--any-version', action='store_true')
    a = ap.parse_args(argv)
    if version(package) != pinned and not a.any_version: sys.exit(f"{package} {version(package)}: pinned to {pinned} (--any-version)")
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    rep = {package: version(package), 'torch': torch.__version__, 'transformers': transformers.__version__,
           'command': shlex.join([Path(sys.executable).name, f'tools/{tool}', *sys.argv[1:]])}
    return a, out, rep


def seeded_fill(model, seed:int=0):
    "Fill `model`'s parameters from a generator seeded `seed` (linear N(0, 0.2), norms 1 + N(0, 0.1)); the generator."
    import torch
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            r = torch.randn(p.shape, generator=g)
            p.copy_(1 + 0.1 * r if name.endswith('norm.weight') else 0.2 * r)
    return g


def seeded_save(model, out:Path, seed:int=0):
    "`seeded_fill`, then save `model` into `out` with its own `save_pretrained`; the generator."
    g = seeded_fill(model, seed)
    model.save_pretrained(str(out))
    return g
