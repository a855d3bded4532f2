"Makes torchvision, torchaudio and torchcodec look not installed to this Python process (see tools/vllm_check.py)."
import importlib.abc, importlib.util, sys

_HIDDEN = ('torchvision', 'torchaudio', 'torchcodec')
_find_spec = importlib.util.find_spec

def _hidden(name) -> bool: return name.split('.')[0] in _HIDDEN

class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if _hidden(name): raise ModuleNotFoundError(f"No module named {name!r} (hidden by tools/vllm_hide)", name=name)
        return None

if not any(isinstance(f, _Hide) or type(f).__name__ == '_Hide' for f in sys.meta_path):
    importlib.util.find_spec = lambda name, package=None: None if _hidden(name) else _find_spec(name, package)
    sys.meta_path.insert(0, _Hide())
