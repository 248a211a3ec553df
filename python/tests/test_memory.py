"""Zero copy both ways, and no reference or memory leaks over many calls."""
import gc
import sys

import numpy as np
import pytest

import alibi_explorer as ax


def test_result_views_core_memory():
    b = ax.bias(heads=4, seq=8)
    base = b.base
    assert isinstance(base, ax.Tensor)
    assert base.shape == (4, 8, 8) and base.dtype == "f32" and base.nbytes == b.nbytes
    assert base.metadata["heads"] == "4"
    # The buffer protocol of the core object exposes the very same memory...
    view = np.asarray(base)
    assert np.shares_memory(view, b)
    # ...so a write through the array is visible through the core object, and vice versa.
    b[1, 2, 3] = 42.0
    assert view[1, 2, 3] == 42.0 and memoryview(base)[1, 2, 3] == 42.0
    view[0, 0, 0] = -7.0
    assert b[0, 0, 0] == -7.0
    assert b.flags.writeable and b.flags.c_contiguous and not b.flags.owndata


@pytest.mark.parametrize("fn", [lambda: ax.attention(heads=2, seq=8), lambda: ax.slopes(6)])
def test_every_array_is_a_core_view(fn):
    a = fn()
    assert isinstance(a.base, ax.Tensor) and np.shares_memory(a, np.asarray(a.base))


def test_bf16_is_bits_and_f16_is_half():
    assert ax.bias(heads=2, seq=4, dtype="bf16").dtype == np.uint16
    assert ax.bias(heads=2, seq=4, dtype="f16", mask="min").dtype == np.float16


def test_memory_outlives_dropped_references():
    b = ax.bias(heads=2, seq=4)
    expected = b.copy()
    del b  # the view keeps the base alive
    view = ax.bias(heads=2, seq=4)[1:]
    gc.collect()
    assert np.array_equal(view, expected[1:])


def test_input_read_in_place_when_layout_allows():
    a = ax.bias(heads=8, seq=16)
    assert ax.diagnose(a).borrowed
    assert ax.diagnose(memoryview(a)).borrowed             # buffer protocol
    class WithArray:                                          # __array__ only
        def __array__(self, dtype=None):
            return a
    assert ax.diagnose(WithArray()).borrowed
    # A transposed view or big-endian data is copied once, and gives the same answer.
    swapped = a.astype(">f4")
    d = ax.diagnose(swapped)
    assert not d.borrowed and d.to_dict() == ax.diagnose(a).to_dict()
    strided = np.ascontiguousarray(a.transpose(1, 2, 0)).transpose(2, 0, 1)
    d = ax.diagnose(strided)
    assert not d.borrowed and d.match == ax.diagnose(a).match


def test_dlpack_input():
    a = ax.bias(heads=4, seq=8)
    class OnlyDlpack:
        def __dlpack__(self, stream=None):
            return a.__dlpack__()
        def __dlpack_device__(self):
            return a.__dlpack_device__()
    if not hasattr(a, "__dlpack__"):
        pytest.skip("this NumPy has no DLPack")
    assert ax.diagnose(OnlyDlpack()).match["scheme"] == "press"


def test_no_reference_leaks():
    base = ax.bias(heads=2, seq=4).base
    assert sys.getrefcount(base) == 2  # `base` and getrefcount's argument: the array is gone
    session = ax.Session(heads=3)
    before = sys.getrefcount(session)
    for _ in range(200):
        ax.bias(session=session, seq=5)
        try:
            ax.bias(session=session, mode="nope")
        except ValueError:
            pass
    assert sys.getrefcount(session) == before
    gc.collect()
    objects = len(gc.get_objects())
    for _ in range(2000):
        ax.bias(heads=2, seq=4)
        ax.slopes(3)
        ax.diagnose(np.zeros((2, 4, 4), np.float32))
        try:
            ax.stats(heads=0)
        except ValueError:
            pass
    gc.collect()
    assert len(gc.get_objects()) - objects < 100


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def test_no_memory_leak_over_many_large_calls():
    for _ in range(5):
        ax.bias(heads=8, seq=512)  # 8 MiB each
    start = rss_mib()
    for _ in range(300):          # 2.4 GiB allocated in all
        a = ax.bias(heads=8, seq=512)
        d = ax.diagnose(a[:, :64, :64].copy())
        del a, d
    assert rss_mib() - start < 64
