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

import html as _html
import json as _json
import os as _os
import errno as _errno

import numpy as _np

from . import _core
from ._core import Cancelled, Session, Tensor

__version__ = _core.__version__
__all__ = [
    "slopes", "bias", "attention", "stats", "diagnose", "render", "fit", "run", "loss",
    "Session", "Tensor", "Diagnosis", "Stats", "Figure", "FitTable", "Cancelled", "__version__",
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
         max_bias=None, slopes=None, arith=None, preset=None, from_config=None, lengths=None, padding=None,
         documents=None, window=None, prefix=None, positions=None, max_memory=None, session=None, threads=None,
         progress=None):
    """The ALiBi bias tensor, as ``alibi bias`` exports it (bit for bit).

    Keywords (CLI defaults): heads=8, seq=16 (queries Q), keys=None (= seq; query i sits at
    position i + K - Q), mode="causal" (causal, symmetric, clamped, bloom, mpt),
    mask="-1e9" ("-inf", "min", or any finite number), dtype="f32" (f32, f64, f16, bf16 as
    uint16 bits), layout="hqk" (hqk, qkh, 1hqk, flat), scheme/max_bias/slopes as in slopes(),
    arith="exact" (or a framework's float arithmetic: hf-bloom, hf-falcon, llm-foundry, fairseq,
    ggml, as ``--arith``), preset=None (a published model: "bloom-176b", "mpt-7b", ... or a preset
    .json, as ``--preset``), from_config=None (a Hugging Face config.json, as ``--from-config``),
    max_memory=2 GiB (bytes), threads=0 (every core), session=None (start from a Session, like
    --config), progress=None (callback(done, total)).

    Batches, as the CLI's batch flags (any of them gives a (B, H, T, T) tensor): lengths=[5, 8, 3]
    (real tokens per row, padded to seq), padding="right" (or "left"), documents=[3, 5] (packed
    documents), window=W (sliding window), prefix=P (prefix-LM), positions="mask" (naive, document).

    The same refusals as ``alibi bias``: a finite mask the dtype cannot hold (f16 or bf16 with the
    default -1e9) raises ValueError naming mask="min" instead of returning -inf cells.

    The array views memory the core owns: ``b.base`` is an ``alibi_explorer.Tensor``.

    Example:
        >>> b = alibi_explorer.bias(heads=8, seq=128, mode="bloom", dtype="bf16")
        >>> b.shape, b.dtype
        ((8, 128, 128), dtype('uint16'))
    """
    opts = _options(heads=heads, seq=seq, keys=keys, mode=mode, mask=mask, dtype=dtype, layout=layout,
                    scheme=scheme, max_bias=max_bias, slopes=slopes, arith=arith, preset=preset,
                    from_config=from_config, lengths=lengths, padding=padding, documents=documents, window=window,
                    prefix=prefix, positions=positions, max_memory=max_memory)
    return _core.bias(session, opts, threads, progress)


