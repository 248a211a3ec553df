"""Independent NumPy reference for the CLI golden tests.

Everything here is written from the formulas of /work/shared/REFERENCES.md alone, never from the
program's output: slopes as 2 raised to their exact exponent, the bias with np.where over the
(query, key) grid, dtype rounding by NumPy (f32, f16) or by an exact bf16 rounding from float64.
"""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

MODES = ("causal", "symmetric", "clamped", "bloom", "mpt")
LAYOUTS = ("hqk", "qkh", "1hqk", "flat")
DTYPES = ("f32", "f64", "f16", "bf16")
HEADS = (1, 2, 3, 5, 8, 12, 16, 40, 112)

_exp2 = getattr(math, "exp2", lambda x: 2.0 ** x)  # math.exp2 exists from Python 3.11


class ExactSlopes(list):
    """Slopes as doubles (a plain list) that also carry each exact value 2^x as a 60-digit
    Decimal, so the bias can be rounded once from the exact product m * n."""

    def __init__(self, values, exact):
        super().__init__(values)
        self.exact = exact


def _exact_pow2(num, den):
    with localcontext() as ctx:
        ctx.prec = 60
        return Decimal(2) ** (Decimal(num) / Decimal(den))  # correctly rounded to 60 digits


def geometric_slopes(n, max_bias=8.0):
    return ExactSlopes([_exp2(-max_bias * (h + 1) / n) for h in range(n)],
                       [_exact_pow2(-max_bias * (h + 1), n) for h in range(n)])


def press_slopes(heads, max_bias=8.0):
    """The paper's rule: c = 2^floor(log2 H) geometric slopes, then the even-indexed press(2c)."""
    c = 1 << (heads.bit_length() - 1)
    slopes = geometric_slopes(c, max_bias)
    extra = range(heads - c)
    return ExactSlopes(list(slopes) + [_exp2(-max_bias * (2 * k + 1) / (2 * c)) for k in extra],
                       slopes.exact + [_exact_pow2(-max_bias * (2 * k + 1), 2 * c) for k in extra])


def linear_slopes(heads):
    return list(np.linspace(0.05, 0.5, heads)) if heads > 1 else [0.05]


def bf16_round(values):
    """float64 -> bfloat16 with round-to-nearest-even done once, exactly, from the double.

    Returns float64 values that are exactly representable in bfloat16 (+-inf on overflow).
    Rounding via float32 first would round twice, which is wrong for some doubles.
    """
    x = np.asarray(values, dtype=np.float64)
    out = x.copy()
    finite = np.isfinite(x) & (x != 0)
    xf = x[finite]
    _, e = np.frexp(xf)  # xf = m * 2^e with 0.5 <= |m| < 1
    # 8 significant bits; below 2^-126 the spacing is fixed at 2^-133 (bf16 subnormals).
    scale = np.ldexp(1.0, np.maximum(e - 8, -133))  # exact powers of two
    r = np.rint(xf / scale) * scale  # division by a power of two is exact; rint ties to even
    bf16_max = (2.0 - 2.0 ** -7) * 2.0 ** 127
    r = np.where(np.abs(r) > bf16_max, np.copysign(np.inf, r), r)
    out[finite] = r
    return out


def bf16_bits(values):
    """The '<u2' bit patterns NumPy cannot produce itself (bf16 values are exact in float32)."""
    r = bf16_round(values).astype(np.float32)
    return (r.view(np.uint32) >> 16).astype(np.uint16)


def lowest(dtype):
    return {
        "f32": float(np.finfo(np.float32).min),
        "f64": float(np.finfo(np.float64).min),
        "f16": float(np.finfo(np.float16).min),
        "bf16": -(2.0 - 2.0 ** -7) * 2.0 ** 127,
    }[dtype]


def mask_double(mask, dtype):
    if mask == "-inf":
        return -np.inf
    if mask == "min":
        return lowest(dtype)
    return float(mask)


