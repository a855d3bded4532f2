# One GPU round of the demo-quality work (issue 17), in the background, on a GPU machine whose calls last at most 10 minutes:
#   source tools/h200/setup.sh                 # the wheels and the whole demo model first (two calls: see setup.sh)
#   bash tools/h200/demo_round.sh start        # starts the round (setsid) on a copy of the tree, returns at once
#   bash tools/h200/demo_round.sh poll [SECS]  # waits up to SECS (default 500) for it, then puts what it has under $OUT
#   UNTIL=seed0 bash tools/h200/demo_round.sh poll 575   # ... or until run $HOME/seed0 has its summary.json (that seed is
#                                          # done, its tau measured), whichever comes first; the round goes on
# A machine is given back about 30 s after a call ends, with whatever still runs on it: a seed that has not come back
# by the end of a call is lost unless the next call starts at once (2026-12-03: seed 0 was measuring its tau when call B
# ended, the next call came too late and found a fresh machine). So call B's poll waits for seed 0 itself (UNTIL=seed0,
# SECS 575, the call's limit 598: setup ~12 s and seed 0 ~540 s fit), and the next poll (UNTIL=seed1) is sent the moment
# B returns, already written out beforehand. A start refuses (exit 4) while a round still runs: it would replace that
# round's tree under it. After `stage.sh lease` here (tools/h200/stage.sh), the calls of one lease, each sent the moment
# the one before returns (timeout_s 598 for B and C):
#   A (carry .whl .demo/a): source tools/h200/setup.sh
#   B (carry .demo/b):      source tools/h200/setup.sh; SEEDS=1 PHASES=seeds bash tools/h200/demo_round.sh start; UNTIL=seed1 bash tools/h200/demo_round.sh poll 575
#   C (carry .demo/c):      source tools/h200/setup.sh; bash tools/h200/demo_round.sh poll 120; ... (C's first poll brings
#                           B's seed back if B's own poll had not)
# A candidate beside the default: export PHASES=seeds SEEDS=0 SEED_FLAGS="--max-tokens 32768" SEED_NAME=mt32k_s before
# start, UNTIL=mt32k_s0 for the poll (2026-12-04: its tau was cut at 44 of 100 prompts by the end of the call and the
# lease: a seed and its tau need about 560 s of one call).
# A poll copies the UNTIL run's folder (eval/tau_*.json with it) even with no SEED_NAME set (2026-12-04: a second
# poll of only UNTIL=g4_s0 fetched the run's end but not its tau record, copied only for the names listed in poll).
# Phases (PHASES, default "screen_loss ab"; they run in the order below whatever the order in PHASES), each alone on the GPU:
#   speed  08_bench's issue-34 cells (about 5 minutes): the demo step with --no-async-step and --async-step side by side
#          (steps/s, GPU busy, launches and syncs per step), and the 8B-shaped step in a 40-step run (tokens/s, MFU, peak
#          memory); the notebook with their outputs is $P/08_bench_speed.ipynb, their logs and JSON in $P/speed/. The rule
#          for the --async-step default is in the notebook, stated before the round
#   ab     08_bench's --capture-ahead cells (two 80-step demo runs, with and without); the option becomes the default for
#          the seeds below if its median step is at least 5 % shorter and the losses agree (the rule the notebook states)
#   regen  the target's greedy answers to the prompts of chitchat_train.jsonl.gz not yet answered in
#          chitchat_train_greedy{,_b,_c}.jsonl.gz (dflash_nb_regen --skip), as chitchat_train_greedy_d.jsonl.gz: none are
#          left since 2026-12-03 (the last 4,060 were answered on the CPU: data_samples/README.md); kept for a new prompt file
#          (stage.sh's WHEELS=gguf A_DATA=... brings the prompts)
#   seeds  README's first command (python3 -m dflash_nb.train) with seed 0 and seed 1 (SEEDS), one after the other, alone
#          on the GPU, its defaults as they are (CLOCK, if set, changes the clock); --no-capture-ahead if ab ran and lost.
#          A candidate: SEED_FLAGS (flags after the defaults) and SEED_NAME (its run folders $HOME/NAME0, NAME1), e.g.
#          SEEDS=0 SEED_FLAGS="--max-tokens 32768" SEED_NAME=mt32k_s
#   bench  dflash_nb_bench (nbs/07d_bench.ipynb) on the demo's export, every shipped prompt set, z-lab's settings (2048 new
#          tokens, --limit 128): 08_bench's two bench cells through run_notebook.py on seed0's export (else BENCH_EXPORT,
#          else one run of README's first command first); brings back $OUT/bench/ (bench.json, bench.png, table.md) and
#          08_bench.ipynb with the outputs. BENCH_LIMIT / BENCH_NEW change the settings (about 20 minutes at the defaults)
#   screen_loss    the D-PACE screen (issue 27): four runs side by side under the same load, CLOCK_SCREEN minutes (default
#                  7), both answer files: --loss decay and --loss dpace, each with seed 0 and seed 1. Rule, fixed before the
#                  screen ran: dpace becomes the default if the mean of its two pooled taus is at least 0.05 above decay's
#                  and it is not below decay on either seed
# Later phases, for a round of their own (PHASES="regen_ctx regen_sampled screen", about 20 minutes):
#   regen_ctx      answers to chitchat_train_ctx1.jsonl.gz (16,000 later-turn prompts after their chat's previous
#                  exchange; both user turns answered by the target) as chitchat_train_ctx1_greedy.jsonl.gz
#   regen_sampled  sampled answers (temperature 0.7, seed 0) to the first 20,000 prompts of chitchat_train.jsonl.gz
#   screen         three runs side by side under the same load, CLOCK_SCREEN minutes (default 7): the default data,
#                  + the context answers, + the sampled answers; the summaries say which mix helps (the table)
# DRY=1 DRY_TARGET=FOLDER: the same on a CPU with tiny settings (a check of this script, not a measurement).
set -u
P=${PIPE:-$HOME/pipe}; R=$HOME/repo
case ${1:-} in
start)
  # a round still running keeps its tree ($R, which this start would replace under it): poll it first
  if [ -f $P/round.pid ] && kill -0 "$(cat $P/round.pid)" 2>/dev/null; then
    echo "a round still runs (pid $(cat $P/round.pid)): poll until it is done, then start"; exit 4; fi
  mkdir -p $P; rm -f $P/DONE; touch $P/pipeline.log    # a poll right after this start finds its round
  rm -rf $R; mkdir -p $R; tar cf - --exclude=./.whl --exclude=./.demo . | tar xf - -C $R
  cd $R && { setsid nohup bash tools/h200/demo_round.sh run > $P/round.out 2>&1 < /dev/null & echo $! > $P/round.pid; }
  echo "started: $P/pipeline.log"; exit 0 ;;
