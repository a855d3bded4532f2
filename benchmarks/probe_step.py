"""Where the demo step's kernel time goes, part by part, in variants side by side; no demo model or data needed.

  python3 benchmarks/probe_step.py --out DIR [--parts flex,target,ce] [--flex VARIANT,...]   (PROBE_CODE=DIR: keep each flex variant's kernels)

flex:   the demo drafter (SmolLM2-135M's shapes, 5 layers, compiled as training compiles them) forward + backward on two
        demo batch shapes, per variant: the flex attention kernels' time per step (profiler) and the whole fwd+bwd (events);
        variants: inductor prologue fusion on/off, static shapes, explicit flex kernel block sizes.
target: capture of a random SmolLM2-135M-shaped Llama (taps 1,8,14,20,27) on the same batches, eager against decoder
        layers compiled (`torch.compile(layer.forward, dynamic=True)`), outputs compared.
ce:     one cross-entropy chunk of the demo (1,920 rows x 49,152): the inductor-fused chunk, its max and argmax from one
        reduction, and two Triton kernels (`_ce_chunk_triton` of 03a_loss, `--ce-kernel triton`: one pass for log-sum-exp, argmax and CE, one writing the gradient
        over the logits), results compared.
On a CPU it runs tiny shapes (a check of the script, not a measurement). DIR/probe.json holds the figures and, under
`provenance`, the command, hardware, software and date (the records of nbs/records/step_probe/ are such files).
"""
import argparse, functools, json, os, statistics, sys, time
from pathlib import Path
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import provenance
import dflash_nb.drafter as dm
from dflash_nb.drafter import DFlashConfig, DFlashDrafter
from dflash_nb.loss import sample_anchors, pad_anchor_slots, prepare_targets, chunked_lm_loss

GPU = torch.cuda.is_available()
DEV = 'cuda' if GPU else 'cpu'
SHAPES = [(51, 319), (138, 118)] if GPU else [(3, 40)]


def timed(fn, steps=10, warmup=3):
    "Median ms of `fn` over `steps` calls after `warmup`, CUDA events (wall clock on a CPU)."
    for _ in range(warmup): fn()
    ts = []
    for _ in range(steps):
        if GPU:
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
        else:
            t0 = time.perf_counter(); fn(); ts.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(ts)


def kernel_ms(fn, match):
    "Kernel ms of one `fn` call, summed over kernels whose name contains any of `match` and in all."
    if not GPU: return {}
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p: fn(); torch.cuda.synchronize()
    out = {m: 0.0 for m in match}; out['all'] = 0.0
    for e in p.events():
        if e.device_type != torch.autograd.DeviceType.CUDA: continue
        t = getattr(e, 'device_time', 0) / 1e3 if hasattr(e, 'device_time') else e.cuda_time / 1e3
        out['all'] += t
        for m in match:
            if m in e.name: out[m] += t
    return {k: round(v, 3) for k, v in out.items()}


def demo_cfg():
    if GPU: return DFlashConfig(hidden_size=576, intermediate_size=1536, num_hidden_layers=5, num_attention_heads=9, num_key_value_heads=3,
                                head_dim=64, vocab_size=49152, num_target_layers=30, target_layer_ids=[1, 8, 14, 20, 27], mask_token_id=3,
                                rope_theta=100000.0)
    return DFlashConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        head_dim=16, vocab_size=256, num_target_layers=4, target_layer_ids=[1, 2], mask_token_id=3)


