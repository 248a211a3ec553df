"""Errors, the GIL, progress and cancellation, sessions, and the documentation."""
import inspect
import json
import threading
import time

import numpy as np
import pytest

import alibi_explorer as ax


@pytest.mark.parametrize("kwargs, named", [
    (dict(heads=0), "heads"), (dict(heads=5000), "heads"), (dict(heads=2.5), "heads"), (dict(heads="8"), "heads"),
    (dict(seq=0), "seq"), (dict(keys=-1), "keys"), (dict(mode="sideways"), "mode"), (dict(mask="maybe"), "mask"),
    (dict(mask=float("nan")), "mask"), (dict(dtype="f8"), "dtype"), (dict(layout="khq"), "layout"),
    (dict(scheme="alibi2"), "scheme"), (dict(max_bias=float("inf")), "max_bias"), (dict(slopes=[0.5, -1]), "slopes"),
    (dict(slopes=[]), "slopes"), (dict(heads=3, slopes=[0.5, 0.25]), "heads"), (dict(arith="fast"), "arith"),
    (dict(max_memory=0), "max_memory"), (dict(threads=-1), "threads"),
])
def test_bad_bias_argument_raises_value_error_naming_it(kwargs, named):
    with pytest.raises(ValueError, match=named):
        ax.bias(**kwargs)


