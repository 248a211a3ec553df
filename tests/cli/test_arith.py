"""Framework arithmetic profiles (`--arith`), checked bit for bit against an independent emulation.

Usage: test_arith.py --alibi PATH/TO/alibi [unittest arguments, e.g. a TestCase class name]

Each framework's code path is written out below step by step, in NumPy float32 operations, from
the framework's own source (docs/ARITHMETIC.md names each file and function). Where the framework
calls PyTorch's float32 torch.pow, the rule of REFERENCES.md is applied through ctypes: SLEEF's
1-ulp powf (Debian's libsleef-dev; the FMA build, which gives the AVX2 kernel's bits) for whole
blocks of 16 elements, the C library's powf for the rest. ggml calls libm's powf. The exact profile
is checked against the exact product computed with Python's decimal module (2 ** x is correctly
rounded there) and rounded into each format with fractions, never with the program's arithmetic.
"""

import ctypes
import json
import math
import os
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np

import cli_harness as cli

HEADS = (1, 3, 8, 12, 40, 112, 128)
DTYPES = ("f32", "f16", "bf16", "f64")

# ---------------------------------------------------------------------------
# pow functions through ctypes

_libm = ctypes.CDLL("libm.so.6")
_libm.powf.restype = ctypes.c_float
_libm.powf.argtypes = [ctypes.c_float, ctypes.c_float]
_sleef = ctypes.CDLL("libsleef.so.3")


def _cpu_has_fma():
    try:
        with open("/proc/cpuinfo") as f:
            return " fma " in f.read().replace("\n", " ")
    except OSError:
        return False


_sleef_powf = getattr(_sleef, "Sleef_powf1_u10purecfma" if _cpu_has_fma() else "Sleef_powf1_u10purec")
_sleef_powf.restype = ctypes.c_float
_sleef_powf.argtypes = [ctypes.c_float, ctypes.c_float]


def powf(x, y):
    return np.float32(_libm.powf(float(x), float(y)))


def torch_pow(bases, exponents):
    """torch.pow over a contiguous float32 tensor (one side may be a scalar): SLEEF for the first
    16 * floor(n / 16) elements, the C library's powf for the rest."""
    bases, exponents = np.broadcast_arrays(np.asarray(bases, np.float32), np.asarray(exponents, np.float32))
    n = bases.size
    out = np.empty(n, np.float32)
    for i in range(n):
        b, e = float(bases.flat[i]), float(exponents.flat[i])
        out[i] = _sleef_powf(b, e) if i < n // 16 * 16 else _libm.powf(b, e)
    return out