poll)
  [ -f $P/pipeline.log ] || { echo "no round on this machine ($P/pipeline.log missing): a fresh machine, the round before was lost with the last one"; exit 3; }
  end=$(( $(date +%s) + ${2:-500} ))
  while [ ! -f $P/DONE ] && [ $(date +%s) -lt $end ] && { [ -z "${UNTIL:-}" ] || [ ! -f $HOME/$UNTIL/summary.json ]; }; do sleep 5; done
  cat $P/pipeline.log 2>/dev/null
  RUNS=$(printf '%s\n' seed0 seed1 ${SEED_NAME:+${SEED_NAME}0 ${SEED_NAME}1} ${UNTIL:-} screen_base screen_ctx screen_sampled sl_decay_s0 sl_decay_s1 sl_dpace_s0 sl_dpace_s1 | awk '!seen[$0]++')   # UNTIL may repeat a name above
  for s in $RUNS; do d=$HOME/$s; [ -d $d ] || continue
    mkdir -p $P/runs/$s; cp -r $d/summary.json $d/metrics.jsonl $d/eval $d/config.json $d/ranks $P/runs/$s/ 2>/dev/null; done
  tar czf $OUT/round.tar.gz -C $P --exclude='./regen/*.jsonl.gz' --exclude='./regen/.parts*' . 2>/dev/null
  [ -d $P/bench ] && { mkdir -p $OUT/bench; cp $P/bench/bench.json $P/bench/bench.png $P/bench/table.md $OUT/bench/ 2>/dev/null; cp $P/08_bench.ipynb $OUT/ 2>/dev/null; }
  for n in chitchat_train_greedy_d chitchat_train_ctx1_greedy chitchat_train_t0.7_s0; do
    [ -f $P/regen/$n.json ] && cp $P/regen/$n.jsonl.gz $P/regen/$n.json $OUT/; done
  for f in $RUNS; do [ -f $P/$f.log ] && { echo "== $f"; grep -v USDT $P/$f.log | tr '\r' '\n' | grep -E "^done|tau |Error|error" | tail -4; }; done
  [ -f $P/DONE ] && echo "round done" || echo "round still running"; exit 0 ;;
