"""The fine-tuning demo: a drafter released for chit-chat, fine-tuned for another domain, tau on that domain before and after.

    python3 benchmarks/finetune_demo.py --out DIR [--released FOLDER] [--clock MIN] [--ft-clock MIN] [--seed N]
    python3 benchmarks/finetune_demo.py --out /tmp/ft_dry --dry          # a check of this script on a CPU (tiny random target)

1. **The release**: README's first command (the demo: SmolLM2-135M-Instruct, its chit-chat data, the GPU demo profile)
   on a CLOCK-minute clock (default 8, README's), its `export/final` playing the released drafter; or `--released FOLDER`,
   any drafter export made for the demo target (then nothing is trained here for it).
2. **The new domain's data**: `dflash_nb_regen` answers `data_samples/code_prompts.jsonl.gz` (3,136 programming prompts over
   49 tasks, `tools/make_code_prompts.py`) with the demo target, greedy, as the demo's own data was answered.
3. **The fine-tuning**: `dflash_nb_train --init-from` the release, on those answers, with README's fine-tuning defaults
   (`--lr 2e-4 --warmup-ratio 0.01`) on an FT_CLOCK-minute clock (default 2), tau measured on
   `data_samples/code_heldout.jsonl` (its first 100 prompts, `--eval-prompts`' default, of 128 over 14 tasks no training
   prompt has) before the first step and at the end, both conventions (pooled and per-prompt mean), as every `--init-from` run does.
DIR/record.json holds the commands, provenance (`provenance.py`), tau before and after and the steps; DIR/*.log each
step's console. About CLOCK + FT_CLOCK + 6 minutes on one H100 or H200 (measured on an H100: the release 8.5 minutes, regen 2.2,
the fine-tuning 3.4 with its two tau measurements; `nbs/records/finetune_demo/`).
`--dry`: the same on a CPU with a tiny random target, 40 prompts, a few steps (a check of the script, not a measurement).
"""
import argparse, json, subprocess, sys, os
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
PROMPTS, HELDOUT = ROOT / 'data_samples' / 'code_prompts.jsonl.gz', ROOT / 'data_samples' / 'code_heldout.jsonl'
FT_FLAGS = ['--lr', '2e-4', '--warmup-ratio', '0.01']

def step(out:Path, name:str, cmd:list) -> None:
    "Run `cmd` (python -m ...), its console to out/NAME.log; stop the demo on a failure."
    print('$', ' '.join(['python3', *cmd[1:]]), flush=True)
    with open(out / f'{name}.log', 'w') as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, 'PYTHONUNBUFFERED': '1'}).returncode
    if rc: sys.exit(f"{name} failed (exit {rc}): see {out / f'{name}.log'}")

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out', type=Path, required=True, help='folder of the runs, the answers, the logs and record.json')
    p.add_argument('--released', type=Path, help='a drafter export made for the demo target to start from (default: train one on chit-chat here)')
    p.add_argument('--clock', type=float, default=8.0, help="minutes of training of the release (default: 8, README's clock)")
    p.add_argument('--ft-clock', type=float, default=2.0, help='minutes of fine-tuning (default: 2)')
    p.add_argument('--seed', type=int, default=0, help='seed of both runs (default: 0)')
    p.add_argument('--dry', action='store_true', help='a tiny random target on the CPU for a few steps: a check of the script')
    a = p.parse_args(argv)
    out = a.out.resolve(); out.mkdir(parents=True, exist_ok=True)
    py, target, dry, dry_regen = sys.executable, 'demo', [], []
    if a.dry:
        from dflash_nb.targets import make_tiny_target
        target = str(out / 'tiny_target')
        if not (out / 'tiny_target' / 'config.json').exists(): make_tiny_target(out / 'tiny_target', 'qwen3', num_layers=6)
        dry = ['--target', target, '--target-devices', 'cpu', '--drafter-devices', 'cpu', '--max-steps', '6', '--max-records', '300',
               '--max-tokens', '1024', '--num-anchors', '16', '--eval-prompts', '4', '--eval-max-new-tokens', '12']
        dry_regen = ['--limit', '40', '--max-new-tokens', '24', '--device', 'cpu']
    cmds = {}
    released = a.released
    if released is None:
        cmds['release'] = [py, '-m', 'dflash_nb.train', '--run-dir', str(out / 'released'), '--seed', str(a.seed), '--resume', 'none',
                           *dry, *([] if a.dry else ['--time-limit-min', f'{a.clock:g}'])]
        step(out, 'release', cmds['release']); released = out / 'released' / 'export' / 'final'
    cmds['regen'] = [py, '-m', 'dflash_nb.regen', str(PROMPTS), str(out / 'answers'), '--target', target, *dry_regen]
    step(out, 'regen', cmds['regen'])
    answers = out / 'answers' / 'code_prompts_greedy.jsonl.gz'   # regen's name: the file's name before its first dot + _greedy
    cmds['finetune'] = [py, '-m', 'dflash_nb.train', '--run-dir', str(out / 'finetuned'), '--seed', str(a.seed), '--resume', 'none',
                        '--init-from', str(released), '--data', str(answers), '--heldout', str(HELDOUT), *FT_FLAGS, *dry,
                        *([] if a.dry else ['--time-limit-min', f'{a.ft_clock:g}'])]
    step(out, 'finetune', cmds['finetune'])
    s = json.loads((out / 'finetuned' / 'summary.json').read_text())
    rec = dict(what='the fine-tuning demo (benchmarks/finetune_demo.py): tau on held-out programming prompts of the release '
                    'trained on chit-chat, before and after fine-tuning it on the demo target\'s answers to programming prompts',
               command=' '.join(['python3', 'benchmarks/finetune_demo.py', *(argv if argv is not None else sys.argv[1:])]),
               commands={k: ' '.join(['python3', *c[1:]]) for k, c in cmds.items()}, released=str(released),
               provenance=provenance(['python3', 'benchmarks/finetune_demo.py', *(argv if argv is not None else sys.argv[1:])]),
               before=dict(tau_pooled=s.get('tau_start_pooled'), tau_prompt_mean=s.get('tau_start_prompt_mean')),
               after=dict(tau_pooled=s.get('tau_pooled'), tau_prompt_mean=s.get('tau_prompt_mean'), speedup=s.get('speedup')),
               steps=s.get('step'), drafter=s.get('drafter'), dry=a.dry)
    (out / 'record.json').write_text(json.dumps(rec, indent=1) + '\n')
    b, f = rec['before'], rec['after']
    print(f"tau on held-out programming prompts: before {b['tau_pooled']:.3f} pooled ({b['tau_prompt_mean']:.3f} per-prompt mean), "
          f"after {rec['steps']} steps of fine-tuning {f['tau_pooled']:.3f} pooled ({f['tau_prompt_mean']:.3f}); {out / 'record.json'}")
    return 0

if __name__ == '__main__': sys.exit(main())
