"""A stand-in for Ascend's `torch_npu`, put on PYTHONPATH only for cases with "npu_platform": true.

verl decides "this process runs on Ascend" by `import torch_npu` succeeding and
`torch.npu.is_available()` (0.5-0.8: verl/utils/device.py is_torch_npu_available; 0.9:
verl/plugin/platform/platform_npu.py PlatformNPU.is_platform_available). This module makes
both true and nothing else: it has no kernels, and no code path that places placement groups
calls into it.
"""

import sys
import types

import torch

npu = types.ModuleType("torch_npu.npu")
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

sys.modules["torch_npu.npu"] = npu
torch.npu = npu
__version__ = "0.0.0+stand-in"
