"""H200: the demo end to end.
  python3 tools/h200/demo.py regen [T SEED [LIMIT]]
                                              answers all of data_samples/chitchat_prompts.jsonl with the demo target
                                              (SmolLM2-135M-Instruct, bf16, 256 new tokens): greedy into
                                              data_samples/demo_train.jsonl.gz, or sampled at temperature T > 0 (seed SEED,
                                              the first LIMIT prompts) into data_samples/demo_train_t{T}_s{SEED}.jsonl:
                                              more distinct answers for the drafter (it overfits 6,000 greedy ones)
  python3 tools/h200/demo.py NAME MINUTES [dflash_nb_train flags]
                                              trains a drafter with `dflash_nb_train --time-limit-min MINUTES` into
                                              runs/demo-NAME (tau on held-out prompts at the end) and copies its metrics,
                                              summary, config, tau records and exported config.json to $OUT/demo-NAME.tgz
Run `regen` first (once), then one or more trainings, e.g. one per GPU with CUDA_VISIBLE_DEVICES."""
import json, os, subprocess, sys, tarfile, time
from pathlib import Path
import torch
out = Path(os.environ.get('OUT', '/tmp'))
data, prompts = Path('data_samples/demo_train.jsonl.gz'), Path('data_samples/chitchat_prompts.jsonl')
if sys.argv[1] == 'regen':
    from transformers import AutoModelForCausalLM
    from dflash_nb.targets import demo_target, load_tokenizer
    from dflash_nb.data import regenerate, read_conversations
    temp, seed = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0, int(sys.argv[3]) if len(sys.argv) > 3 else 0
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    dst = data if temp == 0 and limit is None else Path(f'data_samples/demo_train_t{temp:g}_s{seed}.jsonl')
    t = time.time(); path = demo_target(); print(f"demo target ready in {time.time() - t:.0f}s: {path}", flush=True)
    tok = load_tokenizer(path)
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16 if dev == 'cuda' else torch.float32,
                                                 attn_implementation='sdpa').to(dev).eval()
    t = time.time()
    src = read_conversations(prompts, require_assistant=False)[0][:limit] if limit else prompts
    r = regenerate(model, tok, src, dst, max_new_tokens=256, batch_size=1024 if dev == 'cuda' else 8, temperature=temp, seed=seed)
    print(f"regenerated {prompts} (temperature {temp:g}, seed {seed}) into {dst} in {time.time() - t:.0f}s: {r}", flush=True)
    sys.exit(0)
name, minutes, run = sys.argv[1], sys.argv[2], Path(f'runs/demo-{sys.argv[1]}')
cmd = [sys.executable, '-m', 'dflash_nb.train', '--time-limit-min', minutes, '--run-dir', str(run), '--resume', 'none', *sys.argv[3:]]
print(' '.join(cmd), flush=True)
rc = subprocess.call(cmd)
with tarfile.open(out / f'demo-{name}.tgz', 'w:gz') as tf:
    for f in ['metrics.jsonl', 'summary.json', 'config.json', 'eval', 'export/best/config.json', 'export/final/config.json']:
        if (run / f).exists(): tf.add(run / f, arcname=f)
    from safetensors import safe_open
    if (run / 'export/final/model.safetensors').exists():   # the exported tensor names and shapes (the format check)
        with safe_open(run / 'export/final/model.safetensors', 'pt') as sf:
            shapes = {k: list(sf.get_slice(k).get_shape()) for k in sf.keys()}
        (run / 'export_shapes.json').write_text(json.dumps(shapes, indent=1)); tf.add(run / 'export_shapes.json', arcname='export_shapes.json')
sys.exit(rc)
