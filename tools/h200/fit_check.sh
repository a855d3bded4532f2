# Does a demo run's drafter accept as much on prompts it trained on as on held-out ones? (issue 34: tau 3.40 pooled on
# held-out prompts against an accept_len of about 4.0 over the last training steps, after 6.7 epochs of the data.)
#   bash tools/h200/fit_check.sh RUN [N]     # RUN: a finished run folder (RUN/export/final), e.g. $HOME/seed0
# One dflash_nb_bench call measures the export on N training prompts (user turns of the first answer file's first
# 2,000 conversations; the bench picks N with z-lab's seeded shuffle) and N held-out ones, side by side, greedy, 128
# new tokens as the training's own tau, no baseline (the bench's protocol is z-lab's, the training's tau ours: compare
# the two sets here with each other, not with the training's figure). Training answers are the target's greedy answers, so on a
# training prompt the target says what the drafter was taught. Much higher tau there than held out: the drafter
# memorises (more data or fewer epochs would pay); about the same: it underfits (more steps or capacity would pay).
# Results in $OUT/fit_check (bench.json, table.md); one line per set at the end. About a minute on an H200.
set -eu
run=${1:?usage: bash tools/h200/fit_check.sh RUN [N]}; n=${2:-100}
out=${OUT:-/tmp}/fit_check; mkdir -p "$out"
python3 - "$out/train_prompts.jsonl" <<'EOF'
import gzip, sys
with gzip.open('data_samples/chitchat_train_greedy.jsonl.gz', 'rt') as f, open(sys.argv[1], 'w') as o:
    for i, line in zip(range(2000), f): o.write(line)
EOF
dflash_nb_bench --drafter "$run/export/final" --sets "$out/train_prompts.jsonl,data_samples/chitchat_heldout.jsonl.gz" \
  --limit "$n" --max-new-tokens 128 --no-baseline --no-progress --out "$out" ${BENCH_FLAGS:-} > "$out/bench.log" 2>&1 \
  || { tail -20 "$out/bench.log"; exit 1; }
python3 - "$out/bench.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
for s in b['sets']:
    r = next(iter(s['results'].values()))
    print(f"{s['name']:>22}: tau {r['tau_pooled']:.2f} pooled, {r['tau']:.2f} per-prompt mean, {r['responses']} prompts")
EOF
