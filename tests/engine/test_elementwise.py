"""Vectorised element-wise ops: CuPy kernels equal NumPy bit for bit; NumPy path is plain NumPy."""
import numpy as np
import pytest

from gpubatch.engine.elementwise import BINARY, UNARY, binary, unary


def test_numpy_path_is_numpy():
    a = np.arange(8, dtype=np.float32) + 1
    np.testing.assert_array_equal(binary("add", a, a), a + a)
    np.testing.assert_array_equal(unary("sqrt", a), np.sqrt(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.uint32])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_gpu_equals_numpy(op, dtype):
    import cupy

    if op == "xor" and dtype == np.float32:
        pytest.skip("xor is for integers")
    rng = np.random.default_rng(0)
    for n in (1 << 20, 1000, 7):  # vector path and fallbacks for sizes that are not 16-byte multiples
        a = (rng.random(n) * 200).astype(dtype)
        b = (rng.random(n) * 50).astype(dtype)
        got = cupy.asnumpy(binary(op, cupy.asarray(a), cupy.asarray(b)))
        np.testing.assert_array_equal(got, BINARY[op][1](a, b))


@pytest.mark.gpu
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_gpu_matches_numpy(op):
    import cupy

    a = (np.random.default_rng(1).random(1 << 20) * 4).astype(np.float32)
    got = cupy.asnumpy(unary(op, cupy.asarray(a)))
    want = UNARY[op][1](a)
    if op == "square":
        np.testing.assert_array_equal(got, want)
    else:  # sqrtf/expf on the GPU are within 2 ulp of the host libm
        np.testing.assert_allclose(got, want, rtol=3e-7)
