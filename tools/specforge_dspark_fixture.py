"""SpecForge's DSpark (`DSparkDraftModel`, its nested `dflash_config`) on a tiny seeded model, for the layout tests of
nbs/03e_dspark.ipynb (run with a python that has specforge, in its own venv).

    /tmp/sfvenv/bin/python tools/specforge_dspark_fixture.py data_samples/specforge_dspark_0.2.0

Pinned: specforge==0.2.0 (other versions refused unless --any-version; versions recorded). The venv: `python3 -m venv
/tmp/sfvenv && /tmp/sfvenv/bin/pip install --no-deps specforge==0.2.0`, with torch and transformers on its path (a `.pth`
file naming the site-packages of the venv of tools/dspark_fixture.py: torch 2.13.0, transformers 5.25.0).

What it writes into OUT (a folder):
- `config.json`, `model.safetensors`: SpecForge's own `save_pretrained` of a tiny seeded `DSparkDraftModel` (hidden 32,
  2 full layers, vocab 160, `block_size` 5, `dflash_config` {target_layer_ids [1, 3], mask_token_id 159, markov_rank 16,
  vanilla, a confidence head over [h; W1[p]]}, 6 target layers; linear weights N(0, 0.2), norms 1 + N(0, 0.1)): a
  released drafter in its layout (no embedding or LM head: the target's);
- `forward.safetensors` (float32; a JSON report in its metadata under 'report'):
  - `w/embed_tokens.weight`, `w/lm_head.weight`: a target's embedding and head (random);
  - `in/*`: three blocks [anchor, MASK x 4] after a 9-position context of the concatenated taps, and each block's
    predecessor tokens (anchor, then the block's true tokens);
  - `out/hidden`: its `forward` (eager attention, no mask: the inference call, the context and the whole block);
    `out/logits`: `apply_logits_head` (the target's head plus the Markov bias of the predecessors); `out/confidence`:
    `predict_confidence`; `out/walk_tokens`, `out/walk_logits`: its Markov head's greedy `sample_block_tokens` from the anchor.
"""
import argparse, json, shlex, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_fixture import start, seeded_save   # noqa: E402

PINNED = '0.2.0'


def tiny_config():
    from transformers import Qwen3Config
    c = Qwen3Config(vocab_size=160, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    head_dim=8, max_position_embeddings=512, rms_norm_eps=1e-6, rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0},
                    layer_types=['full_attention', 'full_attention'], tie_word_embeddings=False)
    c.architectures, c.block_size, c.num_target_layers = ['DSparkDraftModel'], 5, 6
    c.dflash_config = {'attention_mode': 'gqa', 'mask_token_id': 159, 'target_layer_ids': [1, 3], 'projector_type': 'dspark', 'markov_rank': 16,
                       'markov_head_type': 'vanilla', 'confidence_head_alpha': 1.0, 'enable_confidence_head': True, 'confidence_head_with_markov': True}
    c._attn_implementation = 'eager'
    return c


def main(argv=None):
    a, out, rep = start('specforge_dspark_fixture.py', 'specforge', PINNED, argv, __doc__)
    import torch, transformers
    from safetensors.torch import save_file
    from specforge.modeling.draft.dspark import DSparkDraftModel
    model = DSparkDraftModel(tiny_config()).eval()
    g = seeded_save(model, out)
    rep['saved_files'] = sorted(f.name for f in out.iterdir())
    V, H, G, C, N = 160, 32, 5, 9, 3
    T = {'w/embed_tokens.weight': torch.randn(V, H, generator=g), 'w/lm_head.weight': torch.randn(V, H, generator=g) * 0.3}
    anc = torch.tensor([3, 17, 158])
    bids = torch.full((N, G), 159); bids[:, 0] = anc
    prev = torch.cat([anc[:, None], torch.randint(0, V - 1, (N, G - 1), generator=g)], 1)
    T.update({'in/target_hidden': torch.randn(N, C, 2 * H, generator=g), 'in/block_ids': bids, 'in/prev': prev})
    with torch.no_grad():
        hid = model(position_ids=torch.arange(C + G)[None].expand(N, -1), noise_embedding=T['w/embed_tokens.weight'][bids],
                    target_hidden=T['in/target_hidden'], attention_mask=None)
        base = hid @ T['w/lm_head.weight'].T
        T['out/hidden'], T['out/logits'] = hid, model.apply_logits_head(base, prev_token_ids=prev, hidden_states=hid)
        T['out/confidence'] = model.predict_confidence(hid, prev_token_ids=prev)
        T['out/walk_tokens'], T['out/walk_logits'] = model.markov_head.sample_block_tokens(base, first_prev_token_ids=anc, hidden_states=hid)
    save_file({k: v.contiguous() for k, v in T.items()}, str(out / 'forward.safetensors'), metadata={'report': json.dumps(rep)})
    print(f"{out}: {', '.join(sorted(f.name for f in out.iterdir()))}")


if __name__ == '__main__': main()
