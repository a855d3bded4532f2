#!/usr/bin/env bash
# The fit check: does a demo run's drafter accept as much on prompts it trained on as on held-out ones?
#   bash benchmarks/fit_check.sh --out DIR RUN [N]     # RUN: a finished run folder (RUN/export/final), e.g. one of
#                                                      # benchmarks/demo_tau.py's; N prompts of each set (default 100)
# One dflash_nb_bench call measures the export on N training prompts (user turns of the first answer file's first
# 2,000 conversations; the bench picks N with z-lab's seeded shuffle) and N held-out ones, side by side, greedy, 128
# new tokens as the training's own tau, no baseline (the bench's protocol is z-lab's, the training's tau ours: compare
# the two sets here with each other, not with the training's figure). Training answers are the target's greedy
# answers, so on a training prompt the target says what the drafter was taught. Much higher tau there than held out
# (0.3 pooled or more): the drafter memorises (more data or fewer epochs would pay); about the same: it underfits (more
# steps or capacity would pay). Results in DIR: bench.json (the record nbs/records/fit_check/ keeps), table.md,
# bench.log, provenance.json; one line per set at the end. About a minute on an H200.
# BENCH_FLAGS: more flags for dflash_nb_bench (e.g. "--devices cpu --max-new-tokens 8" for a check on a CPU).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGV="$*"; POS=()
while [ $# -gt 0 ]; do case $1 in
  -h|--help) usage; exit 0 ;; --out) OUT=$2; shift 2 ;; *) POS+=("$1"); shift ;; esac; done
[ -n "${OUT:-}" ] && [ ${#POS[@]} -ge 1 ] || { echo "usage: bash benchmarks/fit_check.sh --out DIR RUN [N] (--help)"; exit 2; }
run=${POS[0]}; n=${POS[1]:-100}; out=$OUT; mkdir -p "$out"
python3 "$here/provenance.py" "$out" -- bash benchmarks/fit_check.sh $ARGV > /dev/null
python3 - "$out/train_prompts.jsonl" <<'EOF'
import gzip, sys
with gzip.open('data_samples/chitchat_train_greedy.jsonl.gz', 'rt') as f, open(sys.argv[1], 'w') as o:
    for i, line in zip(range(2000), f): o.write(line)
EOF
# shellcheck disable=SC2086
python3 -m dflash_nb.bench --drafter "$run/export/final" --sets "$out/train_prompts.jsonl,data_samples/chitchat_heldout.jsonl.gz" \
  --limit "$n" --max-new-tokens 128 --no-baseline --no-progress --out "$out" ${BENCH_FLAGS:-} > "$out/bench.log" 2>&1 \
  || { tail -20 "$out/bench.log"; exit 1; }
python3 - "$out/bench.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
for s in b['sets']:
    r = next(iter(s['results'].values()))
    print(f"{s['name']:>22}: tau {r['tau_pooled']:.2f} pooled, {r['tau']:.2f} per-prompt mean, {r['responses']} prompts")
EOF
