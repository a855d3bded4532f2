"""Synthetic conversations whose token lengths follow the reference run's distribution (data_samples/reference_lengths.npy),
for throughput runs on random-weight targets: python tools/h200/synthetic_data.py OUT.jsonl [N] [MAX_LEN]."""
import json, sys
import numpy as np
from dflash_nb.buckets import load_reference_lengths

WORDS = ("the model reads every token of the context and drafts a block of sixteen tokens that the target then "
         "verifies in one forward pass so that many tokens are accepted at once when the drafter is good").split()

def main(out, n=3000, max_len=3072, seed=0):
    rng = np.random.default_rng(seed)
    L = np.minimum(load_reference_lengths()[:n].astype(int), max_len)
    with open(out, 'w') as f:
        for l in L:  # 30 % prompt, 70 % answer
            words = rng.choice(WORDS, size=max(8, int(l / 2.5)))  # ~2.5 tokens per word with that tokenizer
            k = max(4, int(0.3 * len(words)))
            f.write(json.dumps({'messages': [{'role': 'user', 'content': ' '.join(words[:k])},
                                             {'role': 'assistant', 'content': ' '.join(words[k:])}]}) + '\n')
    print(f"wrote {n} conversations to {out}")

if __name__ == '__main__': main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
