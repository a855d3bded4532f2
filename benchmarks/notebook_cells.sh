#!/usr/bin/env bash
# The flagged benchmark cells of a notebook, run as a user would, their outputs kept.
#   bash benchmarks/notebook_cells.sh --out DIR --cells ID,ID,... [NOTEBOOK]     (default NOTEBOOK: nbs/08_bench.ipynb)
# Runs every unflagged cell of NOTEBOOK and the flagged ones named (tools/run_notebook.py --cells), with OUT=DIR in the
# environment (the cells that write logs and JSON put them there); the notebook with its outputs is DIR/NOTEBOOK's
# name, its console DIR/cells.log, and DIR/provenance.json says what ran, on what hardware and software, and when.
# The cell ids of each benchmark are in 08_bench's "Current figures", e.g. the demo step with and without --async-step
# and the 8B-shaped step: --cells a34b0002,a34b0004,a34b0006,a34b0007,a34b0009,a34b000b,a34b0012,a34b0013,a34b0014
# Another notebook's cells: DSpark's step at the 8B drafter's shape beside DFlash's, --cells ds8b0008 nbs/03e_dspark.ipynb
# On a CPU the cells that have a dry run (they say so) run it: a check of the cells, not a measurement.
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGV="$*"; nb=nbs/08_bench.ipynb
while [ $# -gt 0 ]; do case $1 in
  -h|--help) usage; exit 0 ;; --out) OUT=$2; shift 2 ;; --cells) CELLS=$2; shift 2 ;; *) nb=$1; shift ;; esac; done
[ -n "${OUT:-}" ] && [ -n "${CELLS:-}" ] || { echo "--out DIR and --cells IDS are needed (--help)"; exit 2; }
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); export OUT
python3 "$here/provenance.py" "$OUT" -- bash benchmarks/notebook_cells.sh $ARGV > /dev/null
python3 "$here/../tools/run_notebook.py" "$nb" --cells "$CELLS" --out "$OUT/$(basename "$nb")" 2>&1 | tee "$OUT/cells.log"
exit "${PIPESTATUS[0]}"
