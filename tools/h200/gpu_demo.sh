# H200 (one call, <= 10 min): regenerate the demo data with the demo target, then train demo drafters with
# dflash_nb_train, each fitted to the time left (issue 7). On a 2-GPU machine two settings train side by side:
#   A: the GPU defaults (16k-token batches)        B: 4k-token batches (4x the optimizer steps on the same data)
# Usage on the device machine, repo root (the GGUF parts .demo/part-a? carried in this or the previous call):
#   bash tools/h200/gpu_demo.sh [BUDGET_SECONDS]
t0=$(date +%s); budget=${1:-570}
source tools/h200/setup.sh || exit 1
python3 tools/h200/demo.py regen 2>&1 | tee $OUT/regen.log | grep -v 'it/s\]$'
cp data_samples/demo_train.jsonl $OUT/
n=$(nvidia-smi -L | wc -l)
# minutes left for training: the budget minus what is spent, minus ~1.5 min for the final tau (with the speed baseline)
m=$(python3 -c "import time; print(round(max(1.0, ($budget - (time.time() - $t0)) / 60 - 1.5), 2))")
echo "training time limit: $m min on $n GPU(s)"
common="--epochs 40 --max-length 1024"
CUDA_VISIBLE_DEVICES=0 python3 tools/h200/demo.py A $m $common --eval-every 400 > $OUT/demoA.log 2>&1 &
if [ "$n" -ge 2 ]; then
  CUDA_VISIBLE_DEVICES=1 python3 tools/h200/demo.py B $m $common --max-tokens 4096 --eval-every 1500 > $OUT/demoB.log 2>&1 &
fi
wait
for f in $OUT/demo?.log; do echo "== $f"; grep -v 'it/s\]$\|step/s\]$\|s/step\]$' $f | tail -25; done
