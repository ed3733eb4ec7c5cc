"""Connected components on the CPU: the array-module labelling (the path without SciPy, and CuPy's without
the kernel) equals SciPy's, for every connectivity, with and without colours mixed and the background."""
import numpy as np
import pytest

from gpubatch.arc.grids import GridBatch
from gpubatch.arc.kernels import background
from gpubatch.arc.labels import label_scipy, label_xp

from .corpus import arc_grids, as_lists, random_grids


@pytest.fixture(scope="module")
def grids():
    return GridBatch.from_lists(as_lists(arc_grids()[::25] + random_grids()[::5]))


@pytest.mark.parametrize("conn8", [False, True])
@pytest.mark.parametrize("univalued", [False, True])
@pytest.mark.parametrize("exclude_bg", [False, True])
def test_array_labelling_equals_scipy(grids, conn8, univalued, exclude_bg):
    excl = background(grids) if exclude_bg else np.full(len(grids), -1, np.int32)
    want = label_scipy(grids, excl, conn8, univalued)
    got = label_xp(grids, excl, conn8, univalued)
    np.testing.assert_array_equal(got, want)
    assert (want >= 0).any() and (want == -1).any()
