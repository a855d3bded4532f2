#!/usr/bin/env bash
# The demo step in variants side by side, one after the other, alone on one GPU.
#   bash benchmarks/step_profile.sh --out DIR [--steps N] [--prof START:COUNT] [--variants "NAME:FLAGS|NAME:FLAGS"]
# Each variant is a short run of README's first command (python3 -m dflash_nb.train: STEPS steps on the first RECORDS
# conversations, no tau) with --profile-steps PROF, the compile cache shared; FLAGS come after the recipe's, so they win.
# Per variant, in DIR/NAME/: its console log (run.txt), metrics.jsonl (a line per step: the figures 08_bench compares)
# and the profile: summary.txt (kernel time by phase, the top kernels), headline.json, syncs.txt, gaps.txt (where the
# GPU waited: benchmarks/trace_gaps.py) and trace.json.gz (for Perfetto, about 2.5 MB). DIR/progress.txt grows a line
# as each variant ends; DIR/provenance.json says what ran, on what hardware and software, and when.
# Examples (the commands of 08_bench's section "The demo step, variants side by side"):
#   bash benchmarks/step_profile.sh --out /tmp/prof --variants "default:|sdpa:--attention sdpa|c512:--chunk-blocks 512"
#   bash benchmarks/step_profile.sh --out /tmp/prof --steps 250 --prof 230:6 --variants "before:|after:--target-graphs"
# FLAGS that start with @DIR (a folder) run the dflash_nb package found in DIR instead of the installed one: another
# commit's code beside today's, e.g. `mkdir -p /tmp/old && git archive 6952f26 dflash_nb | tar x -C /tmp/old`, then
#   bash benchmarks/step_profile.sh --out /tmp/prof --steps 250 --prof 230:6 --variants "old:@/tmp/old|today:"
# Options (or the environment variables of the same name): --steps STEPS (default 60), --prof PROF (40:8), --records
# RECORDS (8000), --hard HARD (seconds a variant may take, 300; SIGKILL 20 s after the SIGTERM), --variants VARIANTS
# (default "default:"). --dry (or DRY=1): the same on a CPU with a tiny random target, 8 steps (a check of the script).
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGS="$*"
while [ $# -gt 0 ]; do case $1 in
  -h|--help) usage; exit 0 ;;
  --out) OUT=$2; shift 2 ;; --steps) STEPS=$2; shift 2 ;; --prof) PROF=$2; shift 2 ;; --records) RECORDS=$2; shift 2 ;;
  --hard) HARD=$2; shift 2 ;; --variants) VARIANTS=$2; shift 2 ;; --dry) DRY=1; shift ;;
  *) echo "unknown argument $1 (--help)"; exit 2 ;; esac; done
[ -n "${OUT:-}" ] || { echo "--out DIR is needed (--help)"; exit 2; }
O=$(mkdir -p "$OUT" && cd "$OUT" && pwd); W=$O/work; rm -rf "$W"; mkdir -p "$W/compile_cache"; : > "$O/progress.txt"
python3 "$here/provenance.py" "$O" -- bash benchmarks/step_profile.sh $ARGS > /dev/null
STEPS=${STEPS:-60}; PROF=${PROF:-40:8}; EXTRA=""
if [ -n "${DRY:-}" ]; then
  STEPS=8; PROF=4:2
  python3 -c "from dflash_nb.targets import make_tiny_target; make_tiny_target('$W/tiny', 'qwen3', num_layers=6)"
  EXTRA="--target $W/tiny --target-devices cpu --drafter-devices cpu --max-tokens 1024 --num-anchors 16"
fi
IFS='|' read -ra VS <<< "${VARIANTS:-default:}"
ROOT=$PWD
for v in "${VS[@]}"; do
  name=${v%%:*}; flags=${v#*:}; d=$W/$name; mkdir -p "$d" "$O/$name"; ln -s "$W/compile_cache" "$d/compile_cache"
  code=$ROOT; pp=${PYTHONPATH:-}
  case $flags in @*) code=${flags%% *}; code=${code#@}; case $flags in *' '*) flags=${flags#* } ;; *) flags="" ;; esac
    [ -d "$code/dflash_nb" ] || { echo "== $name: no dflash_nb package in $code" | tee -a "$O/progress.txt"; continue; }
    code=$(cd "$code" && pwd); pp=$code${PYTHONPATH:+:$PYTHONPATH}
    [ -e "$code/data_samples" ] || ln -s "$ROOT/data_samples" "$code/data_samples" ;; esac
  t0=$(date +%s)
  # shellcheck disable=SC2086
  (cd "$code" && PYTHONPATH=$pp timeout -k 20 "${HARD:-300}" python3 -m dflash_nb.train --run-dir "$d" --max-steps "$STEPS" --time-limit-min 0 \
    --heldout '' --save-every 100000 --profile-steps "$PROF" --max-records "${RECORDS:-8000}" $EXTRA $flags) > "$O/$name/run.txt" 2>&1
  rc=$?; echo "== $name (${flags:-defaults}): rc=$rc in $(( $(date +%s) - t0 )) s" | tee -a "$O/progress.txt"
  cp "$d/metrics.jsonl" "$O/$name/" 2>/dev/null
  cp "$d"/profile/summary.txt "$d"/profile/headline.json "$d"/profile/syncs.txt "$O/$name/" 2>/dev/null
  [ -f "$d/profile/trace.json" ] && gzip -c "$d/profile/trace.json" > "$O/$name/trace.json.gz" && \
    python3 "$here/trace_gaps.py" "$d/profile/trace.json" --top 12 > "$O/$name/gaps.txt" 2>&1
  head -2 "$d/profile/summary.txt" 2>/dev/null || tail -5 "$O/$name/run.txt"
  grep -a '^done' "$O/$name/run.txt" | tail -1
done
rm -rf "$W"
