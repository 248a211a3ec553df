"""Golden tests of the `alibi` command line, run by ctest with Debian's /usr/bin/python3 (NumPy).

Usage: test_cli.py --alibi PATH/TO/alibi [unittest arguments, e.g. a TestCase class name]

Every expected number comes from alibi_reference.py (NumPy, written from REFERENCES.md), never
from the program under test. Each TestCase class is one ctest test (see CMakeLists.txt).
"""

import json
import os
import signal
import stat
import struct
import subprocess
import sys
import time
import unittest
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alibi_reference as ref  # noqa: E402
import cli_harness as cli  # noqa: E402


class CliTestCase(cli.CliCase):
    def load_bias(self, heads, seq, keys=None, mode="causal", layout="hqk", dtype="f32", mask="-1e9",
                  extra=()):
        out = self.path(f"b_{heads}_{seq}_{mode}_{layout}_{dtype}.npy")
        if dtype == "f16" and mask == "-1e9":
            mask = "-inf"  # f16 cannot hold -1e9, so that export is refused; -inf stores the same bits
        args = ["bias", "--heads", heads, "--seq", seq, "--mode", mode, "--layout", layout, "--dtype", dtype,
                "--mask", mask, "-o", out, *extra]
        if keys is not None:
            args += ["--keys", keys]
        self.ok(*args)
        return np.load(out)

    def expected_bias(self, heads, seq, keys=None, mode="causal", layout="hqk", dtype="f32", mask="-1e9",
                      slopes=None):
        k = seq if keys is None else keys
        slopes = ref.press_slopes(heads) if slopes is None else slopes
        values, _ = ref.bias_hqk(slopes, seq, k, mode, ref.mask_double(mask, dtype))
        return ref.stored(ref.to_layout(values, layout), dtype)


# ---------------------------------------------------------------------------


class SlopesTests(CliTestCase):
    def test_json_every_h(self):
        for h in ref.HEADS:
            doc = json.loads(self.ok("slopes", "--heads", h, "--dtype", "f64", "--format", "json").stdout)
            # The common export schema: shape, dtype, params (strings), data; half-lives extra.
            self.assertEqual(doc["shape"], [h])
            self.assertEqual(doc["params"]["scheme"], "press")
            self.assertEqual(doc["data"], ref.press_slopes(h), f"H={h}")
            self.assertEqual(len(doc["half_lives"]), h)

    def test_press_is_unsorted_for_h12(self):
        doc = json.loads(self.ok("slopes", "--heads", 12, "--dtype", "f64", "--format", "json").stdout)
        self.assertEqual(doc["data"][:8], [2.0 ** -(k + 1) for k in range(8)])
        self.assertEqual(doc["data"][8:], [2.0 ** -0.5, 2.0 ** -1.5, 2.0 ** -2.5, 2.0 ** -3.5])

    def test_geometric_and_linear(self):
        doc = json.loads(self.ok("slopes", "--heads", 12, "--scheme", "geometric", "--dtype", "f64",
                                 "--format", "json").stdout)
        self.assertEqual(doc["data"], ref.geometric_slopes(12))
        doc = json.loads(self.ok("slopes", "--heads", 5, "--scheme", "linear", "--dtype", "f64",
                                 "--format", "json").stdout)
        np.testing.assert_allclose(doc["data"], ref.linear_slopes(5), rtol=0, atol=1e-15)
        doc = json.loads(self.ok("slopes", "--heads", 4, "--max-bias", 4, "--dtype", "f64",
                                 "--format", "json").stdout)
        self.assertEqual(doc["data"], ref.press_slopes(4, 4.0))

    def test_text_default_to_stdout(self):
        out = self.ok("slopes", "--heads", 8).stdout.decode()
        rows = [line.split() for line in out.splitlines() if line and not line.startswith("#")]
        self.assertEqual(rows[0][:2], ["head", "slope"])
        data = rows[1:]
        self.assertEqual(len(data), 8)
        for h, row in enumerate(data):
            self.assertEqual(int(row[0]), h)
            self.assertEqual(float(row[1]), 2.0 ** -(h + 1))
            self.assertAlmostEqual(float(row[2]), np.log(2) / 2.0 ** -(h + 1), places=9)

    def test_csv_file(self):
        out = self.path("s.csv")
        self.ok("slopes", "--heads", 12, "--dtype", "f64", "-o", out)
        data = np.loadtxt(out, delimiter=",", skiprows=1)
        np.testing.assert_array_equal(data[:, 0], np.arange(12))
        np.testing.assert_array_equal(data[:, 1], ref.press_slopes(12))

    def test_npy_every_dtype(self):
        for dtype in ref.DTYPES:
            out = self.path(f"s_{dtype}.npy")
            self.ok("slopes", "--heads", 12, "--dtype", dtype, "-o", out)
            got = np.load(out)
            self.assertEqual(got.shape, (12,))
            expected = ref.stored(np.array(ref.press_slopes(12)), dtype)
            self.assertEqual(got.dtype, expected.dtype)
            np.testing.assert_array_equal(got, expected, err_msg=dtype)

    def test_f32_is_the_default_dtype_everywhere(self):
        doc = json.loads(self.ok("slopes", "--heads", 12, "--format", "json").stdout)
        expected = np.array(ref.press_slopes(12)).astype(np.float32).astype(np.float64)
        np.testing.assert_array_equal(doc["data"], expected)

    def test_custom_slopes(self):
        doc = json.loads(self.ok("slopes", "--slopes", "0.5,0.25,0.125", "--dtype", "f64", "--format",
                                 "json").stdout)
        self.assertEqual(doc["shape"], [3])
        self.assertEqual(doc["params"]["scheme"], "custom")
        self.assertEqual(doc["data"], [0.5, 0.25, 0.125])
        self.ok("slopes", "--slopes", "0.5,0.25", "--heads", "2")

    def test_custom_slopes_errors(self):
        self.usage_error("slopes", "--slopes", "0.5,0.25", "--heads", 3, mentions=["--heads", "--slopes"])
        for bad in ("0.5,-0.25", "0.5,0", "nan", "0.5,abc", "0.5,,0.25", "inf", ""):
            self.usage_error("slopes", "--slopes", bad, mentions=["--slopes"])
        self.usage_error("slopes", "--slopes", "0.5", "--scheme", "press", mentions=["--slopes", "--scheme"])