def attention(heads=None, seq=None, keys=None, *, content=None, seed=None, sigma=None, dk=None, temperature=None,
              mode=None, mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None, arith=None,
              preset=None, from_config=None, lengths=None, padding=None, documents=None, window=None, prefix=None,
              positions=None, max_memory=None, session=None, threads=None, progress=None):
    """Attention probabilities softmax((content + bias) / temperature), as ``alibi attention`` exports them.

    Keywords (CLI defaults): those of bias() (batch keywords included), plus content="zero" (zero,
    gaussian, qk), seed=0, sigma=1.0 (gaussian content), dk=64 (qk content), temperature=1.0.

    Example:
        >>> p = alibi_explorer.attention(heads=4, seq=64, content="qk", seed=1)
        >>> bool(abs(p[0, -1].sum() - 1) < 1e-5)
        True
    """
    opts = _options(heads=heads, seq=seq, keys=keys, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, preset=preset, from_config=from_config,
                    lengths=lengths, padding=padding, documents=documents, window=window, prefix=prefix,
                    positions=positions, max_memory=max_memory)
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
    batch (lengths, padding, ...; padding_zeros), rows (a batch of decode rows: every row's own
    diagnosis), correct (the corrected parameters the explorers open), error_map (shape and
    largest |tensor - correct ALiBi|), inferred_slopes, summary, first_mismatch. ``str()`` is the CLI's
    text report. ``borrowed`` tells whether the core read the caller's memory without a copy.

    Example:
        >>> b = alibi_explorer.bias(heads=8, seq=32).astype(np.float16)  # a -1e9 mask cast to half
        >>> d = alibi_explorer.diagnose(b)
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

    def _repr_html_(self) -> str:
        """The per-head table as HTML, for Jupyter (the same numbers as ``str()``)."""
        heads = self._dict.get("heads", [])
        columns = []  # (title, getter)
        for key in ("head", "slope", "half_life"):
            if heads and key in heads[0]:
                columns.append((key.replace("_", " "), lambda h, k=key: h.get(k)))
        for group in ("row", "mean"):
            fields = heads[0].get(group) if heads and isinstance(heads[0].get(group), dict) else {}
            for key in fields:
                columns.append((f"{group} {key.replace('_', ' ')}", lambda h, g=group, k=key: h[g].get(k)))

        def cell(value):
            if isinstance(value, float):
                return f"{value:.6g}"
            return _html.escape("" if value is None else str(value))

        caption = _html.escape(self._text.splitlines()[0] if self._text else "attention statistics")
        head = "".join(f"<th>{_html.escape(title)}</th>" for title, _ in columns)
        body = "".join("<tr>" + "".join(f"<td>{cell(get(h))}</td>" for _, get in columns) + "</tr>" for h in heads)
        return (f"<table class=\"alibi-stats\"><caption>{caption}</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def stats(heads=None, seq=None, keys=None, *, query=None, content=None, seed=None, sigma=None, dk=None,
          temperature=None, mode=None, mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None,
          arith=None, preset=None, from_config=None, lengths=None, padding=None, documents=None, window=None,
          prefix=None, positions=None, batch_row=None, max_memory=None, session=None, threads=None, progress=None):
    """Per-head attention statistics, as ``alibi stats`` reports them; returns a Stats.

    Keywords: those of attention(), plus query=-1 (the row of the per-row figures; -1: last) and,
    with a batch, batch_row=0 (the row of the batch measured, as ``--batch-row``).

    Example:
        >>> print(alibi_explorer.stats(heads=4, seq=64))       # the CLI's table
    """
    opts = _options(heads=heads, seq=seq, keys=keys, query=query, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, preset=preset, from_config=from_config,
                    lengths=lengths, padding=padding, documents=documents, window=window, prefix=prefix,
                    positions=positions, batch_row=batch_row, max_memory=max_memory)
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


