# FAKE_CUDA=1 with this folder on PYTHONPATH: every Python process believes one CUDA device is present, so an
# unflagged test that would move work to a GPU on a GPU machine fails here loudly ("Torch not compiled with CUDA").
import os
if os.environ.get('FAKE_CUDA') and os.environ.get('CUDA_VISIBLE_DEVICES', None) != '':   # '' hides every GPU, as on a real one
    import torch
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
    # torch.compile saves and restores the CUDA RNG around each compile when CUDA is available: stand-ins (state on the host)
    torch.cuda.get_rng_state = lambda device='cuda': torch.get_rng_state()
    torch.cuda.set_rng_state = lambda new_state, device='cuda': None
    torch.cuda.get_device_name = lambda device=None: 'fake CUDA device'   # inductor names the devices in its repro comment
# Usage, from nbs/: FAKE_CUDA=1 PYTHONPATH=../tools/fakecuda nbdev_test --path NAME.ipynb   (subprocesses inherit both)