class BiasNpyTests(CliTestCase):
    """np.load of `alibi bias` equals the NumPy reference exactly, for every H, mode, layout, dtype."""

    def test_every_h_mode_dtype(self):
        seq = 7
        n = 0
        for h in ref.HEADS:
            for mode in ref.MODES:
                for dtype in ref.DTYPES:
                    layout = ref.LAYOUTS[n % 4]  # every layout meets every mode and dtype over the loop
                    n += 1
                    got = self.load_bias(h, seq, mode=mode, layout=layout, dtype=dtype)
                    want = self.expected_bias(h, seq, mode=mode, layout=layout, dtype=dtype)
                    msg = f"H={h} mode={mode} layout={layout} dtype={dtype}"
                    self.assertEqual(got.shape, want.shape, msg)
                    self.assertEqual(got.dtype, want.dtype, msg)
                    self.assertTrue(np.array_equal(got, want), msg)

    def test_every_layout_shape(self):
        for layout, shape in (("hqk", (5, 4, 6)), ("qkh", (4, 6, 5)), ("1hqk", (1, 5, 4, 6)), ("flat", (120,))):
            for dtype in ref.DTYPES:
                got = self.load_bias(5, 4, keys=6, layout=layout, dtype=dtype)
                self.assertEqual(got.shape, shape)
                want = self.expected_bias(5, 4, keys=6, layout=layout, dtype=dtype)
                self.assertTrue(np.array_equal(got, want), f"{layout} {dtype}")

    def test_masks(self):
        for dtype in ref.DTYPES:
            for mask in ("-1e9", "-inf", "min", "-10000", "-0.5"):
                for mode in ("causal", "bloom", "mpt"):
                    got = self.load_bias(3, 5, mode=mode, dtype=dtype, mask=mask)
                    want = self.expected_bias(3, 5, mode=mode, dtype=dtype, mask=mask)
                    self.assertTrue(np.array_equal(got, want), f"{dtype} {mask} {mode}")

    def test_f16_mask_that_overflows_is_refused(self):
        out = self.path("f16.npy")
        for fmt in ("npy", "safetensors", "json"):
            self.usage_error("bias", "--heads", 2, "--seq", 4, "--dtype", "f16", "--format", fmt, "-o", out,
                             mentions=("f16 cannot hold the mask -1e9", "largest finite value is 65504",
                                       "the mask min", "-65504", "the mask -inf"))
            self.assertFalse(os.path.exists(out))
        # Nothing is masked in symmetric mode, and -inf asked for is written as asked.
        self.ok("bias", "--heads", 2, "--seq", 4, "--dtype", "f16", "--mode", "symmetric", "-o", out)
        got = self.load_bias(2, 4, dtype="f16", mask="-inf")
        self.assertTrue(np.isneginf(got[0, 0, 1]))

    def test_kv_cache_alignment(self):
        for keys in (3, 9, 16):
            for mode in ref.MODES:
                got = self.load_bias(4, 6, keys=keys, mode=mode, dtype="f64")
                want = self.expected_bias(4, 6, keys=keys, mode=mode, dtype="f64")
                self.assertTrue(np.array_equal(got, want), f"K={keys} {mode}")

    def test_custom_and_geometric(self):
        got = self.load_bias(3, 5, dtype="f64", extra=("--heads", 3, "--slopes", "0.3,0.2,0.1"))
        want = self.expected_bias(3, 5, dtype="f64", slopes=[0.3, 0.2, 0.1])
        self.assertTrue(np.array_equal(got, want))
        got = self.load_bias(12, 5, dtype="f64", extra=("--scheme", "geometric"))
        want = self.expected_bias(12, 5, dtype="f64", slopes=ref.geometric_slopes(12))
        self.assertTrue(np.array_equal(got, want))


