"""vLLM speculators' DFlash on a tiny seeded model, for the layout tests of nbs/03d_family.ipynb (run with a python that
has speculators, in its own venv).

    /tmp/specvenv/bin/python tools/speculators_fixture.py data_samples/speculators_dflash_0.9.0

Pinned: speculators==0.9.0 (other versions are refused unless --any-version is given; the versions are recorded). The
venv: `python3 -m venv /tmp/specvenv && /tmp/specvenv/bin/pip install torch==2.13.0 && /tmp/specvenv/bin/pip install
--no-deps speculators==0.9.0 && /tmp/specvenv/bin/pip install "transformers<=5.19" safetensors pydantic openai datasets
hs-connectors loguru` (the last four: what `import speculators.models.dflash` and its `from_pretrained` ask for).

What it writes into OUT (a folder):
- `config.json`, `model.safetensors`: speculators' own `DFlashDraftModel.save_pretrained` (less the `config.py` it copies
  beside them, the source of its config class for remote code: not ours to ship, and no loader here reads it; the files
  it wrote are listed in the report as `saved_files`) of a tiny seeded DFlash
  speculator (hidden 32, 2 layers: one sliding (window 64, longer than the inputs) and one full, vocab 64, block 4,
  `aux_hidden_state_layer_ids` [1, 3], mask id 63, the full vocabulary; linear weights N(0, 0.2), norms 1 + N(0, 0.1));
  a released drafter in speculators' layout, as `--init-from` and `load_drafter` read it;
- `forward.safetensors`: their forward on fixed inputs (float32), with a JSON report in its metadata under 'report':
  - `in/*`: input ids, the concatenated aux hidden states, the verifier's last hidden states, the loss mask;
  - `w/embed_tokens.weight`, `w/lm_head.weight`: the verifier copies their forward uses (random here: there is no
    verifier; speculators does not save them for a full-vocabulary drafter);
  - `out/anchors`, `out/hidden`, `out/logits`: `DFlashDraftModel._backbone_forward` (the body of their training
    forward, before the loss) with its own anchor sampling after `torch.manual_seed(1234)`: the anchors drawn, the
    block hidden states after the final norm, and their logits. Their attention runs as
    `_attn_implementation='eager'` (their float-mask twin of the flex mask: the same rule, no compile on a CPU);
  - report `load`: `DFlashDraftModel.from_pretrained(OUT)` (their loader): the largest difference to the saved weights;
  - report `reduced_vocab`: the `config.json` keys and the tensor names/shapes their `save_pretrained` writes for the
    same model with a reduced draft vocabulary (16 of 64 tokens, `t2d`/`d2t` set);
  - report `load_ours` (with the repo on sys.path, which this script puts there): an export of *our* `DFlashDrafter` with
    the same weights (read from OUT by our `read_release`), rewritten in the speculators layout by our `write_layout`,
    loaded by their `from_pretrained(..., output_loading_info=True)`: missing keys (beside the verifier copies they never
    save, listed apart), unexpected or mismatched keys, our export's `config.json`, the largest difference to our
    weights, and the largest difference of their forward on it to the one above.
"""
import argparse, json, os, shlex, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_fixture import seeded_fill   # noqa: E402

PINNED = '0.9.0'
REPO = Path(__file__).resolve().parent.parent


def tiny_config(draft_vocab=64):
    "The speculators config of the tiny DFlash speculator (eager attention: their CPU path)."
    from transformers import Qwen3Config
    from speculators.config import SpeculatorsConfig, VerifierConfig
    from speculators.models.dflash import DFlashSpeculatorConfig
    from speculators.proposals.greedy import GreedyTokenProposalConfig
    tc = Qwen3Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=8, max_position_embeddings=128, rms_norm_eps=1e-6,
                     rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0}, use_sliding_window=True,
                     sliding_window=64, layer_types=['sliding_attention', 'full_attention'])
    tc._attn_implementation = 'eager'
    sc = SpeculatorsConfig(algorithm='dflash', proposal_methods=[GreedyTokenProposalConfig(speculative_tokens=3)],
                           default_proposal_method='greedy', verifier=VerifierConfig(name_or_path=None, architectures=['Qwen3ForCausalLM']))
    return DFlashSpeculatorConfig(transformer_layer_config=tc, draft_vocab_size=draft_vocab, block_size=4,
                                  aux_hidden_state_layer_ids=[1, 3], mask_token_id=63, speculators_config=sc)


def body(sd):
    "The weights speculators saves for a full-vocabulary DFlash drafter (the verifier copies and vocab maps left out)."
    return {k: v for k, v in sd.items() if not k.startswith(('embed_tokens.', 'lm_head.', 'verifier_')) and k not in ('t2d', 'd2t')}


