"""ALiBi Explorer from Python: the same core as the ``alibi`` CLI and the explorers.

Build biases and attention as NumPy arrays (no copies: each array views memory the core
computed), diagnose a bias tensor taken from a model, render head grids inline in a notebook,
and read or write the session files the GUIs use. Keywords, defaults and errors are the CLI's:
``max_bias`` is ``--max-bias``, a keyword left at ``None`` takes the CLI's default (or the
``session``'s value), and a bad value raises ``ValueError`` naming the keyword.

Example:
    >>> import alibi_explorer as ax
    >>> b = ax.bias(heads=8, seq=128)                 # (8, 128, 128) float32, causal, mask -1e9
    >>> ax.diagnose(b).match["scheme"]
    'press'
    >>> ax.render(heads=12, seq=64)                   # a head grid, shown inline in Jupyter

Long calls release the GIL and take ``progress=callback(done, total)``; returning ``False``
from the callback raises ``Cancelled``. Ctrl-C (a notebook's interrupt) stops them too.
"""

from __future__ import annotations

import json as _json
import os as _os
import errno as _errno

import numpy as _np

from . import _core
from ._core import Cancelled, Session, Tensor

__version__ = _core.__version__
__all__ = [
    "slopes", "bias", "attention", "stats", "diagnose", "render",
    "Session", "Tensor", "Diagnosis", "Stats", "Figure", "Cancelled", "__version__",
]


def _options(**given):
    """The keywords the caller set (None means: the session's value, or the CLI's default)."""
    return {k: v for k, v in given.items() if v is not None}


def _session_dict(session: Session) -> dict:
    return _json.loads(session.to_json())


Session.to_dict = lambda self: _session_dict(self)
Session.to_dict.__doc__ = """The session document as a dict (the JSON save() writes).

Example:
    >>> alibi_explorer.Session(heads=4).to_dict()["bias"]["heads"]
    4
"""
Session.from_dict = staticmethod(lambda d: Session.from_json(_json.dumps(d)))
Session.from_dict.__doc__ = """A session from a dict shaped like to_dict()'s (missing fields keep their defaults).

Example:
    >>> alibi_explorer.Session.from_dict({"version": 1, "bias": {"heads": 4}}).to_dict()["bias"]["heads"]
    4
"""


# ---------------------------------------------------------------------------
# Tensors

def slopes(heads=None, *, scheme=None, max_bias=None, slopes=None, dtype=None, session=None):
    """Per-head ALiBi slopes as an (H,) array, each rounded once to ``dtype``.

    Keywords (CLI defaults): heads=8, scheme="press" (press, geometric, linear, custom),
    max_bias=8.0, slopes=None (a list of custom slopes; implies scheme="custom"), dtype="f32"
    (f32, f64, f16, bf16; bf16 comes back as uint16 bit patterns). The values equal
    ``alibi slopes --heads H -o slopes.npy``.

    Example:
        >>> alibi_explorer.slopes(8)
        array([0.5       , 0.25      , 0.125     , 0.0625    , 0.03125   ,
               0.015625  , 0.0078125 , 0.00390625], dtype=float32)
    """
    return _core.slopes(session, _options(heads=heads, scheme=scheme, max_bias=max_bias, slopes=slopes, dtype=dtype))


def bias(heads=None, seq=None, keys=None, *, mode=None, mask=None, dtype=None, layout=None, scheme=None,
         max_bias=None, slopes=None, arith=None, max_memory=None, session=None, threads=None, progress=None):
    """The ALiBi bias tensor, as ``alibi bias`` exports it (bit for bit).

    Keywords (CLI defaults): heads=8, seq=16 (queries Q), keys=None (= seq; query i sits at
    position i + K - Q), mode="causal" (causal, symmetric, clamped, bloom, mpt),
    mask="-1e9" ("-inf", "min", or any finite number), dtype="f32" (f32, f64, f16, bf16 as
    uint16 bits), layout="hqk" (hqk, qkh, 1hqk, flat), scheme/max_bias/slopes as in slopes(),
    arith="exact" (or a framework's float arithmetic: hf-bloom, hf-falcon, llm-foundry, fairseq,
    ggml, as ``--arith``), max_memory=2 GiB (bytes), threads=0 (every core), session=None (start from a
    Session, like --config), progress=None (callback(done, total)).

    The array views memory the core owns: ``b.base`` is an ``alibi_explorer.Tensor``.

    Example:
        >>> b = alibi_explorer.bias(heads=8, seq=128, mode="bloom", dtype="bf16")
        >>> b.shape, b.dtype
        ((8, 128, 128), dtype('uint16'))
    """
    opts = _options(heads=heads, seq=seq, keys=keys, mode=mode, mask=mask, dtype=dtype, layout=layout,
                    scheme=scheme, max_bias=max_bias, slopes=slopes, arith=arith, max_memory=max_memory)
    return _core.bias(session, opts, threads, progress)