def parse_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    return header, blob[8 + n:]


class FormatTests(CliTestCase):
    def test_safetensors_by_hand(self):
        dtypes = {"f32": ("F32", "<f4"), "f64": ("F64", "<f8"), "f16": ("F16", "<f2"), "bf16": ("BF16", "<u2")}
        for dtype, (st_name, descr) in dtypes.items():
            for layout in ref.LAYOUTS:
                out = self.path(f"b_{dtype}_{layout}.safetensors")
                self.ok("bias", "--heads", 5, "--seq", 6, "--mode", "mpt", "--layout", layout, "--dtype", dtype,
                        *(("--mask", "min") if dtype == "f16" else ()), "-o", out)
                header, data = parse_safetensors(out)
                meta = header.pop("__metadata__")
                self.assertEqual(list(header), ["bias"])
                t = header["bias"]
                mask = "min" if dtype == "f16" else "-1e9"
                want = self.expected_bias(5, 6, mode="mpt", layout=layout, dtype=dtype, mask=mask)
                self.assertEqual(t["dtype"], st_name)
                self.assertEqual(tuple(t["shape"]), want.shape)
                begin, end = t["data_offsets"]
                self.assertEqual(end - begin, want.nbytes)
                got = np.frombuffer(data[begin:end], dtype=descr).reshape(want.shape)
                self.assertTrue(np.array_equal(got, want), f"{dtype} {layout}")
                self.assertTrue(all(isinstance(v, str) for v in meta.values()))
                for key, value in (("heads", "5"), ("queries", "6"), ("keys", "6"), ("mode", "mpt"),
                                   ("layout", layout), ("dtype", dtype), ("scheme", "press"), ("mask", mask)):
                    self.assertEqual(meta.get(key), value, key)

    def test_csv(self):
        for layout in ref.LAYOUTS:
            for dtype in ("f32", "f64"):
                out = self.path(f"b_{layout}_{dtype}.csv")
                self.ok("bias", "--heads", 3, "--seq", 4, "--keys", 5, "--layout", layout, "--dtype", dtype, "-o", out)
                with open(out) as f:
                    header = f.readline().strip().split(",")
                data = np.loadtxt(out, delimiter=",", skiprows=1, ndmin=2)
                values = data[:, 2:]
                if layout == "qkh":
                    self.assertEqual(header[:2], ["query", "key"])
                    got = np.transpose(values.reshape(4, 5, 3), (2, 0, 1))
                else:
                    self.assertEqual(header[:2], ["head", "query"])
                    got = values.reshape(3, 4, 5)
                want = self.expected_bias(3, 4, keys=5, dtype=dtype).astype(np.float64)
                self.assertTrue(np.array_equal(got, want), f"{layout} {dtype}")

    def test_json(self):
        for layout in ref.LAYOUTS:
            for dtype in ("f32", "f64", "f16", "bf16"):
                out = self.path(f"b_{layout}_{dtype}.json")
                self.ok("bias", "--heads", 3, "--seq", 4, "--mode", "symmetric", "--layout", layout,
                        "--dtype", dtype, "-o", out)
                with open(out) as f:
                    doc = json.load(f)
                want = ref.to_layout(ref.bias_hqk(ref.press_slopes(3), 4, 4, "symmetric", -1e9)[0], layout)
                want = ref.as_float64(ref.stored(want, dtype), dtype)
                self.assertEqual(tuple(doc["shape"]), want.shape)
                self.assertEqual(doc["dtype"], dtype)
                self.assertIn("params", doc)
                self.assertTrue(np.array_equal(np.array(doc["data"], dtype=np.float64), want), f"{layout} {dtype}")

    def test_json_refuses_minus_inf_unless_allowed(self):
        out = self.path("inf.json")
        self.usage_error("bias", "--heads", 2, "--seq", 3, "--mask", "-inf", "-o", out, mentions=["--mask -1e9"])
        self.assertFalse(os.path.exists(out))
        self.assertEqual([n for n in os.listdir(self.tmp)], [])
        self.ok("bias", "--heads", 2, "--seq", 3, "--mask", "-inf", "--allow-nonfinite", "-o", out)
        with open(out) as f:
            text = f.read()
        self.assertIn("-Infinity", text)
        doc = json.loads(text)
        want = self.expected_bias(2, 3, mask="-inf").astype(np.float64)
        self.assertTrue(np.array_equal(np.array(doc["data"]), want))

    def test_raw(self):
        out = self.path("b.raw")
        self.ok("bias", "--heads", 4, "--seq", 5, "--dtype", "f64", "-o", out)
        got = np.fromfile(out, dtype="<f8").reshape(4, 5, 5)
        self.assertTrue(np.array_equal(got, self.expected_bias(4, 5, dtype="f64")))

    def test_csv_and_json_to_stdout(self):
        r = self.ok("bias", "--heads", 2, "--seq", 3, "--format", "csv", "-o", "-")
        lines = r.stdout.decode().strip().splitlines()
        self.assertEqual(len(lines), 1 + 2 * 3)
        r = self.ok("bias", "--heads", 2, "--seq", 3, "--format", "json", "-o", "-")
        self.assertEqual(json.loads(r.stdout)["shape"], [2, 3, 3])


