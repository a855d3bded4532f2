# H200 (one call, ~9 min): the drafter benchmark (issue 4) and the single-GPU 8B-shaped dflash_nb_train run (issue 6).
# On a 2-GPU machine they run side by side (GPU 0: benchmark, GPU 1: training); on one GPU, one after the other.
# Usage on the device machine, repo root: bash tools/h200/gpu_benchmarks.sh [TRAIN_MINUTES]
source tools/h200/setup.sh || exit 1
nvidia-smi -L
n=$(nvidia-smi -L | wc -l); minutes=${1:-6.5}
train() { CUDA_VISIBLE_DEVICES=$1 python3 tools/h200/train_8b.py $minutes > $OUT/train_8b.log 2>&1; echo "train_8b exit $?" >> $OUT/train_8b.log; }
if [ "$n" -ge 2 ]; then train 1 & fi
CUDA_VISIBLE_DEVICES=0 python3 tools/h200/bench_drafter.py 2>&1 | tee $OUT/bench_drafter.log
if [ "$n" -lt 2 ]; then train 0; fi
wait
grep -v '^train:\|it/s\]$' $OUT/train_8b.log | tail -40
