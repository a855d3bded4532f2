# Profile the demo step in a few variants, one after the other, alone on the GPU (issue 34): each variant is a short
# run of README's first command (STEPS steps on the first RECORDS conversations, no tau) with --profile-steps PROF, the
# compile cache shared. Brings back $OUT/prof.tar.gz: per variant its log, metrics.jsonl and profile/ (summary.txt:
# kernel time by phase and the top kernels; headline.json; syncs.txt; gaps.txt: where the GPU waited, tools/h200/trace_gaps.py;
# trace.json.gz for Perfetto, about 2.5 MB each).
#   source tools/h200/setup.sh > /tmp/setup.log 2>&1
#   VARIANTS="default:|sdpa:--attention sdpa|c512:--chunk-blocks 512" bash tools/h200/profile_step.sh
# A variant is NAME:FLAGS (FLAGS after the recipe's, so they win); variants are separated by '|'. FLAGS that start
# with @DIR (a folder under the repository root) run the dflash_nb package found in DIR instead of the tree's: the code
# of another commit side by side with today's in one call, e.g. the step as issue 34 found it (stage.sh's OLD=6952f26
# puts that commit's package in .demo/d/old, which call D carries):
#   STEPS=250 PROF=230:6 HARD=200 VARIANTS="issue34:@.demo/d/old|today:" bash tools/h200/profile_step.sh
# Each line of progress goes to $OUT/progress.txt as it happens: print it, do not pipe this script through tail (a call killed at its limit
# returns no output from a pipe that never ended). HARD bounds each variant (SIGKILL 20 s after the SIGTERM).
# DRY=1 DRY_TARGET=FOLDER: the same on a CPU with a tiny target (a check of this script, not a measurement).
set -u
O=${OUT:-/tmp/prof_out}; W=${WORK:-$HOME/prof}; rm -rf "$W"; mkdir -p "$W/compile_cache" "$O"
STEPS=${STEPS:-60}; PROF=${PROF:-40:8}; EXTRA=""
[ -n "${DRY:-}" ] && { STEPS=8; PROF=4:2; EXTRA="--target $DRY_TARGET --target-devices cpu --drafter-devices cpu --max-tokens 1024 --num-anchors 16"; }
IFS='|' read -ra VS <<< "${VARIANTS:-default:}"
ROOT=$PWD
for v in "${VS[@]}"; do
  name=${v%%:*}; flags=${v#*:}; d=$W/$name; mkdir -p "$d"; ln -s "$W/compile_cache" "$d/compile_cache"
  code=$ROOT   # FLAGS starting with @DIR: that variant runs the dflash_nb package in DIR (another commit's, from `git archive`)
  case $flags in @*) code=${flags%% *}; code=$ROOT/${code#@}; case $flags in *' '*) flags=${flags#* } ;; *) flags="" ;; esac
    [ -d "$code/dflash_nb" ] || { echo "== $name: no dflash_nb package in $code" | tee -a "$O/progress.txt"; continue; }
    [ -e "$code/data_samples" ] || ln -s "$ROOT/data_samples" "$code/data_samples" ;; esac
  t0=$(date +%s)
  # shellcheck disable=SC2086
  (cd "$code" && timeout -k 20 "${HARD:-300}" python3 -m dflash_nb.train --run-dir "$d" --max-steps "$STEPS" --time-limit-min 0 --heldout '' \
    --save-every 100000 --profile-steps "$PROF" --max-records "${RECORDS:-8000}" $EXTRA $flags) > "$W/$name.log" 2>&1
  rc=$?; echo "== $name (${flags:-defaults}): rc=$rc in $(( $(date +%s) - t0 )) s" | tee -a "$O/progress.txt"
  mkdir -p "$W/out/$name"; cp "$W/$name.log" "$d/metrics.jsonl" "$W/out/$name/" 2>/dev/null
  cp "$d"/profile/summary.txt "$d"/profile/headline.json "$d"/profile/syncs.txt "$W/out/$name/" 2>/dev/null
  [ -f "$d/profile/trace.json" ] && gzip -c "$d/profile/trace.json" > "$W/out/$name/trace.json.gz" && \
    python3 "$ROOT/tools/h200/trace_gaps.py" "$d/profile/trace.json" --top 12 > "$W/out/$name/gaps.txt" 2>&1   # where the GPU waited
  head -2 "$d/profile/summary.txt" 2>/dev/null || tail -5 "$W/$name.log"
  grep -a '^done' "$W/$name.log" | tail -1
  tar czf "$O/prof.tar.gz" -C "$W/out" .     # after every variant: a call cut short still brings back the variants done
done
ls -l "$O/prof.tar.gz"
