"""A stand-in for the few PyTorch calls bench/gpu_baselines.py makes, on NumPy, so that its
measuring path (inputs, reference, check, timing loop, reports) runs on a machine without PyTorch
or a GPU. Only for bench/tests/test_gpu_baselines.py; the "device" is the CPU and the times are
host times. FAKE_TORCH_CORRUPT=<op kind> makes that operator's float32 results wrong.
"""

import os
import time
import types

import numpy as np

__version__ = "0.0-fake"
version = types.SimpleNamespace(cuda="13.0-fake")
float32, float64 = np.float32, np.float64


class Tensor:
    def __init__(self, array):
        self.a = np.asarray(array)

    shape = property(lambda self: tuple(self.a.shape))

    def _wrap(self, other):
        return other.a if isinstance(other, Tensor) else other

    def __mul__(self, other):
        return Tensor(self.a * self._wrap(other))

    def __add__(self, other):
        return Tensor(self.a + self._wrap(other))

    def __sub__(self, other):
        return Tensor(self.a - self._wrap(other))

    def __truediv__(self, other):
        return Tensor(self.a / self._wrap(other))

    def __le__(self, other):
        return Tensor(self.a <= self._wrap(other))

    def __eq__(self, other):
        return Tensor(self.a == self._wrap(other))

    def __or__(self, other):
        return Tensor(self.a | self._wrap(other))

    __rmul__, __radd__ = __mul__, __add__

    def __bool__(self):
        return bool(self.a)

    def all(self):
        return Tensor(self.a.all())

    def max(self):
        return Tensor(self.a.max())

    def item(self):
        return self.a.item()

    def abs(self):
        return Tensor(np.abs(self.a))

    def double(self):
        return Tensor(self.a.astype(np.float64))

    def detach(self):
        return self

    def to(self, device=None, dtype=None):
        return Tensor(self.a.astype(dtype) if dtype is not None else self.a.copy())

    def reshape(self, *shape):
        return Tensor(self.a.reshape(shape))

    def transpose(self, first, second):
        return Tensor(np.swapaxes(self.a, first, second))

    def clamp_min(self, low):
        return Tensor(np.maximum(self.a, low))

    def fill_(self, value):
        self.a.fill(value)
        return self


class Generator:
    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)
        return self


def rand(shape, generator=None, dtype=np.float32):
    return Tensor(generator.rng.random(shape).astype(dtype))


def empty(count, dtype=np.float32, device=None):
    return Tensor(np.empty(count, dtype=dtype))


def relu(x):
    return Tensor(np.maximum(x.a, 0))


def _corrupt(kind, out):
    if os.environ.get("FAKE_TORCH_CORRUPT") == kind and out.dtype == np.float32:
        out = out.copy()
        out.flat[0] += 1.0
    return out


def matmul(a, b):
    return Tensor(_corrupt("dense", np.matmul(a.a, b.a)))


def _conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x, w = x.a, w.a
    n, c, h, width = x.shape
    k, cg, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - dilation * (r - 1) - 1) // stride + 1
    ow = (width + 2 * padding - dilation * (s - 1) - 1) // stride + 1
    out = np.zeros((n, k, oh, ow), dtype=x.dtype)
    kg = k // groups
    for g in range(groups):
        for i in range(r):
            for j in range(s):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                           j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
                out[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch,
                                                         w[g * kg:(g + 1) * kg, :, i, j])
    if bias is not None:
        out += bias.a.reshape(1, k, 1, 1)
    return Tensor(_corrupt("conv2d", out))


def _linear(x, w, bias=None):
    out = np.matmul(x.a, w.a.T)
    if bias is not None:
        out = out + bias.a
    return Tensor(_corrupt("dense", out))


nn = types.SimpleNamespace(functional=types.SimpleNamespace(conv2d=_conv2d, linear=_linear))
backends = types.SimpleNamespace(
    cudnn=types.SimpleNamespace(benchmark=False, allow_tf32=True, version=lambda: 0),
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)))


class _Event:
    def __init__(self, enable_timing=False):
        self.t = 0.0

    def record(self):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3  # milliseconds, as CUDA events


cuda = types.SimpleNamespace(
    is_available=lambda: True, synchronize=lambda: None, Event=_Event, _sleep=lambda cycles: None,
    get_device_properties=lambda index: types.SimpleNamespace(
        name="Fake GPU", major=9, minor=0, multi_processor_count=2, total_memory=1 << 30,
        L2_cache_size=1 << 20))
