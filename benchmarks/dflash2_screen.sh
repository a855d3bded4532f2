#!/usr/bin/env bash
# The DFlash2 screen on one GPU: the demo per arm and seed, all side by side under the same load and clock, then the rule.
#   bash benchmarks/dflash2_screen.sh --out DIR [--arms "dflash d2 ..."] [--seeds "0 1"] [--clock MIN]
#   bash benchmarks/dflash2_screen.sh --out DIR --decide      # apply the rule again to the runs in DIR
# What runs: README's first command (the demo: SmolLM2-135M-Instruct, the default data and GPU demo profile) once per
# arm and seed, all side by side on the one GPU, each for a CLOCK-minute clock (--time-limit-min, default 6), each
# ending with tau by real speculative decoding on the demo's 100 held-out prompts, both figures (pooled and per-prompt
# mean), and its median step time in summary.json. It takes CLOCK minutes plus about 5 (tokenizing, compiling, tau).
# DIR/runs/ARM_sSEED/ keeps each run's summary.json, config.json, metrics.jsonl and eval/; DIR/ARM_sSEED.log its console;
# DIR/pipeline.log the screen's progress; DIR/decision.json the rule's verdict; DIR/provenance.json what ran, on what
# hardware and software, and when. Arms (ARMS / --arms, default the first five):
#   dflash       --drafter dflash                      the reference
#   d2           --drafter dflash2                     the default objective: gold outside the top-C dropped, alpha 1 from
#                                                      the first step, the selector loss reaching the backbone
#   d2_swap      --drafter dflash2 --selector-gold swap             gold swapped in for the weakest candidate
#   d2_stopgrad  --drafter dflash2 --selector-stop-grad             the selector loss trains the selector only
#   d2_warm      --drafter dflash2 --selector-warmup 0.1 --selector-ramp 0.1   alpha 0 for the first tenth, then ramped
#   dpace        --drafter dflash --loss dpace         D-PACE's rescreen against dflash (not in the default ARMS)
#   dspark       --drafter dspark                      DSpark's screen against dflash (not in the default ARMS)
# SEEDS (default "0 1"): every arm with each seed. A demo run takes 16-31 GB of GPU memory (2026-12-02, an H200: six
# runs side by side ran two out of memory), so the script refuses more than MAXRUNS (default 4) runs at once: screen
# the arms in groups that share the clock and the load (e.g. ARMS="dflash d2 d2_swap d2_stopgrad" SEEDS=0, then the rest).
#
# The rule, fixed before the screen runs (also in nbs/08_bench.ipynb's DFlash2 section; tau = the pooled figure of the
# 'ours' protocol, each arm's mean over the seeds):
#   1. DFlash2 becomes the default drafter (--drafter dflash2) if d2's mean tau is at least 0.05 above dflash's and d2
#      is not below dflash on any seed; otherwise --drafter dflash stays the default. The clock is the same for every
#      arm, so a slower DFlash2 step is already paid for in fewer steps.
#   2. A selector variant (d2_swap, d2_stopgrad, d2_warm) becomes DFlash2's default objective if its mean tau is at
#      least 0.05 above d2's and it is not below d2 on any seed; of several, the highest mean. Otherwise the default
#      objective stays (drop, alpha 1, no warm-up, no stop-gradient).
# The end of every screen (and --decide) applies it to the summaries and prints the verdict with every number it used.
#
# --dry (or DRY=1): the same on a CPU with a tiny random target and 3 steps a run (a check of this script, not a measurement).
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGV="$*"; MODE=run
while [ $# -gt 0 ]; do case $1 in
  -h|--help) usage; exit 0 ;;
  --out) OUT=$2; shift 2 ;; --arms) ARMS=$2; shift 2 ;; --seeds) SEEDS=$2; shift 2 ;; --clock) CLOCK=$2; shift 2 ;;
  --decide) MODE=decide; shift ;; --dry) DRY=1; shift ;;
  *) echo "unknown argument $1 (--help)"; exit 2 ;; esac; done
