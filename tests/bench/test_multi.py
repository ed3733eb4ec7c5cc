"""The N-devices-at-once workers of `bench --gpus N`, driven here with NumPy workers (the protocol, not speed)."""
import dataclasses

import pytest

from gpubatch.bench.cases import all_cases
from gpubatch.bench.multi import DeviceWorkers


def _case(name):
    return next(c for c in all_cases() if c.name == name)


def test_workers_are_started_once_and_time_one_and_all():
    with DeviceWorkers(2, "cpu", min_s=0.05) as w:
        procs = list(w.procs)
        for name in ("add_f32", "arc_rot90"):
            one, both = w.run(_case(name), 64, 2, 1), w.run(_case(name), 64, 2, 2)
            assert (one.device, both.device) == ("cpu:0-0", "cpu:0-1")
            assert one.items % (64 * 2) == 0 and both.items % (64 * 2) == 0 and both.items >= 64 * 2 * 2
            assert one.samples[0] >= 0.05 and both.samples[0] >= 0.05 and both.mode == "multi_gpu"
        assert w.procs == procs  # the same two processes served every case
    assert not any(p.is_alive() for p in procs)


def test_a_failing_case_is_raised_and_the_workers_go_on():
    bad = dataclasses.replace(_case("add_f32"), name="no_such_case")
    with DeviceWorkers(2, "cpu", min_s=0.05) as w:
        with pytest.raises(RuntimeError, match="device 0: KeyError"):
            w.run(bad, 8, 1, 2)
        assert w.run(_case("xor_u8"), 8, 1, 2).samples[0] > 0
        procs = list(w.procs)
    assert not any(p.is_alive() for p in procs)


@pytest.mark.gpu
def test_every_gpu_runs_the_case_at_once():
    from gpubatch.engine import probe_cuda

    n = len(probe_cuda().gpus)
    if n < 2:
        pytest.skip("needs at least 2 GPUs")
    with DeviceWorkers(n, "cuda") as w:
        one, every = w.run(_case("add_f32"), 256, 3, 1), w.run(_case("add_f32"), 256, 3, n)
    assert every.device == f"cuda:0-{n - 1}" and one.samples[0] >= 0.5 and every.samples[0] >= 0.5
    assert every.items_per_s > one.items_per_s  # n cards at once do more than one (not a speed target)