run) ;;
*) echo "usage: bash tools/h200/demo_round.sh start | [UNTIL=RUN] poll [SECS]"; exit 2 ;;
esac
# --- the round itself (on the copy $R, started by `start`) ---
log() { echo "$(date +%T) $*" | tee -a $P/pipeline.log; }
export PYTHONPATH=$HOME/site:$R PYTHONUNBUFFERED=1
TRAIN="python3 -m dflash_nb.train"; REGEN_EXTRA=""; STEPS=80
if [ -n "${DRY:-}" ]; then
  TRAIN="python3 -m dflash_nb.train --max-steps 6 --max-records 300 --eval-prompts 2"; REGEN_EXTRA="--limit 40 --target $DRY_TARGET --max-new-tokens 8"
fi
PHASES=${PHASES:-screen_loss ab}; AB_CELLS=e4cce7f8,325a4550,6017ed95,38cd0078,023619e4; BENCH_CELLS=b3c4e502,b3c4e503
SPEED_CELLS=a34b0002,a34b0004,a34b0006,a34b0007,a34b000e,a34b0009,a34b000b,a34b0012,a34b0013,a34b0014
log "start: phases $PHASES"
python3 -c "from dflash_nb.targets import demo_target; print(demo_target())" >> $P/pipeline.log 2>&1 || { log "demo_target failed"; touch $P/DONE; exit 1; }
if [[ " $PHASES " == *" regen "* ]]; then
  mkdir -p $P/regen
  timeout ${REGEN_HARD:-400} python3 -m dflash_nb.regen data_samples/chitchat_train.jsonl.gz $P/regen \
    --skip data_samples/chitchat_train_greedy.jsonl.gz,data_samples/chitchat_train_greedy_b.jsonl.gz,data_samples/chitchat_train_greedy_c.jsonl.gz --name chitchat_train_greedy_d --deadline-s ${REGEN_S:-300} --procs ${REGEN_PROCS:-8} --batch-size 1024 $REGEN_EXTRA > $P/regen.log 2>&1
  log "regen rc=$?"; tail -1 $P/regen.log >> $P/pipeline.log
