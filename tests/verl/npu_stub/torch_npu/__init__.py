"""A stand-in for Ascend's `torch_npu`, put on PYTHONPATH only for cases with "npu_platform": true.

verl decides "this process runs on Ascend" by `import torch_npu` succeeding and
`torch.npu.is_available()` (0.5-0.8: verl/utils/device.py is_torch_npu_available; 0.9:
verl/plugin/platform/platform_npu.py PlatformNPU.is_platform_available). This module makes
both true. On NPU, verl also imports Ascend kernels and profiler modules by name at import
time (verl/models/transformers/npu_patch.py `from torch_npu import npu_rotary_mul`,
verl/utils/profiler/mstx_profile.py `from torch_npu.npu import mstx`): any such name resolves
here to a stand-in that raises when called. They are only called inside workers, which the
harness never starts; no code path that creates placement groups calls them.
"""

import sys
import types

import torch


class _StandIn(types.ModuleType):
    """Any attribute is another stand-in; calling one raises: there are no NPU kernels here."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        sub = _StandIn(f"{self.__name__}.{name}")
        setattr(self, name, sub)
        return sub

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self.__name__}: the torch_npu stand-in has no NPU kernels")


npu = _StandIn("torch_npu.npu")
npu.is_available = lambda: True
npu.device_count = lambda: 8
npu.current_device = lambda: 0
npu.set_device = lambda *a, **k: None
npu.synchronize = lambda *a, **k: None
npu.manual_seed = lambda *a, **k: None
npu.manual_seed_all = lambda *a, **k: None
npu.empty_cache = lambda *a, **k: None
npu.get_device_name = lambda *a, **k: "Ascend (stand-in, tests/verl/npu_stub)"
npu.is_bf16_supported = lambda *a, **k: True
npu.get_device_capability = lambda *a, **k: None  # what torch_npu returns where it has none
sys.modules["torch_npu.npu"] = npu
torch.npu = npu

__version__ = "0.0.0+stand-in"
_self = _StandIn(__name__)
_self.__dict__.update({k: v for k, v in globals().items() if k not in ("__builtins__", "__name__")})
sys.modules[__name__] = _self
