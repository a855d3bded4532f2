"""NVIDIA's Nemotron DSpark layout (`Qwen3DSparkModel` + `dflash_config.attention_sink_bias`, causal drafting, the
bonus-anchor layout), built from its config keys and tensor names as dspark-spec.md §6 records them (SECONDHAND: no code
of NVIDIA's is run; random values, tiny dims), for the refusal test of nbs/03e_dspark.ipynb. Any python with torch and
safetensors:

    python tools/nemotron_dspark_fixture.py data_samples/nemotron_dspark_spec6

Writes `config.json` and `model.safetensors` (hidden 32, 2 layers, vocab 64, block 4, Markov rank 8, confidence head,
one `attention_sink_bias` [num_heads] per layer; the target's embedding and head left out).
"""
import json, sys
from pathlib import Path


def main(argv=None):
    import torch
    from safetensors.torch import save_file
    out = Path((argv or sys.argv[1:])[0]); out.mkdir(parents=True, exist_ok=True)
    V, H, I, L, nq, nkv, D, r, taps = 64, 32, 64, 2, 4, 2, 8, 8, [1, 3]
    cfg = {'architectures': ['Qwen3DSparkModel'], 'model_type': 'qwen3', 'vocab_size': V, 'hidden_size': H, 'intermediate_size': I,
           'num_hidden_layers': L, 'num_attention_heads': nq, 'num_key_value_heads': nkv, 'head_dim': D, 'rms_norm_eps': 1e-6,
           'rope_parameters': {'rope_type': 'default', 'rope_theta': 10000.0}, 'max_position_embeddings': 512, 'tie_word_embeddings': False,
           'layer_types': ['full_attention'] * L, 'block_size': 4, 'num_target_layers': 6, 'markov_rank': r, 'markov_head_type': 'vanilla',
           'enable_confidence_head': True, 'confidence_head_with_markov': True, 'dspark_bonus_anchor': True,
           'eagle_aux_hidden_state_layer_ids': [i + 1 for i in taps], 'mask_token_id': V - 1, 'target_layer_ids': taps, 'dtype': 'float32',
           'dflash_config': {'causal': True, 'attention_sink_bias': True, 'use_swa': True, 'swa_window_size': 16, 'sample_from_anchor': False,
                             'mask_token_id': V - 1, 'target_layer_ids': taps}}
    shapes = {'fc.weight': (H, len(taps) * H), 'hidden_norm.weight': (H,), 'norm.weight': (H,), 'markov_head.markov_w1.weight': (V, r),
              'markov_head.markov_w2.weight': (V, r), 'confidence_head.proj.weight': (1, H + r), 'confidence_head.proj.bias': (1,)}
    for i in range(L):
        shapes.update({f'layers.{i}.{k}': s for k, s in {
            'input_layernorm.weight': (H,), 'post_attention_layernorm.weight': (H,), 'self_attn.q_proj.weight': (nq * D, H),
            'self_attn.k_proj.weight': (nkv * D, H), 'self_attn.v_proj.weight': (nkv * D, H), 'self_attn.o_proj.weight': (H, nq * D),
            'self_attn.q_norm.weight': (D,), 'self_attn.k_norm.weight': (D,), 'self_attn.attention_sink_bias': (nq,),
            'mlp.gate_proj.weight': (I, H), 'mlp.up_proj.weight': (I, H), 'mlp.down_proj.weight': (H, I)}.items()})
    g = torch.Generator().manual_seed(0)
    save_file({k: torch.randn(s, generator=g) * 0.2 for k, s in sorted(shapes.items())}, str(out / 'model.safetensors'), metadata={'format': 'pt'})
    (out / 'config.json').write_text(json.dumps(cfg, indent=2) + '\n')
    print(f"{out}: config.json, model.safetensors ({len(shapes)} tensors)")


if __name__ == '__main__': main()