fi
if [[ " $PHASES " == *" screen_loss "* ]]; then
  data=$(python3 -c "from dflash_nb.options import TrainConfig; print(TrainConfig().data)")
  [ -f $P/regen/chitchat_train_greedy_d.jsonl.gz ] && data="$data,$P/regen/chitchat_train_greedy_d.jsonl.gz"
  log "screen_loss: data $data"
  for v in decay_s0 decay_s1 dpace_s0 dpace_s1; do
    $TRAIN --run-dir $HOME/sl_$v --data "$data" --loss ${v%_s*} --seed ${v#*_s} --time-limit-min ${CLOCK_SCREEN:-7} > $P/sl_$v.log 2>&1 &
    sleep 3
  done
  wait; log "screen_loss done"
  for v in decay_s0 decay_s1 dpace_s0 dpace_s1; do python3 -c "import json; s = json.load(open('$HOME/sl_$v/summary.json')); print('screen_loss $v', {k: s.get(k) for k in ('step', 'tau_pooled', 'tau_prompt_mean', 'speedup', 'minutes')})" >> $P/pipeline.log 2>&1; done
fi
ASYNC=1
if [[ " $PHASES " == *" speed "* ]]; then
  mkdir -p $P/speed
  OUT=$P/speed timeout ${SPEED_HARD:-540} python3 tools/run_notebook.py nbs/08_bench.ipynb --cells $SPEED_CELLS --out $P/08_bench_speed.ipynb > $P/speed.log 2>&1
  rc=$?; log "speed rc=$rc"; grep -E "largest relative|steps per second|rule:|8B-shaped step" $P/speed.log >> $P/pipeline.log
  grep -q "rule: --async-step stays" $P/speed.log || ASYNC=""      # the seeds below then run with --no-async-step as the default
fi
AHEAD=1
if [[ " $PHASES " == *" ab "* ]]; then
  [ -n "${DRY:-}" ] && sed -i "s/steps=80/steps=14/; s/'8000'/'300'/; s/== 80/== 14/" nbs/08_bench.ipynb
  timeout 330 python3 tools/run_notebook.py nbs/08_bench.ipynb --cells $AB_CELLS --out $P/08_bench.ipynb > $P/ab.log 2>&1; rc=$?
  ratio=$(grep -o -- '--capture-ahead: [0-9.]*x' $P/ab.log | grep -o '[0-9.]*' | head -1)
  log "ab rc=$rc ratio ${ratio:-none}"; grep -E "^(in step|ahead) +median|largest|steps per second" $P/ab.log >> $P/pipeline.log
  if [ $rc = 0 ] && [ -n "$ratio" ] && python3 -c "import sys; sys.exit(0 if $ratio >= 1 / 0.95 else 1)"; then AHEAD=1; else AHEAD=""; fi
fi
if [[ " $PHASES " == *" seeds "* ]]; then
  [ -n "${CLOCK:-}" ] && sed -i "s/time_limit_min=8.0, eval_every=0/time_limit_min=$CLOCK, eval_every=0/" dflash_nb/options.py
  [ -z "$AHEAD" ] && sed -i "s/capture_ahead: bool = _opt(True, /capture_ahead: bool = _opt(False, /" dflash_nb/options.py
  [ -z "$ASYNC" ] && sed -i "s/async_step: bool = _opt(True, /async_step: bool = _opt(False, /" dflash_nb/options.py
  grep -n "^DEMO_GPU\|    data: str\|capture_ahead: bool\|async_step: bool" dflash_nb/options.py | cut -c1-160 >> $P/pipeline.log
  for s in ${SEEDS:-0 1}; do
    n=${SEED_NAME:-seed}$s; t0=$(date +%s)
    # shellcheck disable=SC2086
    $TRAIN --run-dir $HOME/$n --seed $s ${SEED_FLAGS:-} > $P/$n.log 2>&1
    log "$n rc=$? in $(( $(date +%s) - t0 )) s (flags: ${SEED_FLAGS:-none})"
  done
fi
if [[ " $PHASES " == *" regen_ctx "* ]]; then
  mkdir -p $P/regen
  timeout ${REGEN_HARD:-400} python3 -m dflash_nb.regen data_samples/chitchat_train_ctx1.jsonl.gz $P/regen --name chitchat_train_ctx1_greedy \
    --deadline-s ${REGEN_S:-300} --procs ${REGEN_PROCS:-8} --batch-size 1024 $REGEN_EXTRA > $P/regen_ctx.log 2>&1
  log "regen_ctx rc=$?"; tail -1 $P/regen_ctx.log >> $P/pipeline.log
fi
if [[ " $PHASES " == *" regen_sampled "* ]]; then
  mkdir -p $P/regen
  timeout ${REGEN_HARD:-400} python3 -m dflash_nb.regen data_samples/chitchat_train.jsonl.gz $P/regen --temperature 0.7 --seed 0 \
    --limit ${SAMPLED_N:-20000} --deadline-s ${REGEN_S:-300} --procs ${REGEN_PROCS:-8} --batch-size 1024 $REGEN_EXTRA > $P/regen_sampled.log 2>&1
  log "regen_sampled rc=$?"; tail -1 $P/regen_sampled.log >> $P/pipeline.log
fi
if [[ " $PHASES " == *" screen "* ]]; then
  base=$(python3 -c "from dflash_nb.options import TrainConfig; print(TrainConfig().data)")
  declare -A mix=([base]="$base" [ctx]="$base,$P/regen/chitchat_train_ctx1_greedy.jsonl.gz" [sampled]="$base,$P/regen/chitchat_train_t0.7_s0.jsonl.gz")
  for v in base ctx sampled; do
    $TRAIN --run-dir $HOME/screen_$v --data "${mix[$v]}" --time-limit-min ${CLOCK_SCREEN:-7} > $P/screen_$v.log 2>&1 &
    sleep 5
  done
  wait; log "screen done"
  for v in base ctx sampled; do python3 -c "import json; s = json.load(open('$HOME/screen_$v/summary.json')); print('screen $v', {k: s.get(k) for k in ('step', 'tau_pooled', 'tau_prompt_mean', 'minutes')})" >> $P/pipeline.log 2>&1; done
fi
if [[ " $PHASES " == *" bench "* ]]; then
  exp=${BENCH_EXPORT:-}; [ -z "$exp" ] && [ -d $HOME/seed0/export/best ] && exp=$HOME/seed0/export/best
  if [ -z "$exp" ]; then $TRAIN --run-dir $HOME/bench_run > $P/bench_train.log 2>&1; log "bench: trained rc=$?"; exp=$HOME/bench_run/export/best; fi
  benv="DFLASH_NB_DRAFTER=$exp DFLASH_NB_BENCH_OUT=$P/bench DFLASH_NB_BENCH_LIMIT=${BENCH_LIMIT:-128} DFLASH_NB_BENCH_NEW=${BENCH_NEW:-2048}"
  [ -n "${DRY:-}" ] && benv="$benv DFLASH_NB_BENCH_TARGET=$DRY_TARGET DFLASH_NB_BENCH_DEVICES=cpu DFLASH_NB_BENCH_LIMIT=2 DFLASH_NB_BENCH_NEW=8"
  log "bench: $benv"
  env $benv timeout ${BENCH_HARD:-3000} python3 tools/run_notebook.py nbs/08_bench.ipynb --cells $BENCH_CELLS --out $P/08_bench.ipynb > $P/bench.log 2>&1
  log "bench rc=$?"; cat $P/bench/table.md >> $P/pipeline.log 2>/dev/null
fi
touch $P/DONE
