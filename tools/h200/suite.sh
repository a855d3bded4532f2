# The GPU test suite on one GPU machine, within one call (source tools/h200/setup.sh first; the wheels of
# tools/h200/gpu-wheels.sh must have come along in .whl/):
#   bash tools/h200/suite.sh test [SECS]   # nbdev_test --flags gpu, every notebook its own process, all at once; each
#                                          # notebook's time and status in $OUT/suite.txt, the failures' logs in $OUT/suite.tar.gz
#   bash tools/h200/suite.sh cells [SECS]  # the same notebooks through tools/run_notebook.py: the time of every cell
#                                          # ("cell ID done at T s"), to find where the time goes
# SECS (default 540) bounds each notebook; a notebook still running then counts as failed ("timeout").
# NBS (default: every notebook) picks notebooks by a regular expression of their names; FLAGS (default "gpu").
# Each notebook gets cores / notebooks CPU threads (at least 1; THREADS overrides): all run at once, and 13 notebooks
# of 16 threads each on 16 cores made the unflagged CPU cells crawl (03's compiled mask on CPU 138 s, 04's preflight 135 s).
set -u
mode=${1:-test}; secs=${2:-540}; flags=${FLAGS:-gpu}
out=${OUT:-/tmp/suite_out}; logs=$(mktemp -d); mkdir -p "$out"
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
    *) echo "usage: bash tools/h200/suite.sh test|cells [SECS]"; exit 2 ;;
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