class AttentionTests(CliTestCase):
    def test_zero_content_is_softmax_of_reference_bias(self):
        for mode in ref.MODES:
            for keys in (6, 9):
                out = self.path(f"a_{mode}_{keys}.npy")
                self.ok("attention", "--heads", 5, "--seq", 6, "--keys", keys, "--mode", mode, "--dtype", "f64",
                        "-o", out)
                got = np.load(out)
                values, allowed = ref.bias_hqk(ref.press_slopes(5), 6, keys, mode, -1e9)
                want = ref.softmax_rows(values, allowed)
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=f"{mode} K={keys}")

    def test_rows_sum_to_one(self):
        for content in ("zero", "gaussian", "qk"):
            out = self.path(f"a_{content}.npy")
            self.ok("attention", "--heads", 4, "--seq", 8, "--content", content, "--seed", 3, "-o", out)
            got = np.load(out).astype(np.float64)
            self.assertEqual(got.shape, (4, 8, 8))
            np.testing.assert_allclose(got.sum(axis=-1), 1.0, rtol=0, atol=1e-5)
            self.assertTrue(np.all(got[:, 0, 1:] == 0), "causal: future keys get probability 0")

    def test_fully_masked_rows_follow_the_framework_softmax(self):
        # K < Q: the first Q - K queries sit before every key; every entry of their rows is masked.
        # As in PyTorch: uniform under a finite mask, NaN under -inf; and a finite mask such as -1
        # leaves masked keys some mass (issue 11's example).
        for mask in ("-1e9", "-1", "min", "-inf"):
            out = self.path(f"masked{mask}.npy")
            r = self.ok("attention", "--heads", 2, "--seq", 6, "--keys", 2, "--dtype", "f64", "--mask", mask, "-o", out)
            self.assertIn("query rows 0..3 of every head see no unmasked key", r.stderr.decode())
            got = np.load(out)
            mask_value = {"-1e9": -1e9, "-1": -1.0, "min": np.finfo(np.float64).min, "-inf": -np.inf}[mask]
            values, _ = ref.bias_hqk(ref.press_slopes(2), 6, 2, "causal", mask_value)
            want = ref.framework_softmax(values)
            self.assertEqual(np.isnan(got[:, :4, :]).all(), mask == "-inf")
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=mask)
        self.usage_error("attention", "--heads", 2, "--seq", 6, "--keys", 2, "--mask", "-inf", "--format", "json",
                   "-o", self.path("masked.json"), mentions=["NaN", "--mask min"])

    def test_seeded_content_is_reproducible(self):
        a, b = self.path("a.npy"), self.path("b.npy")
        self.ok("attention", "--heads", 2, "--seq", 8, "--content", "gaussian", "--seed", 11, "-o", a)
        self.ok("attention", "--heads", 2, "--seq", 8, "--content", "gaussian", "--seed", 11, "-o", b)
        self.assertTrue(np.array_equal(np.load(a), np.load(b)))


class StatsTests(CliTestCase):
    def test_json_fields_and_entropy(self):
        doc = json.loads(self.ok("stats", "--heads", 1, "--seq", 16, "--format", "json").stdout)
        self.assertEqual(doc["query"], 15)
        self.assertGreaterEqual(doc["rows_averaged"], 1)
        (head,) = doc["heads"]
        for key in ("head", "slope", "half_life", "row", "mean"):
            self.assertIn(key, head)
        for part in ("row", "mean"):
            for key in ("entropy", "mean_distance", "distance_50", "distance_90"):
                self.assertIn(key, head[part])
        m = 2.0 ** -8
        d = np.arange(16, dtype=np.float64)  # distances 15..0 of row 15, any order
        p = np.exp(-m * d)
        p /= p.sum()
        self.assertAlmostEqual(head["slope"], m, places=15)
        self.assertAlmostEqual(head["half_life"], np.log(2) / m, places=9)
        self.assertAlmostEqual(head["row"]["entropy"], float(-(p * np.log(p)).sum()), places=9)
        self.assertAlmostEqual(head["row"]["mean_distance"], float((p * d).sum()), places=9)

    def test_query_row(self):
        doc = json.loads(self.ok("stats", "--heads", 2, "--seq", 16, "--query", 3, "--format", "json").stdout)
        self.assertEqual(doc["query"], 3)
        for head in doc["heads"]:
            self.assertLessEqual(head["row"]["distance_90"], 3)
        self.usage_error("stats", "--heads", 2, "--seq", 16, "--query", 16, mentions=["--query"])

    def test_text_and_csv(self):
        text = self.ok("stats", "--heads", 8, "--seq", 32).stdout.decode()
        self.assertIn("entropy", text)
        self.assertEqual(sum(1 for line in text.splitlines() if line.strip()[:1].isdigit()), 8)
        out = self.path("s.csv")
        self.ok("stats", "--heads", 8, "--seq", 32, "-o", out)
        with open(out) as f:
            header = f.readline().strip().split(",")
        self.assertEqual(header[:3], ["head", "slope", "half_life"])
        data = np.loadtxt(out, delimiter=",", skiprows=1)
        self.assertEqual(data.shape[0], 8)
        np.testing.assert_array_equal(data[:, 1], np.array(ref.press_slopes(8)))


