"""SpecForge's DFlash (`DFlashDraftModel`, its nested `dflash_config`) on a tiny seeded model, for the layout tests of
nbs/03d_family.ipynb (run with a python that has specforge, in its own venv).

    /tmp/sfvenv/bin/python tools/specforge_dflash_fixture.py data_samples/specforge_dflash_0.2.0

Pinned: specforge==0.2.0 (other versions refused unless --any-version; versions recorded). The venv: `python3 -m venv
/tmp/sfvenv && /tmp/sfvenv/bin/pip install --no-deps specforge==0.2.0`, with torch and transformers on its path (a `.pth`
file naming the site-packages of the venv of tools/dspark_fixture.py: torch 2.13.0, transformers 5.25.0).

What it writes into OUT (a folder):
- `config.json`, `model.safetensors`: SpecForge's own `save_pretrained` of a tiny seeded `DFlashDraftModel` whose config
  is what SpecForge's trainer generates for a target (`populate_dflash_generated_config`: `block_size`,
  `num_target_layers`, `layer_types`, the window keys, `dflash_config` {target_layer_ids}; then its model builder's
  `dflash_config.mask_token_id`), at hidden 32, one sliding (window 6) and one full layer, vocab 64, block 4, taps [1, 3]
  of 5 target layers; linear weights N(0, 0.2), norms 1 + N(0, 0.1): a released drafter in its layout (no embedding or
  LM head: the target's);
- `forward.safetensors` (float32; a JSON report in its metadata under 'report'):
  - `w/embed_tokens.weight`, `w/lm_head.weight`: a target's embedding and head (random);
  - `in/input_ids`, `in/hidden_states`: a 14-token sequence and its concatenated taps; `in/anchors`: three anchors;
  - `out/hidden`: its training forward on them (`create_dflash_sdpa_mask`, the sliding layers' own mask, the position
    ids and noise blocks `[anchor token, MASK x 3]` its `DFlashModel` builds; eager attention); `out/logits`: the head on it.
"""
import argparse, json, shlex, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_fixture import start, seeded_save   # noqa: E402

PINNED = '0.2.0'
REPO = Path(__file__).resolve().parent.parent


def tiny_config():
    from transformers import Qwen3Config
    c = Qwen3Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    head_dim=8, max_position_embeddings=128, rms_norm_eps=1e-6, rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0},
                    layer_types=['sliding_attention', 'full_attention'], use_sliding_window=True, sliding_window=6, tie_word_embeddings=False)
    c.architectures, c.block_size, c.num_target_layers = ['DFlashDraftModel'], 4, 5
    c.dflash_config = {'target_layer_ids': [1, 3], 'mask_token_id': 63}       # SpecForge's generated config, its builder's mask id
    c._attn_implementation = 'eager'
    return c


def main(argv=None):
    a, out, rep = start('specforge_dflash_fixture.py', 'specforge', PINNED, argv, __doc__)
    import torch, transformers
    from safetensors.torch import save_file
    from specforge.modeling.draft.dflash import DFlashDraftModel
    from specforge.algorithms.common.dflash_family_model import create_dflash_sdpa_mask
    model = DFlashDraftModel(tiny_config()).eval()
    g = seeded_save(model, out)
    rep['saved_files'] = sorted(f.name for f in out.iterdir())
    V, H, B, S, M = 64, 32, 4, 14, 63
    T = {'w/embed_tokens.weight': torch.randn(V, H, generator=g), 'w/lm_head.weight': torch.randn(V, H, generator=g) * 0.3}
    ids, anc = torch.randint(0, V - 1, (1, S), generator=g), torch.tensor([[4, 5, 8]])
    T.update({'in/input_ids': ids, 'in/hidden_states': torch.randn(1, S, 2 * H, generator=g), 'in/anchors': anc})
    blk = torch.full((1, 3 * B), M); blk[0, ::B] = ids[0, anc[0]]                         # its _create_noise_embed
    pos = torch.cat([torch.arange(S)[None], (anc[..., None] + torch.arange(B)).view(1, -1)], 1)   # its _create_position_ids
    keep, kw = torch.ones_like(anc, dtype=torch.bool), dict(S=S, block_size=B, device='cpu')
    mask = {'full_attention': create_dflash_sdpa_mask(anc, keep, **kw), 'sliding_attention': create_dflash_sdpa_mask(anc, keep, **kw, sliding_window=6)}
    with torch.no_grad():
        hid = model(position_ids=pos, noise_embedding=T['w/embed_tokens.weight'][blk], target_hidden=T['in/hidden_states'], attention_mask=mask)
    T['out/hidden'], T['out/logits'] = hid, hid @ T['w/lm_head.weight'].T

    from specforge.modeling.auto import AutoDraftModel
    sys.path.insert(0, str(REPO))                                       # our export of the same weights, z-lab's layout
    from dflash_nb.families import load_drafter
    with tempfile.TemporaryDirectory() as tmp:
        ours = load_drafter(out); ours.save_pretrained(tmp, dtype=torch.float32)
        theirs, info = AutoDraftModel.from_pretrained(tmp, output_loading_info=True)
        theirs.config._attn_implementation = 'eager'; theirs.eval()
        with torch.no_grad():
            fo = theirs(position_ids=pos, noise_embedding=T['w/embed_tokens.weight'][blk], target_hidden=T['in/hidden_states'], attention_mask=mask)
        tsd = theirs.state_dict()
        rep['load_ours'] = {'class': type(theirs).__name__, 'missing_keys': sorted(info['missing_keys']),
                            'unexpected_keys': sorted(set(info['unexpected_keys']) | set(map(str, info.get('mismatched_keys', [])))),
                            'read': {'block_size': theirs.block_size, 'mask_token_id': theirs.mask_token_id, 'target_layer_ids': list(theirs.target_layer_ids),
                                     'layer_types': list(theirs.layer_types), 'sliding_window': theirs.sliding_window},
                            'config': json.loads((Path(tmp) / 'config.json').read_text()),
                            'max_abs_diff': max(float((tsd[k] - v).abs().max()) for k, v in ours.state_dict().items()),
                            'forward_max_abs_diff': float((fo - hid).abs().max())}
    save_file({k: v.contiguous() for k, v in T.items()}, str(out / 'forward.safetensors'), metadata={'report': json.dumps(rep)})
    lo = rep['load_ours']
    print(f"{out}: {', '.join(sorted(f.name for f in out.iterdir()))}; its load of our export: {lo['class']}, missing {lo['missing_keys']}, "
          f"unexpected {lo['unexpected_keys']}, read {lo['read']}, forward max |diff| {lo['forward_max_abs_diff']}")


if __name__ == '__main__': main()