def batch(cfg, B, S, seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(4, cfg.vocab_size, (B, S), generator=g)
    lm = torch.ones(B, S, dtype=torch.long); lm[:, :S // 3] = 0
    anchors, keep = pad_anchor_slots(*sample_anchors(lm, 32, g), cfg.block_size)
    th = torch.randn(B, S, cfg.num_taps * cfg.hidden_size, generator=g).to(torch.bfloat16)
    t = prepare_targets(ids, lm, anchors, keep, cfg.block_size, cfg.mask_token_id)
    return {k: (v.to(DEV) if torch.is_tensor(v) else v) for k, v in dict(ids=ids, lm=lm, th=th, **t).items()}


FLEX_VARIANTS = {       # flex_tile as --flex-tile; extra: more kernel options over the tile (prefix fwd_/bwd_: one pass only)
    'torch': dict(flex_tile='torch'),
    'auto': dict(flex_tile='auto'),
    'auto_tma': dict(flex_tile='auto', extra={'USE_TMA': True}),
    'auto_bwd_w4': dict(flex_tile='auto', extra={'bwd_num_warps': 4, 'bwd_BLOCK_M1': 64, 'bwd_BLOCK_N1': 64, 'bwd_BLOCK_M2': 64, 'bwd_BLOCK_N2': 64}),
    'auto_bwd_32x128': dict(flex_tile='auto', extra={'bwd_BLOCK_M1': 32, 'bwd_BLOCK_N1': 128, 'bwd_BLOCK_M2': 128, 'bwd_BLOCK_N2': 32, 'bwd_num_warps': 4}),
    'auto_bwd_s2': dict(flex_tile='auto', extra={'bwd_num_stages': 2}),
    'auto_bwd_32x64': dict(flex_tile='auto', extra={'bwd_BLOCK_M1': 32, 'bwd_BLOCK_N1': 64, 'bwd_BLOCK_M2': 64, 'bwd_BLOCK_N2': 32,
                                                    'bwd_num_warps': 4, 'bwd_num_stages': 3}),
    'auto_static': dict(flex_tile='auto', dynamic=False),
    # static sequence lengths, the batch dynamic: compiled first static (dynamic=None), then a batch of another size
    # makes only that dimension dynamic; what padding each batch's length to a few sizes would give
    'auto_dyn_batch': dict(flex_tile='auto', dynamic=None, prime=1),
    # the batch and the sequence length dynamic, the block queries (anchors x block) static: torch's automatic dynamic
    # after a first batch of another size and length; what compiling with dynamic=None instead of True would give
    'auto_dyn_bs': dict(flex_tile='auto', dynamic=None, prime=(1, 7)),
    'no_prologue': dict(flex_tile='torch', options={'prologue_fusion': False}),
}


def probe_flex(variants):
    cfg, res = demo_cfg(), {}
    orig_opts = dm.inductor_options
    for name in variants:
        v = FLEX_VARIANTS[name]
        torch._dynamo.reset()
        if os.environ.get('PROBE_CODE'):       # each variant's generated kernels in a folder of its own (inductor's cache)
            os.environ['TORCHINDUCTOR_CACHE_DIR'] = str(Path(os.environ['PROBE_CODE']) / name)
        dm.inductor_options = (lambda d, o=v.get('options', {}): {**orig_opts(d), **o})
        torch.manual_seed(0)
        d = DFlashDrafter(cfg).to(DEV, torch.bfloat16).train().compile_layers(dynamic=v.get('dynamic', True), flex_tile=v.get('flex_tile', 'auto'))
        if GPU and v.get('extra'):
            for l in d.layers: l.self_attn.flex_options = {**(l.self_attn.flex_options or {}), **v['extra']}
        emb = torch.randn(cfg.vocab_size, cfg.hidden_size, device=DEV, dtype=torch.bfloat16)
        head = (torch.randn(cfg.vocab_size, cfg.hidden_size, device=DEV, dtype=torch.bfloat16) * cfg.hidden_size ** -0.5)
        rows = {}
        try:
            for B, S in SHAPES:
                if v.get('prime'):                   # the same length, another batch size, first: the batch dimension goes dynamic
                    dB, dS = v['prime'] if isinstance(v['prime'], tuple) else (v['prime'], 0)
                    p = batch(cfg, B + dB, S + dS, seed=1)
                    d(target_hidden=p['th'], noise_embedding=torch.nn.functional.embedding(p['block_ids'], emb), anchors=p['anchors'],
                      keep=p['keep'], backend='flex' if GPU else 'sdpa',
                      masks=d.attention_masks(p['anchors'], p['keep'], S + dS, 'flex' if GPU else 'sdpa')).sum().backward()
                    d.zero_grad(set_to_none=True)
                b = batch(cfg, B, S)
                masks = d.attention_masks(b['anchors'], b['keep'], S, 'flex' if GPU else 'sdpa')
                def step():
                    h = d(target_hidden=b['th'], noise_embedding=torch.nn.functional.embedding(b['block_ids'], emb), anchors=b['anchors'],
                          keep=b['keep'], backend='flex' if GPU else 'sdpa', masks=masks)
                    loss, _, _ = chunked_lm_loss(h, head, b['labels'], b['weights'], cfg.block_size, 128)
                    loss.backward(); d.zero_grad(set_to_none=True)
                    return loss.detach()
                t0 = time.time(); step(); first = time.time() - t0
                rows[f'{B}x{S}'] = dict(first_s=round(first, 1), ms=round(timed(step), 3),
                                        kernels=kernel_ms(step, ['flex_attention_backward', 'flex_attention', 'triton_red_fused']),
                                        loss=float(step()))
        except Exception as e: rows['failed'] = f'{type(e).__name__}: {str(e)[:300]}'
        res[name] = rows
        print(f"flex {name}: {json.dumps(rows)}", flush=True)
    dm.inductor_options = orig_opts
    return res


def probe_target(modes=('eager', 'compiled')):
    from transformers import LlamaConfig, LlamaForCausalLM
    from dflash_nb.targets import Target
    if GPU: c = LlamaConfig(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                            vocab_size=49152, rope_theta=100000.0, tie_word_embeddings=True, max_position_embeddings=8192)
    else: c = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, vocab_size=256)
    c._attn_implementation = 'sdpa'
    torch.manual_seed(0)
    m = LlamaForCausalLM(c).to(DEV, torch.bfloat16)
    t = Target(m, layer_ids=[1, 8, 14, 20, 27] if GPU else [1, 2])
    res, ref = {}, {}
    for mode in modes:
        if mode == 'compiled':
            torch._dynamo.reset()
            for layer in t._decoder.layers: layer.forward = torch.compile(layer.forward, dynamic=True)
        rows = {}
        for B, S in SHAPES:
            g = torch.Generator().manual_seed(1)
            ids = torch.randint(4, c.vocab_size, (B, S), generator=g).to(DEV)
            am = torch.ones(B, S, dtype=torch.long, device=DEV)
            t0 = time.time(); out = t.capture(ids, am); first = time.time() - t0
            if mode == 'eager': ref[(B, S)] = out.clone()
            err = float((out.float() - ref[(B, S)].float()).abs().max()) if (B, S) in ref else None
            rows[f'{B}x{S}'] = dict(first_s=round(first, 1), ms=round(timed(lambda: t.capture(ids, am)), 3), max_abs_diff=err,
                                    kernels=kernel_ms(lambda: t.capture(ids, am), ['flash', 'nvjet', 'triton']))
        res[mode] = rows
        print(f"target {mode}: {json.dumps(rows)}", flush=True)
    return res


def _ce_max_index(logits, lab, w, need_grad:bool, dpace=None):
    "The fused chunk with the max and the argmax from one reduction (`max(-1)`), the log-sum-exp from it."
    x = logits.float()
    mx, pred = x.max(-1)
    lse = mx + (x - mx[:, None]).exp().sum(-1).log()
    ce = lse - x.gather(1, lab[:, None])[:, 0]
    loss = (ce * w).sum()
    hot = torch.arange(x.shape[1], device=x.device)[None] == lab[:, None]
    return loss, pred, (((x - lse[:, None]).exp() - hot.to(x.dtype)) * w[:, None]).to(logits.dtype), w


def probe_ce():
    from dflash_nb.loss import _ce_chunk_fused
    from dflash_nb.compile import compiled_only
    rows, V = (1920, 49152) if GPU else (64, 256)
    g = torch.Generator(device=DEV).manual_seed(0)
    logits = (4 * torch.randn(rows, V, device=DEV, generator=g)).to(torch.bfloat16)
    lab = torch.randint(0, V, (rows,), device=DEV, generator=g); w = torch.rand(rows, device=DEV, generator=g)
    res, ref = {}, None
    variants = [('current', _ce_chunk_fused), ('max_index', _ce_max_index)]
    if GPU or os.environ.get('TRITON_INTERPRET') == '1':
        from dflash_nb.loss import _ce_chunk_triton as ce_chunk_triton
        variants.append(('triton', ce_chunk_triton))
    for name, f in variants:
        torch._dynamo.reset()
        if name == 'triton':                       # in place over the logits: checked on a copy, timed on a scratch copy
            scratch = logits.clone(); c = lambda x, l, ww, g: ce_chunk_triton(scratch if x is logits else x, l, ww, g)
            out = ce_chunk_triton(logits.clone(), lab, w, True)
        else:
            c = dm._compile(compiled_only(f), DEV)
            out = c(logits, lab, w, True)
        if ref is None: ref = out
        res[name] = dict(ms=round(timed(lambda: c(logits, lab, w, True)), 4), kernels=kernel_ms(lambda: c(logits, lab, w, True), ['triton']),
                         pred_equal=bool((out[1] == ref[1]).all()), loss_rel=float((out[0] - ref[0]).abs() / ref[0].abs()),
                         grad_max_diff=float((out[2].float() - ref[2].float()).abs().max()))
        print(f"ce {name}: {json.dumps(res[name])}", flush=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n'.join(__doc__.split('\n')[3:]))
    ap.add_argument('--parts', default='flex,target', help='which probes: flex, target, ce (comma-separated; default flex,target)')
    ap.add_argument('--flex', default=','.join(FLEX_VARIANTS), help='flex variants to run (default: all)')
    ap.add_argument('--out', default='', help='folder for probe.json (figures and provenance)')
    a = ap.parse_args()
    print('torch', torch.__version__, torch.cuda.get_device_name(0) if GPU else 'cpu', flush=True)
    res = {'provenance': provenance()}
    for part in a.parts.split(','):
        try: res[part] = probe_flex(a.flex.split(',')) if part == 'flex' else probe_target() if part == 'target' else probe_ce()
        except Exception as e:
            import traceback; traceback.print_exc(); res[part] = f'failed: {e!r}'
    if a.out: Path(a.out).mkdir(parents=True, exist_ok=True); (Path(a.out) / 'probe.json').write_text(json.dumps(res, indent=1))


if __name__ == '__main__': main()