[ -n "${OUT:-}" ] || { echo "--out DIR is needed (--help)"; exit 2; }
mkdir -p "$OUT"; P=$(cd "$OUT" && pwd)
ARMS=${ARMS:-dflash d2 d2_swap d2_stopgrad d2_warm}; SEEDS=${SEEDS:-0 1}
run_dir() { echo "$P/runs/$1_s$2"; }
decide() {
  python3 - "$P" "$ARMS" "$SEEDS" <<'EOF'
import json, sys
from pathlib import Path
pipe, arms, seeds = Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3].split()
tau, rows = {}, []
for a in arms:
    for s in seeds:
        f = pipe / 'runs' / f'{a}_s{s}' / 'summary.json'
        if not f.exists(): print(f"{a} seed {s}: no summary.json"); continue
        m = json.loads(f.read_text()); tau.setdefault(a, {})[s] = m.get('tau_pooled')
        rows.append((a, s, m.get('step'), m.get('tau_pooled'), m.get('tau_prompt_mean'), m.get('step_s'), m.get('base_loss') or m.get('loss'), m.get('sel_recall'), m.get('sel_acc')))
print(f"{'arm':12} seed  steps  tau_pooled  tau_prompt_mean  step_s  loss    sel_recall  sel_acc")
for r in rows: print(f"{r[0]:12} {r[1]:>4}  {r[2]!s:>5}  " + '  '.join(f"{v:.4f}" if isinstance(v, float) else f"{v!s:>6}" for v in r[3:]))
mean = lambda a: sum(tau[a].values()) / len(tau[a]) if a in tau and tau[a] and None not in tau[a].values() else None
def beats(a, b):
    "a's mean tau >= b's + 0.05 and a not below b on any seed (both measured on every seed)."
    if mean(a) is None or mean(b) is None or set(tau[a]) != set(tau[b]): return False
    return mean(a) >= mean(b) + 0.05 and all(tau[a][s] >= tau[b][s] for s in tau[a])
out = {'tau': tau, 'means': {a: mean(a) for a in tau}}
if 'dflash' in tau and 'd2' in tau:
    out['default_drafter'] = 'dflash2' if beats('d2', 'dflash') else 'dflash'
    print(f"rule 1: d2 mean {mean('d2')} vs dflash {mean('dflash')}: default drafter {out['default_drafter']}")
variants = [v for v in ('d2_swap', 'd2_stopgrad', 'd2_warm') if v in arms]
missing = [v for v in ['d2'] + variants if v not in tau or set(tau[v]) != set(seeds)]
if variants and missing:      # "of several, the highest mean": every variant screened must have been measured on every seed
    out['default_objective'] = None
    print(f"rule 2: not applied: {missing} not measured on every seed; DFlash2's default objective stays")
elif variants:
    wins = sorted((v for v in variants if beats(v, 'd2')), key=mean, reverse=True)
    out['default_objective'] = wins[0] if wins else 'd2'
    print(f"rule 2: variants beating d2 by the rule: {wins or 'none'}: DFlash2's default objective {out['default_objective']}")
if 'dpace' in tau and 'dflash' in tau:    # D-PACE's rule: two seeds, the mean >= 0.05 above decay's
    ok = len(seeds) >= 2 and set(tau['dpace']) == set(tau['dflash']) == set(seeds)
    out['default_loss'] = ('dpace' if mean('dpace') >= mean('dflash') + 0.05 else 'decay') if ok else None
    print(f"D-PACE: dpace mean {mean('dpace')} vs dflash (decay) {mean('dflash')}: " + (f"default loss {out['default_loss']}" if ok else "not applied (the rule needs seeds 0 and 1)"))
