# H200 (one call, ~2-4 min): more training answers for the demo, sampled from the demo target, one set per GPU in
# parallel, copied to $OUT to be committed under data_samples/ (the drafter overfits the 6,000 greedy answers: training
# slot-1 accuracy 0.83 against 0.60 acceptance on held-out prompts after 8 epochs).
# Usage on the device machine, repo root (the GGUF parts .demo/part-a? carried in this or the previous call):
#   bash tools/h200/gpu_regen.sh 0.8:1 0.8:2      (TEMPERATURE:SEED per set -> data_samples/demo_train_t{T}_s{SEED}.jsonl)
source tools/h200/setup.sh || exit 1
n=$(nvidia-smi -L | wc -l); i=0
python3 -c "from dflash_nb.targets import demo_target; demo_target()" || exit 1   # convert the GGUF once, before the jobs
for spec in "$@"; do
  t=${spec%%:*}; s=${spec##*:}
  CUDA_VISIBLE_DEVICES=$((i % n)) python3 tools/h200/demo.py regen $t $s > $OUT/regen_t${t}_s${s}.log 2>&1 &
  i=$((i + 1)); if [ $((i % n)) -eq 0 ]; then wait; fi
done
wait
# to $OUT (to commit) and to $HOME/dflash-data/ (kept while the machine stays warm: a next call can train on them with
# e.g. DEMO_A="--data data_samples/demo_train.jsonl.gz,$HOME/dflash-data/demo_train_t0.8_s1.jsonl")
mkdir -p $HOME/dflash-data
for spec in "$@"; do t=${spec%%:*}; s=${spec##*:}; tail -1 $OUT/regen_t${t}_s${s}.log
  cp data_samples/demo_train_t${t}_s${s}.jsonl $OUT/ 2>/dev/null; cp data_samples/demo_train_t${t}_s${s}.jsonl $HOME/dflash-data/ 2>/dev/null; done
ls -la $OUT