def diagnose(array, *, name=None, max_memory=None, heads=None, preset=None, from_config=None):
    """Diagnose a bias tensor: which ALiBi variant it is, and which known bug it shows.

    ``array`` is a path to a .npy/.safetensors file (read as ``alibi diagnose FILE`` reads it),
    or anything with the buffer protocol, ``__array__`` or ``__dlpack__`` (NumPy, a CPU torch
    tensor): float32, float64, float16, or uint16 holding bfloat16 bits, in any layout the CLI
    recognises. A C-contiguous native array is read in place, without a copy. ``name`` is the
    ``file:`` line of the report (default: the path, or ``<array>``). Returns a Diagnosis.

    As ``alibi diagnose --heads/--preset/--from-config``: ``heads=`` splits HF BLOOM's
    (batch * heads, 1, K) into its batch rows (default: the model's head count, or detected);
    ``preset=`` (a preset name or file) or ``from_config=`` (a Hugging Face config.json) checks the
    tensor against that model's own computation (``not-this-model`` when it differs). Batches of
    decode rows report every row (``d.rows``), the corrected parameters (``d.correct``) and the
    error map against correct ALiBi (``d.error_map``). docs/DIAGNOSE.md describes every finding.

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
        return Diagnosis(*_core.diagnose(path, path if name is None else name, max_memory, heads, preset,
                                         from_config))
    return Diagnosis(*_core.diagnose(_as_array(array), "<array>" if name is None else name, max_memory, heads,
                                     preset, from_config))


# ---------------------------------------------------------------------------
# Fitting a trained model's attention maps

class FitTable(_Report):
    """The per-head fit of a model's attention maps, as ``alibi fit`` reports it.

    ``str()`` is the CLI's table; ``to_json()`` / ``to_csv()`` its JSON and CSV, byte for byte;
    ``to_dict()`` the JSON as a dict. Columns are NumPy arrays, one value per layer and head in
    the table's order: ``t["slope"]``, ``t.columns["verdict"]``, ... (layer, head, slope,
    slope_low, slope_high, slope_at_bound, kl, sink_mass, diagonal_mass, entropy, mean_distance,
    distance_90, rows, configured_slope (NaN when not given), configured_kl, uniform_kl, verdict,
    verdict_kind, verdict_reason). ``similarity`` is a list with one dict per layer (layer,
    basis, order, distances as an (H, H) array) when asked for; ``fitted_rows`` says which query
    rows were fitted. The verdict's rule is docs/FIT.md's, the same words as the CLI and explorers.

    Example:
        >>> t = alibi_explorer.fit("attentions.npy", heads=8)
        >>> t["verdict"][:2]
        array(['follows its slope', 'drifted: 1.3x steeper'], dtype='<U...')
    """

    _NUMBERS = ("slope", "slope_low", "slope_high", "kl", "sink_mass", "diagonal_mass", "entropy",
                "mean_distance", "distance_90", "configured_slope", "configured_kl", "uniform_kl")
    _INTEGERS = ("layer", "head", "rows")

    def __init__(self, text: str, json_text: str, csv_text: str):
        super().__init__(text, json_text)
        self._csv = csv_text
        heads = self._dict["heads"]
        cols = {}
        for name in self._INTEGERS:
            cols[name] = _np.array([h[name] for h in heads], dtype=_np.int64)
        for name in self._NUMBERS:
            cols[name] = _np.array([h.get(name, _np.nan) for h in heads], dtype=_np.float64)
        cols["slope_at_bound"] = _np.array([h["slope_at_bound"] for h in heads], dtype=bool)
        for name in ("verdict", "verdict_kind", "verdict_reason"):
            cols[name] = _np.array([h[name] for h in heads], dtype=str)
        self.columns = cols
        self.similarity = [dict(layer=s["layer"], basis=s["basis"], order=list(s["order"]),
                                distances=_np.array(s["distances"], dtype=_np.float64))
                           for s in self._dict.get("similarity", [])]

    def __getitem__(self, name):
        return self.columns[name]

    def __len__(self):
        return len(self._dict["heads"])

    def to_csv(self) -> str:
        """The CLI's CSV table (``alibi fit --format csv``)."""
        return self._csv


def _rows_text(rows):
    if rows is None or isinstance(rows, str):
        return rows
    if isinstance(rows, slice):
        if rows.step not in (None, 1):
            raise ValueError("rows: a slice of query rows takes no step")
        rows = (rows.start, rows.stop)
    if isinstance(rows, (tuple, list)) and len(rows) == 2:
        first, end = rows
        for v in (first, end):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, _np.integer))):
                raise TypeError(f"rows must be 'FIRST:END', (first, end) or a slice of whole numbers; got {rows!r}")
        return f"{'' if first is None else int(first)}:{'' if end is None else int(end)}"
    raise TypeError(f"rows must be 'FIRST:END', (first, end) or a slice; got {rows!r}")


