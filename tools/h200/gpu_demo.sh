# H200 (one call, <= 10 min): regenerate the demo data with the demo target unless data_samples/demo_train.jsonl.gz
# already answers every prompt, then train demo drafters with dflash_nb_train, fitted to the time left (issue 7).
# On a 2-GPU machine two settings train side by side (flags in $DEMO_A and $DEMO_B; B only with 2 GPUs).
# Usage on the device machine, repo root (the GGUF parts .demo/part-a? carried in this or the previous call):
#   DEMO_A="--max-tokens 4096" DEMO_B="--max-tokens 2048 --lr 2e-3" bash tools/h200/gpu_demo.sh [BUDGET_SECONDS] [EVAL_SECONDS]
t0=$(date +%s); budget=${1:-570}; eval_s=${2:-150}
source tools/h200/setup.sh || exit 1
if [ ! -f data_samples/demo_train.jsonl.gz ]; then
  python3 tools/h200/demo.py regen 2>&1 | tee $OUT/regen.log | grep -v 'it/s\]$'
  cp data_samples/demo_train.jsonl.gz $OUT/
fi
n=$(nvidia-smi -L | wc -l)
# minutes for dflash_nb_train's --time-limit-min (start to end of training): what is left minus the final tau's time
m=$(python3 -c "import time; print(round(max(1.0, ($budget - $eval_s - (time.time() - $t0)) / 60), 2))")
echo "training time limit: $m min on $n GPU(s)"
common="--epochs 40 --max-length 1024"
CUDA_VISIBLE_DEVICES=0 python3 tools/h200/demo.py A $m $common ${DEMO_A:-} > $OUT/demoA.log 2>&1 &
if [ "$n" -ge 2 ]; then
  CUDA_VISIBLE_DEVICES=1 python3 tools/h200/demo.py B $m $common ${DEMO_B:-} > $OUT/demoB.log 2>&1 &
fi
wait
for f in $OUT/demo?.log; do echo "== $f"; tr '\r' '\n' < $f | grep -v '^train:\|^targets\|^tokenizing\|^ *$' | tail -14; tr '\r' '\n' < $f | grep '^train:' | tail -1; done