@pytest.mark.parametrize("kwargs, named", [
    (dict(content="image"), "content"), (dict(sigma=-1), "sigma"), (dict(dk=0), "dk"), (dict(temperature=0), "temperature"),
    (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"),
])
def test_bad_attention_argument(kwargs, named):
    with pytest.raises(ValueError, match=named):
        ax.attention(**kwargs)


@pytest.mark.parametrize("kwargs, named", [
    (dict(what="pie"), "what"), (dict(head=8), "head"), (dict(colormap="jet"), "colormap"), (dict(scale="log"), "scale"),
    (dict(width=3), "width"), (dict(height=100000), "height"), (dict(query=16), "query"),
])
def test_bad_render_argument(kwargs, named):
    with pytest.raises(ValueError, match=named):
        ax.render(**kwargs)


def test_other_errors():
    with pytest.raises(TypeError):
        ax.bias(colour="red")                         # not a keyword at all
    with pytest.raises(MemoryError, match="budget"):
        ax.bias(heads=64, seq=8192, max_memory=1 << 20)
    with pytest.raises(FileNotFoundError):
        ax.diagnose("/nonexistent/bias.npy")
    with pytest.raises(IsADirectoryError):
        ax.diagnose("/tmp")
    with pytest.raises(ValueError, match="dtype"):
        ax.diagnose(np.zeros((2, 4, 4), np.int32))
    with pytest.raises(ValueError, match="empty"):
        ax.diagnose(np.zeros((0,), np.float32))
    with pytest.raises(TypeError):
        ax.diagnose(object())


def test_bad_file_content_is_value_error(tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(ValueError, match="bad.npy"):
        ax.diagnose(bad)


def test_accepted_spellings():
    assert ax.bias(mask=float("-inf")).min() == -np.inf
    assert ax.bias(mask=-1000)[0, 0, 1] == -1000
    assert ax.bias(dtype=np.float16, mask="min").dtype == np.float16
    assert ax.bias(heads=np.int64(4)).shape == (4, 16, 16)
    assert ax.bias(heads=4.0).shape == (4, 16, 16)
    assert ax.bias(arith="exact").dtype == np.float32


def test_long_call_releases_the_gil():
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.05)
        start = time.perf_counter()
        ax.attention(heads=8, seq=1024, content="qk", dk=512, threads=1)
        end = time.perf_counter()
    finally:
        stop.set()
        t.join()
    inside = [x for x in ticks if start + 0.02 < x < end - 0.02]
    assert end - start > 0.1, "the call was too short to tell"
    # Were the GIL held, the spinning thread could not run at all inside the call; released, it
    # ticks about once a millisecond (at least 10 times, even on a loaded machine).
    assert len(inside) >= 10, (len(inside), end - start)


def test_progress_is_reported_and_cancels():
    calls = []
    ax.attention(heads=4, seq=512, content="qk", dk=256, threads=1, progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1] and all(d <= t for d, t in calls)
    with pytest.raises(ax.Cancelled):
        ax.attention(heads=4, seq=512, content="qk", dk=256, threads=1, progress=lambda d, t: False)
    with pytest.raises(ax.Cancelled):
        ax.stats(heads=4, seq=256, content="qk", progress=lambda d, t: False)

    class Boom(Exception):
        pass

    def raising(done, total):
        raise Boom("from the callback")
    with pytest.raises(Boom):
        ax.attention(heads=4, seq=256, progress=raising)
    calls.clear()
    ax.bias(heads=2, seq=8, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1]


def test_session_round_trip(tmp_path, source_dir):
    for path in sorted((source_dir / "assets" / "sessions").glob("*.alibi.json")):
        s = ax.Session.load(str(path))
        out = tmp_path / path.name
        s.save(str(out))
        # The file is what the core's serializeSession writes, i.e. what both GUIs' Save writes.
        assert out.read_text() == s.to_json()
        assert ax.Session.load(str(out)) == s
        assert ax.Session.from_dict(s.to_dict()) == s
        assert s.to_dict() == json.loads(out.read_text())
    s = ax.Session(heads=12, seq=64, mode="bloom", colormap="magma")
    d = s.to_dict()
    assert d["bias"]["heads"] == 12 and d["bias"]["mode"] == "bloom" and d["view"]["colormap"] == "magma"
    assert s.replace(seq=128).to_dict()["bias"]["queries"] == 128 and s.to_dict()["bias"]["queries"] == 64
    assert "--heads 12" in s.cli_command()


def test_session_is_the_config(cli, tmp_path, source_dir):
    path = source_dir / "assets" / "sessions" / "mpt-7b.alibi.json"
    out = tmp_path / "b.npy"
    cli("bias", "--config", path, "--seq", 24, "-o", out)
    mine = ax.bias(session=ax.Session.load(str(path)), seq=24)
    assert mine.tobytes() == np.load(out).tobytes()


def test_bad_session_file_names_the_field(tmp_path):
    p = tmp_path / "bad.alibi.json"
    p.write_text('{"version": 1, "bias": {"mode": "sideways"}}')
    with pytest.raises(ValueError, match="bias.mode"):
        ax.Session.load(str(p))
    with pytest.raises(OSError):
        ax.Session.load(str(tmp_path / "missing.alibi.json"))


@pytest.mark.parametrize("name", ["slopes", "bias", "attention", "stats", "diagnose", "render", "Session", "Diagnosis",
                                  "Stats", "Figure", "Tensor"])
def test_public_names_have_docstrings_with_an_example(name):
    doc = inspect.getdoc(getattr(ax, name))
    assert doc and "Example" in doc and ">>>" in doc


def test_stubs_cover_the_public_api():
    import pathlib
    stub = (pathlib.Path(ax.__file__).parent / "__init__.pyi").read_text()
    for name in ax.__all__:
        if name != "__version__":
            assert f"def {name}(" in stub or f"class {name}" in stub, name
    assert (pathlib.Path(ax.__file__).parent / "py.typed").exists()


def test_jupyter_reprs():
    """Issue 28: nbconvert --execute needs SVG without an XML declaration; Stats shows a table;
    the module's namespace holds no `annotations` (from a __future__ import)."""
    svg = ax.render(heads=12, what="slopes")._repr_svg_()
    assert svg.startswith("<svg")
    html = ax.stats(heads=4, seq=32)._repr_html_()
    assert html.startswith("<table") and html.count("<tr>") == 1 + 4  # header and one row per head
    assert "annotations" not in dir(ax)


def test_render_names_every_view():
    views = ["bias", "attention", "slopes", "distance", "attention-distance", "schemes", "slope-schemes", "stages",
             "extrapolation", "compare", "overview", "similarity", "fit", "row"]
    with pytest.raises(ValueError) as error:
        ax.render(what="nope")
    for view in views:
        assert view in str(error.value)