def _maps_bytes(array):
    """.npy bytes of an array-like of attention maps, as the CLI would read the saved file."""
    import io
    a = _np.asarray(array) if not isinstance(array, _np.ndarray) else array
    if a.dtype == _np.object_:
        raise TypeError("attention maps must be numbers (an array of shape (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K))")
    if a.dtype not in (_np.float16, _np.float32, _np.float64, _np.uint16):  # uint16: bfloat16 bits, as the CLI reads them
        if not (_np.issubdtype(a.dtype, _np.integer) or a.dtype == bool or _np.issubdtype(a.dtype, _np.floating)):
            raise TypeError(f"attention maps must be numbers, got dtype {a.dtype}")
        a = a.astype(_np.float64)
    buffer = io.BytesIO()
    _np.save(buffer, _np.ascontiguousarray(a))
    return buffer.getvalue()


def fit(source, *, heads=None, scheme=None, max_bias=None, slopes=None, preset=None, from_config=None, arith=None,
        tensor=None, layer=None, batch=None, values=None, rows=None, order=None, similarity=None, name=None,
        threads=None, progress=None):
    """Fit each head's effective ALiBi slope to a trained model's attention maps, as ``alibi fit``.

    ``source`` is a path to a .npy or .safetensors file, or an array-like of shape (H, Q, K),
    (L, H, Q, K) or (B, L, H, Q, K) (a NumPy array, a list of lists, a CPU torch tensor).
    The model's slopes, when given (heads=, scheme=, max_bias=, slopes=, preset=,
    from_config=), are compared with each head's fitted one and give its verdict. tensor=,
    layer=, batch=, values= ("probabilities" or "scores") pick what to read; rows="128:" (or
    (128, None), or slice(128, None)) fits query rows 128 to the last; order= "index", "slope"
    or "similarity"; similarity= "profile" or "map" adds each layer's head distances.
    Returns a FitTable.

    Example:
        >>> t = alibi_explorer.fit("bloom_attn.safetensors", preset="bloom-560m", rows="128:")
        >>> print(t)                       # the CLI's table, verdicts included
        >>> t["slope"], t["verdict"]
    """
    if isinstance(source, (str, _os.PathLike)):
        src = _os.fsdecode(source)
    elif isinstance(source, bytes):
        raise TypeError("fit takes a path (str or os.PathLike) or an array of attention maps, not bytes")
    else:
        src = _maps_bytes(_as_array(source) if not isinstance(source, (list, tuple)) else source)
    for key, value in (("tensor", tensor), ("values", values), ("order", order), ("similarity", similarity),
                       ("name", name)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{key} must be a string, got {value!r}")
    for key, value in (("layer", layer), ("batch", batch)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, _np.integer))):
            raise TypeError(f"{key} must be a whole number, got {value!r}")
    fit_opts = _options(tensor=tensor, layer=layer, batch=batch, values=values, rows=_rows_text(rows), order=order,
                        similarity=similarity, name=name)
    slope_opts = _options(heads=heads, scheme=scheme, max_bias=max_bias, slopes=slopes, preset=preset,
                          from_config=from_config, arith=arith)
    # As the CLI: the model's slopes are compared once any of these names them; a head count
    # not named (only scheme or max_bias) is the file's.
    given = any(v is not None for v in (heads, scheme, max_bias, slopes, preset, from_config))
    heads_named = any(v is not None for v in (heads, slopes, preset, from_config))
    return FitTable(*_core.fit(src, fit_opts, slope_opts, given, heads_named, threads, progress))


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
        # Without the XML declaration: IPython refuses str SVG that declares an encoding
        # ("Unicode strings with encoding declaration are not supported"), and nbconvert with it.
        if self.kind != "svg":
            return None
        text = self.data
        if text.startswith("<?xml"):
            text = text[text.index("?>") + 2:].lstrip()
        return text

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