def bf16(x):
    """float32 -> bfloat16 (round to nearest even), as c10::BFloat16 does, returned as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return rounded.view(np.float32)


# ---------------------------------------------------------------------------
# Slopes, written from each framework's source

def fairseq_slopes(n_heads):
    # fairseq/models/transformer.py, get_slopes: Python floats, then torch.Tensor(list) (float32).
    def get_slopes(n):
        def get_slopes_power_of_2(n):
            start = (2 ** (-2 ** -(math.log2(n) - 3)))
            ratio = start
            return [start * ratio ** i for i in range(n)]

        if math.log2(n).is_integer():
            return get_slopes_power_of_2(n)
        closest_power_of_2 = 2 ** math.floor(math.log2(n))
        return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2 * closest_power_of_2)[0::2][
            :n - closest_power_of_2]

    return np.array(get_slopes(n_heads), dtype=np.float32)


def hf_slopes(num_heads):
    # transformers models/bloom/modeling_bloom.py (and falcon), build_alibi_tensor.
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = np.float32(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))))
    powers = np.arange(1, 1 + closest_power_of_2, dtype=np.int32)
    slopes = torch_pow(base, powers.astype(np.float32))
    if closest_power_of_2 != num_heads:
        extra_base = np.float32(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))))
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = np.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=np.int32)
        slopes = np.concatenate([slopes, torch_pow(extra_base, extra_powers.astype(np.float32))])
    return slopes


def llm_foundry_slopes(n_heads, alibi_bias_max=8):
    # llmfoundry/models/layers/attention.py, gen_slopes.
    _n_heads = 2 ** math.ceil(math.log2(n_heads))
    m = np.arange(1, _n_heads + 1, dtype=np.float32)
    m = m * np.float32(alibi_bias_max / _n_heads)  # a Python scalar meets a float32 tensor as float32
    slopes = np.float32(1.0) / torch_pow(np.float32(2), m)  # 1.0 / t is t.reciprocal() * 1.0
    if _n_heads != n_heads:
        slopes = np.concatenate([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes.astype(np.float32)


def ggml_slopes(n_head, max_bias=8.0):
    # ggml soft_max_f32: m0, m1 and powf, all float32.
    n_head_log2 = 1 << int(math.floor(math.log2(n_head)))
    max_bias = np.float32(max_bias)
    m0 = powf(2.0, -max_bias / np.float32(n_head_log2))
    m1 = powf(2.0, -(max_bias / np.float32(2.0)) / np.float32(n_head_log2))
    out = []
    for h in range(n_head):
        if max_bias > 0:
            out.append(powf(m0, h + 1) if h < n_head_log2 else powf(m1, 2 * (h - n_head_log2) + 1))
        else:
            out.append(np.float32(1.0))
    return np.array(out, dtype=np.float32)


SLOPES = {
    "fairseq": fairseq_slopes,
    "hf-bloom": hf_slopes,
    "hf-falcon": hf_slopes,
    "llm-foundry": llm_foundry_slopes,
    "ggml": ggml_slopes,
}

# ---------------------------------------------------------------------------
# Bias values, written from each framework's source. Every function returns the float32 (or, for
# Falcon, bfloat16-valued) tensor the framework holds before `.to(dtype)`, plus the allowed mask.


def grid(queries, keys):
    i = np.arange(queries)[:, None]
    j = np.arange(keys)[None, :]
    return i + (keys - queries), j  # query positions (bottom-right aligned), key indices


def bloom_bias(slopes, queries, keys):
    # positions = (cumsum(attention_mask) - 1) * attention_mask; alibi = slopes[..., None] * positions.
    attention_mask = np.ones(keys, dtype=np.int64)
    positions = (np.cumsum(attention_mask) - 1) * attention_mask
    alibi = slopes[:, None] * positions.astype(np.float32)[None, :]  # float32 * int64 -> float32
    p, j = grid(queries, keys)
    return np.broadcast_to(alibi[:, None, :], (len(slopes), queries, keys)), np.broadcast_to(j <= p, (queries, keys))


def falcon_bias(slopes, queries, keys):
    # slopes[..., None].bfloat16() * arange_tensor: the int64 positions become bfloat16 too.
    positions = np.arange(keys).astype(np.float32)
    alibi = bf16(bf16(slopes)[:, None] * bf16(positions)[None, :])
    p, j = grid(queries, keys)
    return np.broadcast_to(alibi[:, None, :], (len(slopes), queries, keys)), np.broadcast_to(j <= p, (queries, keys))


def fairseq_bias(slopes, queries, keys):
    # self.alibi = slopes[:, None, None] * arange(maxpos); future_mask (0 or -inf) + alibi.
    alibi = slopes[:, None] * np.arange(keys).astype(np.float32)[None, :]
    alibi = np.float32(0.0) + alibi
    p, j = grid(queries, keys)
    return np.broadcast_to(alibi[:, None, :], (len(slopes), queries, keys)), np.broadcast_to(j <= p, (queries, keys))


def llm_foundry_bias(slopes, queries, keys, full=False):
    # build_alibi_bias over the keys, sliced to the last `queries` rows; int32 times float32.
    alibi = np.arange(1 - keys, 1, dtype=np.int32).reshape(1, keys)
    if full:
        alibi = alibi - np.arange(1 - keys, 1, dtype=np.int32).reshape(keys, 1)
        alibi = np.abs(alibi) * np.int32(-1)
        alibi = alibi[keys - queries:, :]
    else:
        alibi = np.broadcast_to(alibi, (queries, keys))
    value = alibi.astype(np.float32)[None, :, :] * slopes[:, None, None]
    p, j = grid(queries, keys)
    allowed = np.ones((queries, keys), bool) if full else j <= p
    return value, np.broadcast_to(allowed, (queries, keys))


def ggml_bias(slopes, queries, keys):
    # the KQ mask holds -|p_i - j| (or -inf); soft_max adds slope * mask in float32.
    p, j = grid(queries, keys)
    mask = (-np.abs(p - j)).astype(np.float32)
    value = np.float32(0.0) + slopes[:, None, None] * mask[None, :, :]
    return value, np.broadcast_to(j <= p, (queries, keys))


# profile -> (bias form, emulation)
BIAS = {
    "hf-bloom": ("bloom", bloom_bias),
    "hf-falcon": ("bloom", falcon_bias),
    "fairseq": ("bloom", fairseq_bias),
    "llm-foundry": ("mpt", llm_foundry_bias),
    "ggml": ("causal", ggml_bias),
}


def cast(values32, dtype):
    """Tensor.to(dtype) from float32, as np.load returns it (bf16 as '<u2' bits)."""
    if dtype == "f32":
        return values32.astype(np.float32)
    if dtype == "f64":
        return values32.astype(np.float64)
    if dtype == "f16":
        with np.errstate(over="ignore"):
            return values32.astype(np.float16)
    return (bf16(values32).view(np.uint32) >> 16).astype(np.uint16)


def expected_tensor(values32, allowed, dtype, mask):
    stored = cast(np.ascontiguousarray(values32, dtype=np.float32), dtype)
    masked = cast(np.array([mask], dtype=np.float32), dtype)[0]
    return np.where(np.broadcast_to(allowed, stored.shape), stored, masked)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# ---------------------------------------------------------------------------
# Exact arithmetic (Decimal and Fraction)

getcontext().prec = 60


def exact_slopes(heads, max_bias=8):
    """press slopes as (numerator, denominator) exponents: m_h = 2^(-B * num / den)."""
    c = 1 << (heads.bit_length() - 1)
    return [(h + 1, c) if h < c else (2 * (h - c) + 1, 2 * c) for h in range(heads)]


def round_fraction(x, mant_bits, min_exp):
    """Correct rounding (nearest, ties to even) of a positive Fraction into a binary format with
    `mant_bits` stored mantissa bits and smallest normal exponent `min_exp`."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, min_exp)
    scale = Fraction(2) ** (mant_bits - e)
    return Fraction(round(x * scale)) / scale


