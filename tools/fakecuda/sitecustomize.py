# FAKE_CUDA=1 with this folder on PYTHONPATH: every Python process believes one CUDA device is present, so an
# unflagged test that would move work to a GPU on a GPU machine fails here loudly ("Torch not compiled with CUDA").
import os
if os.environ.get('FAKE_CUDA'):
    import torch
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
# Usage, from nbs/: FAKE_CUDA=1 PYTHONPATH=../tools/fakecuda nbdev_test --path NAME.ipynb   (subprocesses inherit both)
