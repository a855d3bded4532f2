"""H200: the demo end to end. Regenerates the answers of all of data_samples/chitchat_prompts.jsonl with the demo target
(SmolLM2-135M-Instruct, greedy) into data_samples/demo_train.jsonl (unless it already answers them all), then trains a drafter with dflash_nb_train and
reports tau on the held-out prompts. Usage: python3 tools/h200/demo.py [TRAIN_MINUTES] [extra dflash_nb_train flags]"""
import json, os, shutil, subprocess, sys, time
from pathlib import Path
import torch
out = Path(os.environ.get('OUT', '/tmp')); minutes = sys.argv[1] if len(sys.argv) > 1 else '4'
data, prompts = Path('data_samples/demo_train.jsonl'), Path('data_samples/chitchat_prompts.jsonl')
n_prompts = sum(1 for _ in open(prompts))
if not data.exists() or sum(1 for _ in open(data)) < n_prompts:  # the committed CPU set answers only the first prompts
    from transformers import AutoModelForCausalLM
    from dflash_nb.targets import demo_target, load_tokenizer
    from dflash_nb.data import regenerate, read_conversations
    t = time.time(); path = demo_target(); print(f"demo target ready in {time.time() - t:.0f}s: {path}", flush=True)
    tok = load_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16, attn_implementation='sdpa').cuda().eval()
    t = time.time()
    r = regenerate(model, tok, prompts, data, max_new_tokens=256, batch_size=512)
    print(f"regenerated in {time.time() - t:.0f}s: {r}", flush=True)
    del model; torch.cuda.empty_cache()
shutil.copy(data, out / 'demo_train.jsonl')
cmd = [sys.executable, '-m', 'dflash_nb.train', '--time-limit-min', minutes, '--epochs', '40', '--max-length', '1024',
       '--run-dir', 'runs/demo', '--resume', 'none', *sys.argv[2:]]
print(' '.join(cmd), flush=True)
rc = subprocess.call(cmd)
for f in ('metrics.jsonl', 'summary.json', 'config.json'):
    if (Path('runs/demo') / f).exists(): shutil.copy(Path('runs/demo') / f, out / f'demo_{f}')
sys.exit(rc)