FORMATS = {"f64": (52, -1022), "f32": (23, -126), "f16": (10, -14), "bf16": (7, -126)}


def exact_stored(value, dtype):
    """A Decimal value correctly rounded into dtype, as the float64 it reads back as."""
    if value == 0:
        return 0.0
    r = round_fraction(abs(Fraction(value)), *FORMATS[dtype])
    return float(r) if value > 0 else -float(r)


# ---------------------------------------------------------------------------


class ArithCase(cli.CliCase):
    TMP_PREFIX = "alibi-arith-"


class ArithSlopesTests(ArithCase):
    def test_every_profile_bit_for_bit(self):
        for arith, fn in SLOPES.items():
            for h in HEADS:
                doc = json.loads(self.ok("slopes", "--arith", arith, "--heads", h, "--dtype", "f64",
                                         "--format", "json").stdout)
                want = fn(h).astype(np.float64)
                self.assertTrue(same_bits(np.array(doc["data"]), want), f"{arith} H={h}: {doc['data']} != {want}")

    def test_max_bias_16_for_llm_foundry_and_ggml(self):
        for h in HEADS:
            doc = json.loads(self.ok("slopes", "--arith", "llm-foundry", "--heads", h, "--max-bias", 16,
                                     "--dtype", "f64", "--format", "json").stdout)
            self.assertTrue(same_bits(np.array(doc["data"]), llm_foundry_slopes(h, 16).astype(np.float64)))
            doc = json.loads(self.ok("slopes", "--arith", "ggml", "--heads", h, "--max-bias", 16,
                                     "--dtype", "f64", "--format", "json").stdout)
            self.assertTrue(same_bits(np.array(doc["data"]), ggml_slopes(h, 16.0).astype(np.float64)))

    def test_bloom_sleef_rule_matters(self):
        # The emulation would be vacuous if SLEEF and powf agreed: on BLOOM's power-of-two slopes
        # they differ (REFERENCES.md: in 7 of 511).
        differ = 0
        for c in (16, 32, 64, 128, 256):
            base = np.float32(2 ** (-(2 ** -(math.log2(c) - 3))))
            e = np.arange(1, c + 1, dtype=np.float32)
            libm = np.array([powf(base, x) for x in e], np.float32)
            differ += int(np.sum(torch_pow(base, e).view(np.uint32) != libm.view(np.uint32)))
        self.assertGreater(differ, 0)

    def test_max_bias_refused_where_hard_coded(self):
        for arith in ("hf-bloom", "hf-falcon", "fairseq"):
            r = cli.run("slopes", "--arith", arith, "--heads", 8, "--max-bias", 16)
            self.assertEqual(r.returncode, 2)
            self.assertIn("max_bias 8", r.stderr.decode())
        r = cli.run("slopes", "--arith", "ggml", "--scheme", "geometric", "--heads", 12)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--scheme", r.stderr.decode())
        r = cli.run("slopes", "--arith", "pytorch")
        self.assertEqual(r.returncode, 2)
        self.assertIn("llm-foundry", r.stderr.decode())