_VIEWS = ("stages", "schemes", "extrapolation", "compare", "slope-schemes")


def _render_maps(maps, what, layer, head, query, tensor, batch, values, format, ratio, given, threads, progress,
                 vs=None):
    if isinstance(maps, (str, _os.PathLike)):
        src = _os.fsdecode(maps)
    elif isinstance(maps, bytes):
        raise TypeError("maps must be a path (str or os.PathLike) or an array of attention maps, not bytes")
    else:
        src = _maps_bytes(_as_array(maps) if not isinstance(maps, (list, tuple)) else maps)
    for key, value in (("tensor", tensor), ("values", values), ("what", what), ("vs", vs)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{key} must be a string, got {value!r}")
    for key, value in (("layer", layer), ("head", head), ("query", query), ("batch", batch)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, _np.integer))):
            raise TypeError(f"{key} must be a whole number, got {value!r}")
    svg = format == "svg"
    if format is None and what in ("fit", "row"):
        svg = True
    slopes_given = any(given[k] is not None for k in ("heads", "slopes", "preset", "from_config"))
    data, pixels = _core.render_maps(src, _options(tensor=tensor, batch=batch, values=values), None, _options(**given),
                                     slopes_given, what, layer, head, query, svg, ratio, threads, progress, vs)
    return Figure("svg", data) if pixels is None else Figure("png", data, pixels)