if 'dspark' in tau and 'dflash' in tau:   # DSpark's rule (08_bench): two seeds, tau mean >= 0.05 above, speedup mean not below
    ok = len(seeds) >= 2 and set(tau['dspark']) == set(tau['dflash']) == set(seeds) and mean('dspark') is not None and mean('dflash') is not None
    sp = {a: [json.loads((pipe / 'runs' / f'{a}_s{s}' / 'summary.json').read_text()).get('speedup') for s in seeds] for a in ('dspark', 'dflash')} if ok else {}
    spm = {a: sum(v) / len(v) for a, v in sp.items() if v and None not in v}
    if ok and len(spm) == 2:
        out['speedup_means'] = spm
        out['demo_default'] = 'dspark' if mean('dspark') >= mean('dflash') + 0.05 and spm['dspark'] >= spm['dflash'] else 'dflash'
    else: out['demo_default'] = None
    print(f"DSpark: dspark tau mean {mean('dspark')} vs dflash {mean('dflash')}, speedup means {spm}: "
          + (f"demo default {out['demo_default']}" if out['demo_default'] else "not applied (the rule needs seeds 0 and 1, each with tau and speedup)"))
(pipe / 'decision.json').write_text(json.dumps(out, indent=1)); print(json.dumps(out))
EOF
}
if [ $MODE = decide ]; then decide; exit 0; fi
n=$(( $(echo $ARMS | wc -w) * $(echo $SEEDS | wc -w) ))
[ -n "${DRY:-}" ] || [ $n -le ${MAXRUNS:-4} ] || { echo "$n runs side by side: more than MAXRUNS=${MAXRUNS:-4} fit the GPU's memory; screen fewer arms or seeds at once"; exit 2; }
python3 "$here/provenance.py" "$P" -- bash benchmarks/dflash2_screen.sh $ARGV > /dev/null
log() { echo "$(date +%T) $*" | tee -a "$P/pipeline.log"; }
export PYTHONUNBUFFERED=1
TRAIN="python3 -m dflash_nb.train"; CLOCK=${CLOCK:-6}; SMALL=""
if [ -n "${DRY:-}" ]; then
  python3 -c "from dflash_nb.targets import make_tiny_target; make_tiny_target('$P/tiny_target', 'qwen3', num_layers=6)"
  TRAIN="python3 -m dflash_nb.train --target $P/tiny_target --target-devices cpu --drafter-devices cpu --max-steps 3 --max-records 120 --max-tokens 1024 --num-anchors 16 --eval-prompts 2 --eval-max-new-tokens 12"
  SMALL="--selector-rank 16 --selector-top-k 4"; CLOCK=${CLOCK_DRY:-2}
fi
declare -A ARGS=([dflash]="--drafter dflash" [d2]="--drafter dflash2" [d2_swap]="--drafter dflash2 --selector-gold swap"
                 [d2_stopgrad]="--drafter dflash2 --selector-stop-grad" [d2_warm]="--drafter dflash2 --selector-warmup 0.1 --selector-ramp 0.1"
                 [dpace]="--drafter dflash --loss dpace" [dspark]="--drafter dspark")
log "start: arms $ARMS, seeds $SEEDS, clock $CLOCK min${DRY:+ (dry run on the CPU)}"
[ -n "${DRY:-}" ] || python3 -c "from dflash_nb.loading import demo_target; print(demo_target())" >> "$P/pipeline.log" 2>&1 || { log "demo_target failed"; exit 1; }
for a in $ARMS; do
  [ -n "${ARGS[$a]:-}" ] || { log "unknown arm $a"; continue; }
  for s in $SEEDS; do
    args="${ARGS[$a]}"; case $a in d2*) args="$args $SMALL" ;; esac
    # shellcheck disable=SC2086
    $TRAIN --run-dir "$(run_dir $a $s)" --resume none --seed $s --time-limit-min $CLOCK $args > "$P/${a}_s$s.log" 2>&1 &
    sleep 3
  done
done
wait; log "screen done"
for a in $ARMS; do for s in $SEEDS; do f=$(run_dir $a $s)/summary.json
  python3 -c "import json; s = json.load(open('$f')); print('screen ${a}_s$s', {k: s.get(k) for k in ('step', 'tau_pooled', 'tau_prompt_mean', 'speedup', 'step_s', 'loss', 'base_loss', 'sel_recall', 'sel_acc', 'minutes')})" >> "$P/pipeline.log" 2>&1 \
    || log "${a}_s$s: no summary (see $P/${a}_s$s.log)"
  rm -rf "$(run_dir $a $s)"/checkpoints "$(run_dir $a $s)"/compile_cache; done; done
decide | tee -a "$P/pipeline.log"