def bias_hqk(slopes, queries, keys, mode, mask_value):
    """(H, Q, K) float64 bias, masked entries set to mask_value (REFERENCES.md, 'Bias forms')."""
    m = np.asarray(slopes, dtype=np.float64)[:, None, None]
    i = np.arange(queries)[:, None]
    j = np.arange(keys)[None, :]
    p = i + (keys - queries)  # bottom-right alignment
    d = (p - j).astype(np.float64)
    jf = j.astype(np.float64)
    # m * (0 - n): a zero distance gives +0.0, as frameworks store it (never -0.0).
    if mode == "causal":
        value, allowed = m * (0.0 - d), d >= 0
    elif mode == "symmetric":
        value, allowed = m * (0.0 - np.abs(d)), np.ones_like(d, dtype=bool)
    elif mode == "clamped":
        value, allowed = m * (0.0 - np.maximum(d, 0.0)), np.ones_like(d, dtype=bool)
    elif mode == "bloom":
        value, allowed = m * jf, d >= 0
    elif mode == "mpt":
        value, allowed = m * (0.0 - (keys - 1 - jf)), d >= 0
    else:
        raise ValueError(mode)
    shape = (m.shape[0], queries, keys)
    exact = getattr(slopes, "exact", None)
    if exact is not None:
        # Exact slopes: each value is the exact product m * n rounded once to double.
        n = np.rint(np.broadcast_to(value / m, shape)).astype(np.int64) if value.size else None
        top = int(np.abs(n).max()) if n is not None and n.size else 0
        table = np.array([[float(Fraction(e) * k) for k in range(top + 1)] for e in exact])
        h = np.arange(m.shape[0])[:, None, None]
        value = np.where(n < 0, -table[h, np.abs(n)], table[h, np.abs(n)])
    value = np.broadcast_to(value, shape)
    allowed = np.broadcast_to(allowed, shape)
    return np.where(allowed, value, mask_value), allowed


def to_layout(hqk, layout):
    if layout == "hqk":
        return hqk
    if layout == "qkh":
        return np.ascontiguousarray(np.transpose(hqk, (1, 2, 0)))
    if layout == "1hqk":
        return hqk[None, ...]
    if layout == "flat":
        return hqk.reshape(-1)
    raise ValueError(layout)


def from_layout(tensor, layout, heads, queries, keys):
    if layout == "qkh":
        return np.transpose(tensor.reshape(queries, keys, heads), (2, 0, 1))
    return tensor.reshape(heads, queries, keys)


def stored(values, dtype):
    """What NumPy would store: the array np.load returns for an alibi file of this dtype."""
    if dtype == "f32":
        return values.astype(np.float32)
    if dtype == "f64":
        return values.astype(np.float64)
    if dtype == "f16":
        with np.errstate(over="ignore"):  # -1e9 becomes -inf in f16, on purpose
            return values.astype(np.float16)  # round to nearest even, from the double
    if dtype == "bf16":
        return bf16_bits(values)
    raise ValueError(dtype)


def as_float64(array, dtype):
    """Decode an array np.load returned (bf16 arrives as '<u2' bits) to float64."""
    if dtype == "bf16":
        return (array.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return array.astype(np.float64)


def softmax_rows(logits, allowed):
    """Row softmax over allowed entries; a row with nothing allowed is all zeros."""
    z = np.where(allowed, logits, -np.inf)
    top = np.max(z, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(allowed, np.exp(z - top), 0.0)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def framework_softmax(logits):
    """Softmax over whole rows as PyTorch computes it: masked entries already hold the mask value;
    a row of -inf is 0/0 = NaN, a row of one finite mask value is uniform."""
    top = np.max(logits, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(logits - top)
        return e / e.sum(axis=-1, keepdims=True)


# The diagnose tests' helpers (one home: test_diagnose_bugs.py and test_diagnose_batches.py).
def press(heads, max_bias=8.0):
    """press_slopes as a float64 array."""
    return np.array(press_slopes(heads, max_bias), dtype=np.float64)


def softmax(x):
    """Row softmax over the last axis in float64; a row of -inf only stays NaN."""
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - top)
        return e / e.sum(axis=-1, keepdims=True)


def probability_change(tensor, correct):
    """The largest change of any attention probability between two bias tensors (rows fully
    masked in both count as unchanged, in one only as a change of 1)."""
    p, q = softmax(tensor), softmax(correct)
    both_nan = np.isnan(p) & np.isnan(q)
    d = np.abs(p - q)
    d[both_nan] = 0
    d[np.isnan(d)] = 1
    return float(d.max())