class OutputTests(CliTestCase):
    def test_stdout_and_format_rules(self):
        self.assertTrue(self.ok("slopes", "--heads", 4, "-o", "-").stdout)
        # Binary to stdout: refused on a terminal only (test_conventions.py), written to a pipe.
        self.assertTrue(self.ok("bias", "--heads", 2, "--seq", 3, "--format", "npy", "-o", "-").stdout.startswith(b"\x93NUMPY"))
        self.usage_error("bias", "--heads", 2, "--seq", 3, "-o", self.path("noext"), mentions=["-o", "--format"])
        self.usage_error("bias", "--heads", 2, "--seq", 3, mentions=["-o"])
        self.usage_error("bias", "--heads", 2, "--seq", 3, "--format", "png", "-o", self.path("x.png"),
                         mentions=["--format"])
        self.ok("bias", "--heads", 2, "--seq", 3, "--format", "npy", "-o", self.path("noext"))
        self.assertEqual(np.load(self.path("noext"), allow_pickle=False).shape, (2, 3, 3))

    def test_dev_null(self):
        self.ok("bias", "--heads", 2, "--seq", 3, "--format", "npy", "-o", "/dev/null")
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_dev_full(self):
        r = cli.run("bias", "--heads", 4, "--seq", 64, "--format", "npy", "-o", "/dev/full")
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        self.assertIn("No space left", r.stderr.decode())

    def test_missing_folder(self):
        target = self.path("no/such/folder/b.npy")
        r = cli.run("bias", "--heads", 2, "--seq", 3, "-o", target)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no/such/folder", r.stderr.decode())
        self.assertFalse(os.path.exists(self.path("no")))

    def test_fifo_written_in_place(self):
        fifo = self.path("pipe.npy")
        os.mkfifo(fifo)
        proc = subprocess.Popen([cli.ALIBI, "bias", "--heads", "2", "--seq", "4", "-o", fifo], stderr=subprocess.PIPE)
        with open(fifo, "rb") as f:
            data = f.read()
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err.decode())
        with open(self.path("copy.npy"), "wb") as f:
            f.write(data)
        self.assertTrue(np.array_equal(np.load(self.path("copy.npy")), self.expected_bias(2, 4)))
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["copy.npy", "pipe.npy"])

    def test_overwrite_is_atomic_and_complete(self):
        out = self.path("b.npy")
        self.ok("bias", "--heads", 2, "--seq", 3, "-o", out)
        self.ok("bias", "--heads", 3, "--seq", 4, "-o", out)
        self.assertEqual(np.load(out).shape, (3, 4, 4))
        self.assertEqual(os.listdir(self.tmp), ["b.npy"])

    def _start_big_export(self, out, layout="hqk"):
        # (64, 4096, 4096) f32 = 4 GiB: far more than can be written in the time allowed
        # (qkh, gathered element by element, is slower still: for the signal tests).
        return subprocess.Popen([cli.ALIBI, "bias", "--heads", "64", "--seq", "4096", "--layout", layout, "-o", out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def _wait_for_temp(self, proc):
        # The export's temporary is either a named file beside the target or (O_TMPFILE) an
        # unnamed one, visible only as an open descriptor of the process into this folder.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if any(n != "b.npy" for n in os.listdir(self.tmp)):
                return
            try:
                fds = [os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{proc.pid}/fd")]
            except OSError:
                fds = []
            if any(link.startswith(self.tmp) and link.endswith("(deleted)") for link in fds):
                return
            time.sleep(0.02)

    def test_sigkill_leaves_previous_file_intact(self):
        out = self.path("b.npy")
        self.ok("bias", "--heads", 2, "--seq", 3, "-o", out)
        with open(out, "rb") as f:
            before = f.read()
        proc = self._start_big_export(out)
        self._wait_for_temp(proc)
        time.sleep(0.3)
        proc.kill()
        proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, -signal.SIGKILL, "the export finished before it could be killed")
        with open(out, "rb") as f:
            self.assertEqual(f.read(), before, "SIGKILL during an export changed the previous file")
        others = [n for n in os.listdir(self.tmp) if n != "b.npy"]
        self.assertTrue(all(n.startswith(".") for n in others), f"non-hidden leftovers: {others}")

    def test_sigkill_leaves_no_target(self):
        out = self.path("b.npy")
        proc = self._start_big_export(out)
        self._wait_for_temp(proc)
        time.sleep(0.3)
        proc.kill()
        proc.communicate(timeout=30)
        self.assertFalse(os.path.exists(out))
        others = os.listdir(self.tmp)
        self.assertTrue(all(n.startswith(".") for n in others), f"non-hidden leftovers: {others}")

    def test_sigint_and_sigterm_cancel_and_clean_up(self):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            out = self.path("b.npy")
            proc = self._start_big_export(out, layout="qkh")
            self._wait_for_temp(proc)
            time.sleep(0.2)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, status, err.decode())
            self.assertIn("cancelled", err.decode())
            self.assertEqual(os.listdir(self.tmp), [], "a cancelled export left a file behind")


class ProgressTests(CliTestCase):
    """The progress bar: on stderr only when it is a terminal and the work takes over ~1 s."""

    # (Q, K, H) gathers element by element: slow enough to run for seconds, then be cancelled.
    SLOW = ["bias", "--heads", "64", "--seq", "4096", "--layout", "qkh"]

    def test_bar_on_a_terminal_then_cleared(self):
        import pty
        import select
        master, slave = pty.openpty()
        out = self.path("b.npy")
        proc = subprocess.Popen([cli.ALIBI, *self.SLOW, "-o", out], stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and b"%" not in seen:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                seen += os.read(master, 4096)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        while True:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        text = seen.decode(errors="replace")
        self.assertIn("%", text, "no progress bar on a terminal")
        self.assertIn("\r\x1b[K", text, "the bar was not cleared")
        self.assertIn("cancelled", text)
        self.assertEqual(proc.returncode, 130)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_no_bar_when_stderr_is_a_pipe(self):
        out = self.path("b.npy")
        proc = subprocess.Popen([cli.ALIBI, *self.SLOW, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.assertTrue(cli.wait_until_catching_sigint(proc), "the export ended before it could be interrupted")
        time.sleep(1.6)  # long enough for a bar to appear, were there one
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err.decode())
        self.assertNotIn("%", err.decode())
        self.assertNotIn("\r", err.decode())
        self.assertEqual(os.listdir(self.tmp), [])


    # Gaussian rows over 2^19 keys: a heatmap costly enough for a first picture (issue 26).
    COSTLY_VIEW = ["render", "--what", "attention", "--content", "gaussian", "--heads", "1", "--seq", "524288",
                   "--width", "800", "--height", "600"]

    def test_render_progress_flag_prints_lines_in_a_pipe(self):
        """--progress: plain lines on a pipe, in the explorers' words, with the first picture's time
        and what it is, and the end; the figure is the one rendered without it."""
        out = self.path("a.png")
        r = self.ok(*self.COSTLY_VIEW, "--progress", "-o", out)
        err = r.stderr.decode()
        self.assertNotIn("\r", err)
        self.assertNotIn("\x1b", err)
        lines = err.splitlines()
        first = [line for line in lines if "first picture after" in line]
        self.assertEqual(len(first), 1, err)
        self.assertRegex(first[0], r"^rendering: first picture after \d+\.\d s: preview from 1 exact row in \d+; "
                                   r"refining$")
        self.assertRegex(err, r"rendering: Computing\.\.\. \d+ %")
        self.assertRegex(lines[-1], r"^rendering: done after \d+\.\d s$")
        # Lines before the first picture say Computing, after it "preview, refining".
        at = lines.index(first[0])
        self.assertTrue(all("refining..." not in line for line in lines[:at]), err)
        self.assertTrue(all("Computing..." not in line for line in lines[at + 1:]), err)
        plain = self.path("b.png")
        r2 = self.ok(*self.COSTLY_VIEW, "-o", plain)
        self.assertNotIn("%", r2.stderr.decode())
        self.assertNotIn("first picture", r2.stderr.decode())
        with open(out, "rb") as a, open(plain, "rb") as b:
            self.assertEqual(a.read(), b.read(), "--progress changed the figure")


class LimitTests(CliTestCase):
    """Issue 6.4: every resource limit gives a clear message and exit status 2."""

    def test_huge_heads_and_lengths(self):
        self.usage_error("bias", "--heads", 100000, "--seq", 4, "-o", self.path("b.npy"), mentions=["--heads"])
        self.usage_error("slopes", "--heads", 100000, mentions=["--heads"])
        self.usage_error("bias", "--heads", 2, "--seq", 10 ** 9, "-o", self.path("b.npy"), mentions=["--seq"])
        self.usage_error("bias", "--heads", 2, "--seq", 4, "--keys", 10 ** 9, "-o", self.path("b.npy"),
                         mentions=["--keys"])
        self.usage_error("stats", "--heads", 2, "--seq", 10 ** 9, mentions=["--seq"])
        self.usage_error("render", "--heads", 100000, "--what", "bias", "-o", self.path("r.png"), mentions=["--heads"])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_negative_and_non_numeric(self):
        cases = [
            (["--heads", "-3"], "--heads"), (["--heads", "abc"], "--heads"), (["--heads", "2.5"], "--heads"),
            (["--seq", "-1"], "--seq"), (["--seq", "0"], "--seq"), (["--seq", "ten"], "--seq"),
            (["--keys", "-4"], "--keys"), (["--max-bias", "-1"], "--max-bias"), (["--max-bias", "nan"], "--max-bias"),
            (["--mask", "abc"], "--mask"), (["--mask", "nan"], "--mask"), (["--mode", "sideways"], "--mode"),
            (["--layout", "khq"], "--layout"), (["--dtype", "f8"], "--dtype"), (["--scheme", "x"], "--scheme"),
            (["--max-memory", "-5"], "--max-memory"), (["--max-memory", "lots"], "--max-memory"),
        ]
        for extra, flag in cases:
            self.usage_error("bias", "--heads", 2, "--seq", 4, "-o", self.path("b.npy"), *extra, mentions=[flag])
        att = [(["--sigma", "-1"], "--sigma"), (["--dk", "0"], "--dk"), (["--temperature", "0"], "--temperature"),
               (["--seed", "-1"], "--seed"), (["--content", "noise"], "--content")]
        for extra, flag in att:
            self.usage_error("attention", "--heads", 2, "--seq", 4, "-o", self.path("a.npy"), *extra,
                             mentions=[flag])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_nan_or_negative_custom_slopes(self):
        for bad in ("nan", "-0.5", "0.5,NaN", "0.25,-1"):
            self.usage_error("bias", "--seq", 4, "--slopes", bad, "-o", self.path("b.npy"), mentions=["--slopes"])

    def test_k_less_than_q_every_row_masked_is_valid(self):
        out = self.path("a.npy")
        self.ok("attention", "--heads", 1, "--seq", 5, "--keys", 1, "-o", out)
        got = np.load(out)
        self.assertEqual(got.shape, (1, 5, 1))
        np.testing.assert_array_equal(got[0, :, 0], 1.0)  # one key: uniform rows are 1 under a finite mask

    def test_memory_budget(self):
        # Streaming exports ignore the in-memory budget; a render at a tiny budget still works
        # because it is computed at pixel resolution. A bad budget is a usage error.
        self.ok("bias", "--heads", 2, "--seq", 64, "--max-memory", "1K", "-o", self.path("b.npy"))
        self.usage_error("bias", "--heads", 2, "--seq", 4, "--max-memory", "0", "-o", self.path("c.npy"),
                         mentions=["--max-memory"])

    def test_npy_declaring_1e15_elements(self):
        path = self.path("huge.npy")
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 64)
        err = self.usage_error("diagnose", path)
        self.assertTrue(len(err.strip()) > 20)

    def test_bad_files(self):
        junk = self.path("junk.npy")
        with open(junk, "wb") as f:
            f.write(b"not a tensor at all")
        self.usage_error("diagnose", junk, mentions=["junk.npy"])
        self.usage_error("diagnose", self.path("missing.npy"), mentions=["missing.npy"])
        self.usage_error("diagnose", self.tmp)


class ConfigTests(CliTestCase):
    def write_session(self, doc):
        path = self.path("s.alibi.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_session_with_override(self):
        session = self.write_session({"version": 1, "bias": {"heads": 3, "queries": 5, "mode": "bloom",
                                                             "dtype": "f64", "mask": "-inf"}})
        out = self.path("b.npy")
        self.ok("bias", "--config", session, "-o", out)
        self.assertTrue(np.array_equal(np.load(out), self.expected_bias(3, 5, mode="bloom", dtype="f64", mask="-inf")))
        self.ok("bias", "--config", session, "--mode", "causal", "--seq", 4, "-o", out)
        self.assertTrue(np.array_equal(np.load(out), self.expected_bias(3, 4, mode="causal", dtype="f64", mask="-inf")))

    def test_session_custom_slopes_and_stats(self):
        session = self.write_session({"version": 1, "bias": {"scheme": "custom", "heads": 2, "slopes": [0.5, 0.125]}})
        doc = json.loads(self.ok("slopes", "--config", session, "--dtype", "f64", "--format", "json").stdout)
        self.assertEqual(doc["data"], [0.5, 0.125])
        doc = json.loads(self.ok("stats", "--config", session, "--format", "json").stdout)
        self.assertEqual([h["slope"] for h in doc["heads"]], [0.5, 0.125])

    def test_bad_sessions(self):
        bad = self.write_session({"version": 1, "bias": {"hedas": 3}})
        self.usage_error("bias", "--config", bad, "-o", self.path("b.npy"), mentions=["hedas"])
        self.usage_error("bias", "--config", self.path("none.alibi.json"), "-o", self.path("b.npy"),
                         mentions=["--config"])
        self.assertFalse(os.path.exists(self.path("b.npy")))


class DiagnoseTests(CliTestCase):
    def diagnose_json(self, path):
        return json.loads(self.ok("diagnose", path, "--format", "json").stdout)

    def test_files_made_by_alibi_bias_match(self):
        for h, mode, layout, dtype in ((8, "causal", "hqk", "f32"), (12, "bloom", "qkh", "f64"),
                                       (5, "symmetric", "1hqk", "f32"), (3, "mpt", "hqk", "f16")):
            out = self.path(f"d_{h}.npy")
            self.ok("bias", "--heads", h, "--seq", 16, "--mode", mode, "--layout", layout, "--dtype", dtype,
                    *(("--mask", "-inf") if dtype == "f16" else ()), "-o", out)
            doc = self.diagnose_json(out)
            msg = f"{h} {mode} {layout} {dtype}: {doc.get('summary')}"
            for key in ("layout", "heads", "queries", "keys", "dtype", "match", "max_abs_error", "findings"):
                self.assertIn(key, doc, msg)
            self.assertEqual((doc["heads"], doc["queries"], doc["keys"]), (h, 16, 16), msg)
            self.assertEqual(doc["layout"], layout, msg)
            self.assertEqual(doc["dtype"], dtype, msg)
            self.assertIsNotNone(doc["match"], msg)
            self.assertEqual(doc["match"]["scheme"], "press", msg)
            self.assertEqual(doc["match"]["mode"], mode, msg)
            self.assertEqual(doc["max_abs_error"], 0, msg)

    def test_safetensors_diagnosed(self):
        out = self.path("d.safetensors")
        self.ok("bias", "--heads", 8, "--seq", 16, "-o", out)
        doc = self.diagnose_json(out)
        self.assertIsNotNone(doc["match"])
        self.assertEqual(doc["max_abs_error"], 0)

    def test_slope_off_by_one(self):
        h, t = 8, 16
        slopes = [2.0 ** (-8.0 * k / h) for k in range(h)]  # the bug: 2^(-8h/H), head 0 gets 1.0
        values, _ = ref.bias_hqk(slopes, t, t, "causal", -1e9)
        out = self.path("off.npy")
        np.save(out, values.astype(np.float32))
        doc = self.diagnose_json(out)
        self.assertIn("slope-off-by-one", doc["findings"], doc.get("summary"))
        self.assertIsInstance(doc["summary"], str)

    def test_text_report(self):
        out = self.path("b.npy")
        self.ok("bias", "--heads", 4, "--seq", 8, "-o", out)
        text = self.ok("diagnose", out).stdout.decode()
        self.assertIn("press", text)
        self.assertIn("causal", text)


class RenderTests(CliTestCase):
    def test_png_heatmaps(self):
        for what, extra in (("bias", ()), ("attention", ("--head", 2, "--colormap", "magma"))):
            out = self.path(f"{what}.png")
            self.ok("render", "--heads", 8, "--seq", 32, "--what", what, "--width", 320, "--height", 200, "-o", out,
                    *extra)
            self.assertEqual(cli.png_size(out), (320, 200))

    def test_svg_curves(self):
        for what in ("slopes", "distance", "attention-distance"):
            out = self.path(f"{what}.svg")
            self.ok("render", "--heads", 8, "--seq", 32, "--what", what, "-o", out)
            root = ET.parse(out).getroot()
            self.assertTrue(root.tag.endswith("svg"), root.tag)

    def test_wrong_extension(self):
        self.usage_error("render", "--heads", 2, "--what", "bias", "-o", self.path("x.svg"), mentions=[".png"])
        # Curves are written as SVG or PNG now (one layout, render/view_figure.hpp); a heatmap still is
        # PNG only, and SVG takes no pixel ratio.
        self.usage_error("render", "--heads", 2, "--what", "attention", "--head", 1, "-o", self.path("x.svg"),
                         mentions=[".png"])
        self.usage_error("render", "--heads", 2, "--what", "slopes", "--pixel-ratio", 2, "-o", self.path("x.svg"),
                         mentions=["--pixel-ratio"])
        self.usage_error("render", "--heads", 2, "--what", "bias", "--head", 2, "-o", self.path("x.png"),
                         mentions=["--head"])
        self.usage_error("render", "--heads", 2, "--what", "nothing", "-o", self.path("x.png"), mentions=["--what"])
        self.assertEqual(os.listdir(self.tmp), [])


class HelpTests(CliTestCase):
    FLAGS = {
        "slopes": ["--heads", "--scheme", "--max-bias", "--slopes", "--dtype", "--format", "--output", "--config"],
        "bias": ["--seq", "--keys", "--mode", "--mask", "--layout", "--dtype", "--format", "--allow-nonfinite",
                 "--max-memory"],
        "attention": ["--content", "--seed", "--sigma", "--dk", "--temperature"],
        "stats": ["--query", "--format"],
        "render": ["--what", "--head", "--colormap", "--width", "--height"],
        "diagnose": ["FILE", "--format"],
    }

    def test_help(self):
        top = self.ok("--help").stdout.decode()
        for cmd in self.FLAGS:
            self.assertIn(cmd, top)
        self.assertIn("Example", top)
        for cmd, flags in self.FLAGS.items():
            text = self.ok(cmd, "--help").stdout.decode()
            for flag in flags:
                self.assertIn(flag, text, f"{cmd} --help")
            self.assertGreaterEqual(text.count("Example"), len([f for f in flags if f.startswith("--")]), cmd)

    def test_version_and_usage(self):
        self.assertIn("alibi", self.ok("--version").stdout.decode())
        self.usage_error()
        self.usage_error("frobnicate")
        self.usage_error("bias", "--heads", 2, "--seq", 3, "--bogus", "-o", self.path("b.npy"), mentions=["--bogus"])


if __name__ == "__main__":
    cli.main()
