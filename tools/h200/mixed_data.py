"""Demo conversations with many tiny answers, for recompile checks: batches of few anchors (< 128 block queries).
  python3 tools/h200/mixed_data.py OUT.jsonl [N=800]
Takes the first N conversations of data_samples/demo_train.jsonl.gz and cuts every second answer to 1-4 words (seed 0);
with --max-tokens 4096, 4 of the 40 batches of an epoch then have 5-8 anchors."""
import json, random, sys
from dflash_nb.data import open_text
out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 800
random.seed(0)
rows = []
for i, line in enumerate(open_text('data_samples/demo_train.jsonl.gz').read().splitlines()[:n]):
    r = json.loads(line)
    if i % 2 == 0: r['messages'][-1]['content'] = ' '.join(r['messages'][-1]['content'].split()[:random.randint(1, 4)])
    rows.append(json.dumps(r))
open(out, 'w').write('\n'.join(rows) + '\n')
