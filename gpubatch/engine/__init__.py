"""The batch engine: device selection, backends, memory cache, batch sizing, executor, runners, stats.

It knows nothing of the jobs (analyze, run-batt, bench); they depend on it, never the reverse.
"""
from .backend import Backend, DeviceUnavailable, GpuInfo, Selection, numpy_backend, probe_cuda, select_device
from .batch import EngineSettings, run_batch
from .executor import BatchExecutor
from .ops import BatchOp, ItemFailure
from .stats import OpStats, StatsCollector
from .timeline import Timeline

__all__ = ["Backend", "BatchExecutor", "BatchOp", "DeviceUnavailable", "EngineSettings", "GpuInfo",
           "ItemFailure", "OpStats", "Selection", "StatsCollector", "numpy_backend", "probe_cuda",
           "Timeline", "run_batch", "select_device"]
