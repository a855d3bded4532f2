"""H200: which steps of a demo-shaped training recompile, and why (TORCH_LOGS=recompiles).
  python3 tools/h200/diag_recompiles.py SHAPE_DIR MINUTES [dflash_nb_train flags]
SHAPE_DIR holds a target's config.json and tokenizer (no weights, e.g. the demo target's): a random model of that
shape is written to $HOME/diag-target, so the batches (and the drafter's shapes) are those of the real run.
DIAG_OBLIVIOUS=1 sets torch.fx.experimental._config.backed_size_oblivious (no 0/1 specialization of sizes)."""
import os, shutil, sys, time
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM
src, minutes, flags = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
dst = Path.home() / 'diag-target'
if not (dst / 'model.safetensors').exists():
    cfg = AutoConfig.from_pretrained(src)
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16).save_pretrained(dst)
    for f in src.iterdir():
        if f.name != 'config.json': shutil.copy(f, dst / f.name)
if os.environ.get('DIAG_OBLIVIOUS') == '1':
    import torch.fx.experimental._config as fxc
    fxc.backed_size_oblivious = True
    print('backed_size_oblivious = True', flush=True)
from dflash_nb.train import main
sys.argv = ['dflash_nb_train', '--target', str(dst), '--heldout', '', '--time-limit-min', minutes, '--resume', 'none', *flags]
print(' '.join(sys.argv), flush=True)
main()