def render(heads=None, seq=None, keys=None, *, what=None, head=None, colormap=None, scale=None, width=None,
           height=None, query=None, content=None, seed=None, sigma=None, dk=None, temperature=None, mode=None,
           mask=None, dtype=None, layout=None, scheme=None, max_bias=None, slopes=None, arith=None, preset=None,
           from_config=None, lengths=None, padding=None, documents=None, window=None, prefix=None, positions=None,
           batch_row=None, pixel_ratio=None, format=None, max_distance=None, quantity=None, maps=None, layer=None,
           tensor=None, batch=None, values=None, max_memory=None, session=None, threads=None, progress=None,
           b_scheme=None, b_max_bias=None, b_slopes=None, b_mode=None, b_dtype=None, b_mask=None, vs=None):
    """Render a figure as ``alibi render`` draws it (the same bytes); returns a Figure.

    Keywords: those of stats(), plus what="bias" (bias, attention: PNG head grid; slopes,
    distance, attention-distance: SVG curves; stages, schemes, extrapolation, slope-schemes (every
    scheme's slopes for H and max_bias): SVG, or PNG with format="png" or a pixel_ratio; compare:
    PNG; with a session, the session's), head=-1 (one head alone; curves:
    highlight it), colormap="viridis" (magma, cividis, diverging), scale="shared" (per-head),
    width=1024, height=768, pixel_ratio=1 (PNG figures drawn at 2 or 4 times the pixels, as
    ``--pixel-ratio``), max_distance=128 and quantity="logit" (what="schemes" only).
    what="compare" draws A (the other keywords) against B, which is A with geometric slopes unless
    b_scheme=, b_max_bias=, b_slopes= (one per head; implies b_scheme="custom"), b_mode=, b_dtype=
    or b_mask= replace A's value ("same" keeps it), as ``--b-scheme`` ... ``--b-mask``.

    A trained model's saved attention maps, as ``alibi render FILE``: maps= a path to a .npy or
    .safetensors file (or an array of shape (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K)), with
    what="attention" (default; one layer's heads, or one head), "overview" (every layer),
    "similarity" (the heads' distance matrix), "fit" (one head's attention vs distance with its
    priors), "row" (one query row) or "heads" (head= of layer= against vs=: "L:H", "H" of the same
    layer, "prior" or "fitted-prior", with the difference B - A; PNG); layer= (the layer's number),
    head=, query=, tensor=, batch= (the batch element), values=; the model's slopes (heads=,
    slopes=, preset=, ...) draw its configured prior.

    Example:
        >>> alibi_explorer.render(heads=12, seq=64)                    # inline head grid
        >>> alibi_explorer.render(heads=12, what="slopes").save("slopes.svg")
        >>> alibi_explorer.render(heads=8, seq=64, what="stages", head=2, query=40)
    """
    if what is not None and what not in _core.render_views():
        raise ValueError(f"what={what!r} is not a figure: use one of {', '.join(_core.render_views())}")
    if pixel_ratio is not None and (isinstance(pixel_ratio, bool) or not isinstance(pixel_ratio, int)):
        raise TypeError(f"pixel_ratio must be 1, 2 or 4, got {pixel_ratio!r}")
    if format is not None and format not in ("png", "svg"):
        raise ValueError(f"format must be 'png' or 'svg', got {format!r}")
    if pixel_ratio is not None:
        _core.check_figure_output(pixel_ratio, format == "svg")  # the CLI's rule and words, from the core
    ratio = pixel_ratio or 1
    if maps is not None:
        return _render_maps(maps, what or "attention", layer, head, query, tensor, batch, values, format, ratio,
                            dict(heads=heads, scheme=scheme, max_bias=max_bias, slopes=slopes, preset=preset,
                                 from_config=from_config, colormap=colormap, scale=scale, width=width, height=height),
                            threads, progress, vs)
    if vs is not None:
        raise ValueError("vs names side B of what='heads' on saved attention maps: give maps= too")
    if any(v is not None for v in (layer, tensor, batch, values)):
        raise ValueError("layer, tensor, batch and values choose what to draw of saved attention maps: give maps= too")
    batch_opts = _options(preset=preset, from_config=from_config, lengths=lengths, padding=padding,
                          documents=documents, window=window, prefix=prefix, positions=positions, batch_row=batch_row)
    compare_opts = _options(b_scheme=b_scheme, b_max_bias=b_max_bias, b_slopes=b_slopes, b_mode=b_mode,
                            b_dtype=b_dtype, b_mask=b_mask)
    if compare_opts and what != "compare":
        raise ValueError(f"{', '.join(compare_opts)} describe B of what='compare': drop them or render "
                         "what='compare'")
    if what in _VIEWS:
        opts = _options(heads=heads, seq=seq, keys=keys, head=head, colormap=colormap,
                        scale=scale, width=width, height=height, query=query, content=content, seed=seed,
                        sigma=sigma, dk=dk, temperature=temperature, mode=mode, mask=mask, dtype=dtype,
                        layout=layout, scheme=scheme, max_bias=max_bias, slopes=slopes, arith=arith,
                        max_memory=max_memory, **batch_opts, **compare_opts)
        opts["what"] = "bias" if what == "compare" else "attention"
        # A pixel ratio asks for PNG, as it does for the curves below.
        svg = format == "svg" or (format is None and what != "compare" and pixel_ratio is None)
        data, pixels = _core.render_view(session, opts, what, svg, ratio, max_distance, quantity, threads, progress)
        return Figure("svg", data) if svg else Figure("png", data, pixels)
    if max_distance is not None or quantity is not None:
        raise ValueError("max_distance and quantity belong to what='schemes' (the position-schemes figure): drop "
                         "them or render what='schemes'")
    curve = None
    if what == "attention-distance":
        curve, what = "attention-distance", "distance"
    if what is None and session is None:
        what = "bias"
    opts = _options(heads=heads, seq=seq, keys=keys, what=what, head=head, colormap=colormap, scale=scale,
                    width=width, height=height, query=query, content=content, seed=seed, sigma=sigma, dk=dk,
                    temperature=temperature, mode=mode, mask=mask, dtype=dtype, layout=layout, scheme=scheme,
                    max_bias=max_bias, slopes=slopes, arith=arith, max_memory=max_memory, **batch_opts)
    full = (session if session is not None else Session()).replace(**opts)
    chosen = _session_dict(full)["view"]["what"]
    if chosen in ("bias", "attention"):
        if format == "svg":
            raise ValueError(f"what '{chosen}' draws a heatmap, which is PNG: use format='png'")
        png, pixels = _core.render_heatmap(full, {}, threads, progress, ratio)
        return Figure("png", png, pixels)
    if format == "png" or pixel_ratio is not None:
        data, pixels = _core.render_view(full, {}, curve or chosen, False, ratio, None, None, threads, progress)
        return Figure("png", data, pixels)
    return Figure("svg", _core.render_curves(full, {}, curve or chosen, progress))