def attention(heads=None, seq=None, keys=None, *, content=None, seed=None, sigma=None, dk=None, temperature=None,
              mode=None, mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None, arith=None,
              max_memory=None, session=None, threads=None, progress=None):
    """Attention probabilities softmax((content + bias) / temperature), as ``alibi attention`` exports them.

    Keywords (CLI defaults): those of bias(), plus content="zero" (zero, gaussian, qk), seed=0,
    sigma=1.0 (gaussian content), dk=64 (qk content), temperature=1.0.

    Example:
        >>> p = alibi_explorer.attention(heads=4, seq=64, content="qk", seed=1)
        >>> bool(abs(p[0, -1].sum() - 1) < 1e-5)
        True
    """
    opts = _options(heads=heads, seq=seq, keys=keys, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, max_memory=max_memory)
    return _core.attention(session, opts, threads, progress)


# ---------------------------------------------------------------------------
# Reports

class _Report:
    """A report whose fields mirror the CLI's JSON and whose str() is the CLI's text."""

    def __init__(self, text: str, json_text: str):
        self._text = text
        self._json = json_text
        self._dict = _json.loads(json_text)

    def to_dict(self) -> dict:
        """The CLI's JSON document as a dict (a fresh copy)."""
        return _json.loads(self._json)

    def to_json(self) -> str:
        """The CLI's JSON document, byte for byte (``--format json``)."""
        return self._json

    def __getattr__(self, name):
        fields = self.__dict__.get("_dict", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"{type(self).__name__} has no field '{name}' (fields: {', '.join(fields)})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._dict))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text.rstrip("\n")


class Diagnosis(_Report):
    """Which ALiBi parameters reproduce a tensor, and which known bug it shows.

    Fields mirror ``alibi diagnose --format json``: file, shape, layout, heads, queries, keys,
    dtype, match (scheme, max_bias, mode, mask, slopes; or None), max_abs_error, findings (bug
    codes), finding_details, findings_detail (per finding: code, changes_attention,
    max_probability_change, informational, explanation, fix, evidence), max_probability_change,
    inferred_slopes, summary, first_mismatch. ``str()`` is the CLI's
    text report. ``borrowed`` tells whether the core read the caller's memory without a copy.

    Example:
        >>> d = alibi_explorer.diagnose(alibi_explorer.bias(heads=8, seq=32, dtype="f16"))
        >>> d.findings
        ['fp16-mask-overflow']
    """

    def __init__(self, text: str, json_text: str, borrowed: bool):
        super().__init__(text, json_text)
        self.borrowed = borrowed


class Stats(_Report):
    """Per-head attention statistics (entropy, mean distance, 50%/90% mass distances, half-life).

    Fields mirror ``alibi stats --format json``: query, query_position, rows_averaged,
    num_heads, queries, keys, mode, scheme, content, heads (one dict per head with head, slope,
    half_life, row and mean). ``str()`` is the CLI's table; ``to_csv()`` its CSV.

    Example:
        >>> s = alibi_explorer.stats(heads=8, seq=512)
        >>> len(s.heads), s.heads[0]["head"]
        (8, 0)
    """

    def __init__(self, text: str, json_text: str, csv_text: str):
        super().__init__(text, json_text)
        self._csv = csv_text

    def to_csv(self) -> str:
        """The CLI's CSV table (``--format csv``)."""
        return self._csv


def stats(heads=None, seq=None, keys=None, *, query=None, content=None, seed=None, sigma=None, dk=None,
          temperature=None, mode=None, mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None,
          arith=None, max_memory=None, session=None, threads=None, progress=None):
    """Per-head attention statistics, as ``alibi stats`` reports them; returns a Stats.

    Keywords: those of attention(), plus query=-1 (the row of the per-row figures; -1: last).

    Example:
        >>> print(alibi_explorer.stats(heads=4, seq=64))       # the CLI's table
    """
    opts = _options(heads=heads, seq=seq, keys=keys, query=query, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, max_memory=max_memory)
    return Stats(*_core.stats(session, opts, threads, progress))


def _as_array(obj):
    """A NumPy view of anything with the buffer protocol, __array__ or __dlpack__ (no copy where possible)."""
    if isinstance(obj, _np.ndarray):
        return obj
    try:
        return _np.asarray(memoryview(obj))
    except TypeError:
        pass
    if hasattr(obj, "__array__"):
        return _np.asarray(obj)
    if hasattr(obj, "__dlpack__"):
        return _np.from_dlpack(obj)
    raise TypeError(f"array must be a path, or support the buffer protocol, __array__ or __dlpack__ "
                    f"(a NumPy array, a CPU torch tensor); got {type(obj).__name__}")


def diagnose(array, *, name=None, max_memory=None):
    """Diagnose a bias tensor: which ALiBi variant it is, and which known bug it shows.

    ``array`` is a path to a .npy/.safetensors file (read as ``alibi diagnose FILE`` reads it),
    or anything with the buffer protocol, ``__array__`` or ``__dlpack__`` (NumPy, a CPU torch
    tensor): float32, float64, float16, or uint16 holding bfloat16 bits, in any layout the CLI
    recognises. A C-contiguous native array is read in place, without a copy. ``name`` is the
    ``file:`` line of the report (default: the path, or ``<array>``). Returns a Diagnosis.

    Example:
        >>> import numpy as np
        >>> d = alibi_explorer.diagnose(np.load("my_bias.npy"))
        >>> print(d)                                  # the CLI's text report
        >>> d.match, d.findings
    """
    if isinstance(array, (str, bytes, _os.PathLike)):
        path = _os.fsdecode(array)
        if not _os.path.exists(path):
            raise FileNotFoundError(_errno.ENOENT, "diagnose: no such file", path)
        if _os.path.isdir(path):
            raise IsADirectoryError(_errno.EISDIR, "diagnose: a folder; give a .npy or .safetensors file", path)
        return Diagnosis(*_core.diagnose(path, path if name is None else name, max_memory))
    return Diagnosis(*_core.diagnose(_as_array(array), "<array>" if name is None else name, max_memory))


# ---------------------------------------------------------------------------
# Figures

class Figure:
    """A rendered figure: a PNG heatmap (bias/attention) or SVG curves (slopes/distance).

    In Jupyter it displays inline (``_repr_png_`` / ``_repr_svg_``). ``save(path)`` writes it
    atomically; ``data`` holds the PNG bytes or SVG text; ``to_array()`` gives a heatmap's RGBA
    pixels as an (height, width, 4) uint8 array.

    Example:
        >>> fig = alibi_explorer.render(heads=12, seq=64)
        >>> fig.save("grid.png")
    """

    def __init__(self, kind: str, data, pixels=None):
        self.kind = kind  # "png" or "svg"
        self.data = data
        self._pixels = pixels

    def _repr_png_(self):
        return self.data if self.kind == "png" else None

    def _repr_svg_(self):
        return self.data if self.kind == "svg" else None

    def to_array(self):
        """RGBA pixels (height, width, 4) of a heatmap figure.

        Example:
            >>> alibi_explorer.render(heads=2, seq=8, width=64, height=48).to_array().shape
            (48, 64, 4)
        """
        if self._pixels is None:
            raise ValueError("curves are SVG: they have no pixels; render what='bias' or 'attention' for a heatmap")
        return self._pixels

    def save(self, path):
        """Writes the figure (a .png for heatmaps, a .svg for curves), atomically.

        Example:
            >>> alibi_explorer.render(what="slopes", heads=12).save("slopes.svg")
        """
        path = _os.fspath(path)
        ext = _os.path.splitext(path)[1].lower()
        if ext and ext != "." + self.kind:
            wanted = "heatmaps are PNG: use a .png name" if self.kind == "png" else "curves are SVG: use a .svg name"
            raise ValueError(f"path '{path}': {wanted}")
        data = self.data if isinstance(self.data, bytes) else self.data.encode("utf-8")
        _core.write_file(path, data)

    def __repr__(self):
        size = f"{len(self.data)} bytes" if self.kind == "png" else f"{len(self.data)} characters"
        return f"<alibi_explorer.Figure {self.kind}, {size}>"


def render(heads=None, seq=None, keys=None, *, what=None, head=None, colormap=None, scale=None, width=None,
           height=None, query=None, content=None, seed=None, sigma=None, dk=None, temperature=None, mode=None,
           mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None, arith=None, max_memory=None,
           session=None, threads=None, progress=None):
    """Render a figure as ``alibi render`` draws it (the same bytes); returns a Figure.

    Keywords: those of stats(), plus what="bias" (bias, attention: PNG head grid; slopes,
    distance, attention-distance: SVG curves; with a session, the session's), head=-1 (one
    head alone; curves: highlight it), colormap="viridis" (magma, cividis, diverging),
    scale="shared" (per-head), width=1024, height=768.

    Example:
        >>> alibi_explorer.render(heads=12, seq=64)                    # inline head grid
        >>> alibi_explorer.render(heads=12, what="slopes").save("slopes.svg")
    """
    curve = None
    if what == "attention-distance":
        curve, what = "attention-distance", "distance"
    if what is None and session is None:
        what = "bias"
    opts = _options(heads=heads, seq=seq, keys=keys, what=what, head=head, colormap=colormap, scale=scale,
                    width=width, height=height, query=query, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, max_memory=max_memory)
    full = (session if session is not None else Session()).replace(**opts)
    chosen = _session_dict(full)["view"]["what"]
    if chosen in ("bias", "attention"):
        png, pixels = _core.render_heatmap(full, {}, threads, progress)
        return Figure("png", png, pixels)
    return Figure("svg", _core.render_curves(full, {}, curve or chosen, progress))