def run_forward(model, inputs, torch):
    "Their `_backbone_forward` (anchors drawn after manual_seed(1234)): anchors, hidden, logits."
    torch.manual_seed(1234)
    with torch.no_grad():
        hidden, logits, _, _, idx = model._backbone_forward(inputs['in/hidden_states'], inputs['in/input_ids'], inputs['in/loss_mask'],
                                                            inputs['in/verifier_last_hidden_states'], torch.zeros_like(inputs['in/input_ids']),
                                                            max_anchors=3)
    return {'out/anchors': idx[::model.block_size].contiguous(), 'out/hidden': hidden.contiguous(), 'out/logits': logits.contiguous()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out', help='folder to write (config.json, model.safetensors, forward.safetensors)')
    ap.add_argument('--any-version', action='store_true', help=f'run on a speculators other than {PINNED} (recorded)')
    a = ap.parse_args(argv)
    from importlib.metadata import version
    import torch, transformers
    from safetensors.torch import load_file, save_file
    from speculators.models.dflash import DFlashDraftModel
    if version('speculators') != PINNED and not a.any_version: sys.exit(f"speculators {version('speculators')}: this fixture is pinned to {PINNED} (--any-version to record another)")
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    rep = {'speculators': version('speculators'), 'torch': torch.__version__, 'transformers': transformers.__version__,
           'python': sys.version.split()[0], 'command': ' '.join(shlex.quote(x) for x in [Path(sys.executable).name, *sys.argv])}

    model = DFlashDraftModel(tiny_config()).eval(); seeded_fill(model)
    model.save_pretrained(str(out))
    rep['saved_files'] = sorted(f.name for f in out.iterdir())
    (out / 'config.py').unlink(missing_ok=True)                        # their config class's source, copied for remote code: not ours to ship
    saved = load_file(str(out / 'model.safetensors'))
    assert set(saved) == set(body(model.state_dict())), sorted(set(saved) ^ set(body(model.state_dict())))

    g = torch.Generator().manual_seed(1)
    S = 14
    T = {'in/input_ids': torch.randint(0, 63, (1, S), generator=g), 'in/hidden_states': torch.randn(1, S, 64, generator=g),
         'in/verifier_last_hidden_states': torch.randn(1, S, 32, generator=g), 'in/loss_mask': torch.ones(1, S, dtype=torch.long),
         'w/embed_tokens.weight': model.embed_tokens.weight.detach().clone(), 'w/lm_head.weight': model.lm_head.weight.detach().clone()}
    T.update(run_forward(model, T, torch))

    back = DFlashDraftModel.from_pretrained(str(out)).eval()           # their loader (flex attention by default; not run here)
    bsd = back.state_dict()
    rep['load'] = {'max_abs_diff': max(float((bsd[k] - v).abs().max()) for k, v in saved.items()),
                   'attn_implementation': back.config.transformer_layer_config._attn_implementation}

    with tempfile.TemporaryDirectory() as tmp:                          # the same speculator with a reduced draft vocabulary
        red = DFlashDraftModel(tiny_config(draft_vocab=16)); seeded_fill(red)
        sel = torch.arange(0, 64, 4)
        t2d = torch.zeros(64, dtype=torch.bool); t2d[sel] = True
        red.load_vocab_mappings(t2d, sel - torch.arange(16))
        red.save_pretrained(f'{tmp}/red')
        rc = json.loads(Path(f'{tmp}/red/config.json').read_text())
        rep['reduced_vocab'] = {'config': {k: rc[k] for k in ('draft_vocab_size',)} | {'vocab_size': rc['transformer_layer_config']['vocab_size']},
                                'tensors': {k: list(v.shape) for k, v in sorted(load_file(f'{tmp}/red/model.safetensors').items())}}

        sys.path.insert(0, str(REPO))                                   # our export of the same weights, in their layout
        from dflash_nb.drafter import DFlashConfig, DFlashDrafter
        from dflash_nb.families import read_release, write_layout
        _, _, d, t = read_release(out)
        ours = DFlashDrafter(DFlashConfig.from_hf_dict(d)); ours.load_state_dict(t)
        ours.save_pretrained(f'{tmp}/ours', dtype=torch.float32)
        write_layout(f'{tmp}/ours', 'speculators')
        theirs, info = DFlashDraftModel.from_pretrained(f'{tmp}/ours', output_loading_info=True)   # (their verifier reload is skipped so: none named)
        theirs.eval()
        expected = set(theirs._keys_to_ignore_on_load_missing)           # the verifier copies: reloaded from the verifier, never saved
        missing = sorted(set(info['missing_keys']) - expected)
        copies = sorted(set(info['missing_keys']) & expected)
        unexpected = sorted(set(info['unexpected_keys']) | set(map(str, info.get('mismatched_keys', []))))
        tsd = theirs.state_dict()
        theirs.config.transformer_layer_config._attn_implementation = 'eager'   # their CPU path, as above
        theirs._create_mask_fn = model._create_mask_fn
        with torch.no_grad():
            for k in ('embed_tokens', 'lm_head', 'verifier_lm_head', 'verifier_norm'): getattr(theirs, k).load_state_dict(getattr(model, k).state_dict())
        fo = run_forward(theirs, T, torch)
        rep['load_ours'] = {'missing_keys': missing, 'unexpected_keys': unexpected, 'verifier_copies_missing': copies,
                            'config': json.loads(Path(f'{tmp}/ours/config.json').read_text()),
                            'max_abs_diff': max(float((tsd[k] - v).abs().max()) for k, v in ours.state_dict().items()),
                            'forward_max_abs_diff': max(float((fo[k].float() - T[k].float()).abs().max()) for k in fo)}

    save_file({k: v.contiguous() for k, v in T.items()}, str(out / 'forward.safetensors'), metadata={'report': json.dumps(rep)})
    size = sum(f.stat().st_size for f in out.iterdir())
    print(f"{out}: {', '.join(sorted(f.name for f in out.iterdir()))} ({size / 1e3:.0f} kB); their load of our export: missing "
          f"{rep['load_ours']['missing_keys']}, unexpected {rep['load_ours']['unexpected_keys']}, forward max |diff| {rep['load_ours']['forward_max_abs_diff']}")


if __name__ == '__main__': main()