class ArithBiasTests(ArithCase):
    def check(self, arith, heads, queries, keys, dtype, mode=None, mask="min", full=False):
        native, fn = BIAS[arith]
        mode = mode or native
        slopes = SLOPES[arith](heads)
        values, allowed = fn(slopes, queries, keys, full=True) if full else fn(slopes, queries, keys)
        mask_value = {"min": {"f32": np.finfo(np.float32).min, "f64": np.finfo(np.float64).min,
                              "f16": np.finfo(np.float16).min, "bf16": -(2.0 - 2.0 ** -7) * 2.0 ** 127}[dtype],
                      "-inf": -np.inf}[mask]
        want = expected_tensor(values, allowed, dtype, 0.0)
        got = self.bias("--arith", arith, "--heads", heads, "--seq", queries, "--keys", keys, "--mode", mode,
                        "--mask", mask, "--dtype", dtype)
        allowed = np.broadcast_to(allowed, want.shape)
        self.assertTrue(same_bits(got[allowed], want[allowed]),
                        f"{arith} {mode} H={heads} Q={queries} K={keys} {dtype}: allowed cells differ")
        masked = got[~allowed]
        if masked.size:
            if dtype == "bf16":
                masked = (masked.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            self.assertTrue(np.all(masked.astype(np.float64) == mask_value), f"{arith} {dtype}: mask value")

    def test_native_forms_every_dtype(self):
        for arith in BIAS:
            for h in HEADS:
                for dtype in DTYPES:
                    self.check(arith, h, 24, 24, dtype)

    def test_bloom_decode_shape_long_keys(self):
        # (H, 1, T): Falcon's bfloat16 positions lose whole numbers past 256; BLOOM's do not.
        for arith in ("hf-bloom", "hf-falcon", "fairseq"):
            for dtype in DTYPES:
                self.check(arith, 12, 1, 700, dtype)
                self.check(arith, 112, 3, 300, dtype)

    def test_llm_foundry_full_and_kv_cache(self):
        for dtype in DTYPES:
            self.check("llm-foundry", 40, 20, 20, dtype, mode="symmetric", full=True)
            self.check("llm-foundry", 12, 4, 500, dtype)

    def test_positive_zeros(self):
        for arith in ("exact", "llm-foundry", "hf-bloom", "ggml"):
            for mode in ("causal", "symmetric", "mpt", "bloom"):
                got = self.bias("--arith", arith, "--heads", 3, "--seq", 6, "--mode", mode)
                zeros = got[got == 0]
                self.assertTrue(zeros.size > 0)
                self.assertFalse(np.any(np.signbit(zeros)), f"{arith} {mode}: -0.0 written")

    def test_issue_example(self):
        # H = 12, head 8, j = 9: fairseq gives 6.36396074 (round32(round32(m) * 9)).
        got = self.bias("--arith", "fairseq", "--heads", 12, "--seq", 10, "--mode", "bloom")
        self.assertEqual(got[8, 9, 9], np.float32(6.36396074))
        exact = self.bias("--heads", 12, "--seq", 10, "--mode", "bloom")
        self.assertEqual(exact[8, 9, 9], np.float32(6.36396122))

    def test_metadata_and_session_name_the_profile(self):
        out = os.path.join(self.tmp, "b.safetensors")
        self.ok("bias", "--arith", "ggml", "--heads", 2, "--seq", 3, "-o", out)
        with open(out, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(n))
        self.assertEqual(header["__metadata__"]["arith"], "ggml")


class ExactTests(ArithCase):
    def exact_table(self, heads, keys, max_bias=8):
        """value(h, n) = m_h * n exactly, for n in [0, keys)."""
        table = []
        for num, den in exact_slopes(heads, max_bias):
            m = Decimal(2) ** (Decimal(-max_bias * num) / Decimal(den))
            table.append([m * n for n in range(keys)])
        return table

    def test_correctly_rounded_every_dtype(self):
        for h in (3, 12, 40):
            keys = 200
            table = self.exact_table(h, keys)
            for dtype in DTYPES:
                got = self.bias("--heads", h, "--seq", 1, "--keys", keys, "--mode", "bloom", "--dtype", dtype)
                if dtype == "bf16":
                    got = (got.astype(np.uint32) << 16).view(np.float32)
                got = got.astype(np.float64).reshape(h, keys)
                want = np.array([[exact_stored(v, dtype) for v in row] for row in table])
                bad = np.argwhere(got != want)
                self.assertEqual(len(bad), 0, f"H={h} {dtype}: first differences at {bad[:5].tolist()}")

    def test_f64_beats_double_product(self):
        # Somewhere in these tensors double(m) * n rounds away from the exact product; the tool must not.
        h, keys = 112, 600
        table = self.exact_table(h, keys)
        got = self.bias("--heads", h, "--seq", 1, "--keys", keys, "--mode", "bloom", "--dtype", "f64")
        got = got.reshape(h, keys)
        naive_misses = 0
        for hh, (num, den) in enumerate(exact_slopes(h)):
            m = float(Decimal(2) ** (Decimal(-8 * num) / Decimal(den)))
            for n in range(keys):
                exact = exact_stored(table[hh][n], "f64")
                self.assertEqual(got[hh, n], exact, f"head {hh} n {n}")
                naive_misses += (m * n) != exact
        self.assertGreater(naive_misses, 0)


if __name__ == "__main__":
    cli.main()