# ---------------------------------------------------------------------------
# Language models: run a BLOOM, MPT or Falcon checkpoint on text (alibi run, alibi loss)

def _slope_change(slope_scale, slope_scheme, slope_max_bias, head_slopes):
    change = _options(scale=slope_scale, scheme=slope_scheme, max_bias=slope_max_bias)
    if head_slopes is not None:
        if not isinstance(head_slopes, dict):
            raise TypeError(f"head_slopes must be a dict {{head: slope}}, got {head_slopes!r}")
        change["head_slopes"] = {int(h): float(m) for h, m in head_slopes.items()}
    return change


def run(model=None, text=None, *, session=None, ids=None, length=None, slope_scale=None, slope_scheme=None,
        slope_max_bias=None, head_slopes=None, logits=False, output=None, max_memory=None, threads=None,
        progress=None):
    """Run a BLOOM, MPT or Falcon model (a Hugging Face folder) on ``text``, as ``alibi run``.

    ``text`` is tokenized by the folder's tokenizer.json; ``ids=`` gives token ids instead.
    ``length=`` keeps the first N tokens. Slope interventions: ``slope_scale=`` (every slope
    times k), ``slope_scheme=`` ("press", "geometric", "linear"), ``slope_max_bias=``,
    ``head_slopes={head: slope}``. ``session=`` (a Session or a session file's path) starts from
    the session's ``model`` section (folder, text, slope change, length); ``model``, ``text`` and
    every keyword given replace the session's value, as ``alibi run --config FILE`` does.
    ``output=`` also writes the maps as ``alibi run -o`` does.
    Returns a dict of NumPy arrays: ``attention`` (L, H, T, T) float32 probabilities, ``loss``
    (T-1,) next-token loss in nats, ``logits`` (T, V) when ``logits=True``, ``slopes`` (H,),
    ``ids`` (T,), ``tokens`` (their text), ``mean_loss``.

    Example:
        >>> r = alibi_explorer.run("assets/models/license-bloom-tiny", "Permission is hereby granted")
        >>> r["attention"].shape, r["loss"].mean()
        >>> r = alibi_explorer.run(session="run.alibi.json", slope_scale=2)
    """
    return _core.lm_run(model, text, ids, length, _slope_change(slope_scale, slope_scheme, slope_max_bias, head_slopes),
                        session, True, bool(logits), output, max_memory, threads, progress)


def loss(model=None, text=None, *, session=None, ids=None, length=None, slope_scale=None, slope_scheme=None,
         slope_max_bias=None, head_slopes=None, max_memory=None, threads=None, progress=None):
    """The next-token loss per position (nats, shape (T-1,)) of a model on ``text``, as ``alibi loss``.

    Keywords as run(); with ``session=`` a session's slope change is applied (the loss of B).
    Compare a slope change by calling it twice:
        >>> a = alibi_explorer.loss(model, text)
        >>> b = alibi_explorer.loss(model, text, slope_scale=0.5)
        >>> (b - a).mean()
    """
    return _core.lm_run(model, text, ids, length, _slope_change(slope_scale, slope_scheme, slope_max_bias, head_slopes),
                        session, False, False, None, max_memory, threads, progress)["loss"]
