"""vLLM speculators' DSpark (`speculators_model_type` 'dspark') on a tiny seeded model, for the layout tests of
nbs/03e_dspark.ipynb (run with the python of tools/speculators_fixture.py: speculators==0.9.0 in its own venv).

    /tmp/specvenv/bin/python tools/speculators_dspark_fixture.py data_samples/speculators_dspark_0.9.0

What it writes into OUT (a folder):
- `config.json`, `model.safetensors`: speculators' own `DSparkDraftModel.save_pretrained` (less the `config.py` it copies
  beside them) of a tiny seeded DSpark speculator (hidden 32, 2 full layers, vocab 64, block 5,
  `aux_hidden_state_layer_ids` [1, 3], mask id 63, the full vocabulary, `sample_from_anchor` true: the anchor row drafts,
  as DeepSpec's; Markov rank 8, vanilla; a confidence head over [h; W1[p]]; linear weights N(0, 0.2), norms 1 + N(0, 0.1));
- `forward.safetensors` (float32; a JSON report in its metadata under 'report'):
  - `in/*`: input ids, the concatenated aux hidden states, the verifier's last hidden states, the loss mask;
  - `w/embed_tokens.weight`, `w/lm_head.weight`: the verifier copies its forward uses (random: there is no verifier);
  - `out/anchors`, `out/hidden`: `_backbone_forward` (the body of its training forward) with its own anchor draw after
    `torch.manual_seed(1234)` (eager attention); `out/logits`: its logits plus the Markov `block_bias` of each block's
    tokens (with `sample_from_anchor`, row k's predecessor is the token at a + k), `out/confidence`: its confidence head
    on [h; W1[p]], as its `forward` computes both.
"""
import argparse, json, shlex, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_fixture import start, seeded_save   # noqa: E402

PINNED = '0.9.0'


def tiny_config():
    from transformers import Qwen3Config
    from speculators.config import SpeculatorsConfig, VerifierConfig
    from speculators.models.dspark import DSparkSpeculatorConfig
    from speculators.proposals.greedy import GreedyTokenProposalConfig
    tc = Qwen3Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                     head_dim=8, max_position_embeddings=128, rms_norm_eps=1e-6, rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0},
                     layer_types=['full_attention', 'full_attention'])
    tc._attn_implementation = 'eager'
    sc = SpeculatorsConfig(algorithm='dspark', proposal_methods=[GreedyTokenProposalConfig(speculative_tokens=5)],
                           default_proposal_method='greedy', verifier=VerifierConfig(name_or_path=None, architectures=['Qwen3ForCausalLM']))
    return DSparkSpeculatorConfig(transformer_layer_config=tc, draft_vocab_size=64, block_size=5, aux_hidden_state_layer_ids=[1, 3],
                                  mask_token_id=63, speculators_config=sc, sample_from_anchor=True, markov_rank=8)


def main(argv=None):
    a, out, rep = start('speculators_dspark_fixture.py', 'speculators', PINNED, argv, __doc__)
    import torch, transformers
    from safetensors.torch import load_file, save_file
    from speculators.models.dspark import DSparkDraftModel
    model = DSparkDraftModel(tiny_config()).eval()
    g = seeded_save(model, out)
    rep['saved_files'] = sorted(f.name for f in out.iterdir())
    (out / 'config.py').unlink(missing_ok=True)                         # their config class's source, for remote code: not ours to ship
    rep['saved_tensors'] = sorted(load_file(str(out / 'model.safetensors')))
    S = 14
    T = {'in/input_ids': torch.randint(0, 63, (1, S), generator=g), 'in/hidden_states': torch.randn(1, S, 64, generator=g),
         'in/verifier_last_hidden_states': torch.randn(1, S, 32, generator=g), 'in/loss_mask': torch.ones(1, S, dtype=torch.long),
         'w/embed_tokens.weight': model.embed_tokens.weight.detach().clone(), 'w/lm_head.weight': model.lm_head.weight.detach().clone()}
    torch.manual_seed(1234)
    with torch.no_grad():
        hid, logits, _, _, idx = model._backbone_forward(T['in/hidden_states'], T['in/input_ids'], T['in/loss_mask'], T['in/verifier_last_hidden_states'],
                                                         torch.zeros_like(T['in/input_ids']), max_anchors=3)
        prev = T['in/input_ids'][0, idx].view(3, 5)                     # sample_from_anchor: row k's predecessor is the token at a + k
        hb = hid.view(3, 5, -1)
        pe = model.markov_head.prev_embeddings(prev)
        T['out/logits'] = (logits.view(3, 5, -1) + model.markov_head.block_bias(prev_token_ids=prev, hidden_states=hb, prev_emb=pe)).contiguous()
        T['out/confidence'] = model.confidence_head(torch.cat([hb, pe.to(hb.dtype)], -1)).contiguous()
    T.update({'out/anchors': idx[::5].contiguous(), 'out/hidden': hid.contiguous()})
    save_file({k: v.contiguous() for k, v in T.items()}, str(out / 'forward.safetensors'), metadata={'report': json.dumps(rep)})
    print(f"{out}: {', '.join(sorted(f.name for f in out.iterdir()))}; saved {len(rep['saved_tensors'])} tensors")


if __name__ == '__main__': main()
