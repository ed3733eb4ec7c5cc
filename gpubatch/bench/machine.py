"""What the benchmark ran on, and the hardware's own limits: theoretical and measured memory bandwidth,
FP32 peak from SM count and clock. Figures are read from the device, never typed in."""
from __future__ import annotations

import os
import platform
from dataclasses import asdict, dataclass

import numpy as np

# FP32 lanes per SM by compute capability (NVIDIA CUDA C Programming Guide, "Arithmetic Instructions").
_FP32_PER_SM = {"7.0": 64, "7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128,
                "10.0": 128, "12.0": 128}


@dataclass(frozen=True)
class GpuPeaks:
    name: str
    sm_count: int
    clock_mhz: float
    mem_clock_mhz: float
    bus_bits: int
    theoretical_gbs: float
    measured_copy_gbs: float
    fp32_tflops: float
    matmul_tflops: float


_ATTR_IDS = {"cudaDevAttrClockRate": 13, "cudaDevAttrMemoryClockRate": 36, "cudaDevAttrGlobalMemoryBusWidth": 37}


def _attr(rt, name: str, dev: int) -> int:
    """A device attribute (CUDA 13 dropped clock rates from cudaDeviceProp; the attribute API has them)."""
    return int(rt.deviceGetAttribute(getattr(rt, name, _ATTR_IDS[name]), dev))


def gpu_peaks(dev: int = 0) -> GpuPeaks:
    """Read clocks and bus width from the device; time a 1 GiB device-to-device copy and a matmul."""
    import cupy

    rt = cupy.cuda.runtime
    with cupy.cuda.Device(dev):
        props = rt.getDeviceProperties(dev)
        sms = int(props["multiProcessorCount"])
        clock = _attr(rt, "cudaDevAttrClockRate", dev) / 1e3  # kHz -> MHz
        mem_clock = _attr(rt, "cudaDevAttrMemoryClockRate", dev) / 1e3
        bus = _attr(rt, "cudaDevAttrGlobalMemoryBusWidth", dev)
        cc = f"{props['major']}.{props['minor']}"
        theoretical = 2 * mem_clock * 1e6 * bus / 8 / 1e9  # double data rate
        n = 1 << 30
        src = cupy.ones(n, cupy.uint8)
        dst = cupy.empty_like(src)
        copy_s = device_time(lambda: dst.__setitem__(slice(None), src), repeats=20)
        measured = 2 * n / copy_s / 1e9  # bytes read + bytes written
        del src, dst
        a = cupy.random.random((8192, 8192), dtype=cupy.float32)
        mm_s = device_time(lambda: a @ a, repeats=10)
        mm = 2 * 8192**3 / mm_s / 1e12
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    fp32 = sms * _FP32_PER_SM.get(cc, 128) * 2 * clock * 1e6 / 1e12
    return GpuPeaks(name, sms, clock, mem_clock, bus, theoretical, measured, fp32, mm)


def device_time(fn, repeats: int = 10, warmup: int = 2) -> float:
    """Median seconds of `fn` on the current GPU, timed with CUDA events after warm-up."""
    import cupy

    from .runner import timed

    return float(np.median(timed(fn, cupy, repeats, warmup)))


def describe(gpus: int = 0) -> dict:
    """Machine description for the JSON report."""
    out = {"python": platform.python_version(), "numpy": np.__version__, "cpu_count": os.cpu_count(),
           "platform": platform.platform(), "processor": platform.processor() or platform.machine()}
    if gpus:
        import cupy

        rt = cupy.cuda.runtime
        out.update(cupy=cupy.__version__, driver=rt.driverGetVersion(), cuda_runtime=rt.runtimeGetVersion(),
                   gpus=[asdict(gpu_peaks(i)) for i in range(min(gpus, rt.getDeviceCount()))])
    return out
