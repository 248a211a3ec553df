"""Batches on `alibi attention`, `alibi stats` and `alibi render` (--lengths, --padding,
--documents, --window, --prefix, --positions, --batch-row), checked through the binary.

Usage: test_batch_views.py --alibi PATH/TO/alibi [unittest arguments]

Expected values are built here from the definitions, never from the program: the batch bias from
test_batches.expected_batch (BLOOM's positions, llm-foundry's sequence_id mask, a window band, a
bidirectional prefix), the softmax as a framework computes it (masked keys hold the mask value:
alibi_reference.framework_softmax), and the statistics from REFERENCES.md's formulas in NumPy.
"""

import json
import os
import struct
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alibi_reference as ref  # noqa: E402
import cli_harness as cli  # noqa: E402
import test_batches as batches  # noqa: E402  (expected_batch)

POW2 = np.array([2.0 ** -(h + 1) for h in range(8)], np.float32)  # H = 8: products exact in f32 and f64
MASKED_GREY = (96, 96, 96)


def expected_attention(bias, mask, temperature=1.0):
    """Zero content: logits = bias / T where allowed, the mask value itself where masked."""
    bias = bias.astype(np.float64)
    masked = bias == np.float64(np.float32(mask)) if np.isfinite(mask) else np.isneginf(bias)
    logits = np.where(masked, mask, bias / temperature)
    return ref.framework_softmax(logits), masked


def row_stats(p, pos):
    """REFERENCES.md: entropy -sum p ln p, mean distance sum p |pos - j|, and the smallest d whose
    window |pos - j| <= d holds 50% / 90% of the mass."""
    j = np.arange(len(p))
    live = p > 0
    entropy = -np.sum(p[live] * np.log(p[live]))
    mean = np.sum(p * np.abs(pos - j))
    total = p[live].sum()

    def within(level):
        for d in range(len(p)):
            if p[np.abs(pos - j) <= d].sum() >= level * total - 1e-12 * total:
                return d
        return len(p) - 1

    return entropy, mean, within(0.5), within(0.9)


def read_png(path):
    """RGBA or RGB 8-bit PNG -> (height, width, channels) uint8, by the PNG specification."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, np.int32)
        for x in range(stride):
            a = cur[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            cur[x] = (line[x] + pred) & 255
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels).astype(np.uint8)


class BatchViewCase(cli.CliCase):
    TMP_PREFIX = "alibi-batch-views-"


class BatchAttentionTests(BatchViewCase):
    def attention(self, *args):
        out = os.path.join(self.tmp, "a.npy")
        self.ok("attention", *args, "-o", out)
        return np.load(out)

    def test_padded_batches_every_side_and_rule(self):
        for padding in ("left", "right"):
            for positions in ("mask", "naive"):
                got = self.attention("--heads", 8, "--seq", 7, "--lengths", "7,4,2", "--padding", padding,
                                     "--positions", positions, "--dtype", "f64")
                bias = batches.expected_batch(POW2, 7, [7, 4, 2], padding, positions=positions)
                want, _ = expected_attention(bias, -1e9)
                self.assertEqual(got.shape, (3, 8, 7, 7))
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, err_msg=f"{padding} {positions}")

    def test_documents_window_prefix_temperature_f32(self):
        cases = [dict(documents=(3, 5)), dict(window=3), dict(prefix=4), dict(documents=(2, 2, 4), window=2)]
        for case in cases:
            args = ["--heads", 8, "--seq", 8, "--temperature", 0.5]
            for key in ("documents", "window", "prefix"):
                if key in case:
                    value = case[key]
                    args += [f"--{key}", ",".join(map(str, value)) if isinstance(value, tuple) else value]
            got = self.attention(*args)
            want, _ = expected_attention(batches.expected_batch(POW2, 8, **case), -1e9, temperature=0.5)
            self.assertEqual(got.dtype, np.float32)
            # Computed in double, rounded once to f32.
            np.testing.assert_array_equal(got, want.astype(np.float32), err_msg=str(case))

    def test_fully_masked_padding_queries(self):
        # Left padding: a padding query sees no real key at or before it. Under -inf its softmax is
        # 0/0 = NaN; under a finite mask every key holds the mask value and the row is uniform.
        got = self.attention("--heads", 8, "--seq", 6, "--lengths", "6,3", "--padding", "left", "--mask", "-inf",
                             "--dtype", "f64")
        self.assertTrue(np.isnan(got[1, :, :3]).all())
        self.assertFalse(np.isnan(got[1, :, 3:]).any())
        self.assertFalse(np.isnan(got[0]).any())
        got = self.attention("--heads", 8, "--seq", 6, "--lengths", "6,3", "--padding", "left", "--dtype", "f64")
        np.testing.assert_allclose(got[1, :, :3], 1 / 6, rtol=1e-12)

    def test_bhqk_with_one_row_and_bad_batches(self):
        got = self.attention("--heads", 2, "--seq", 4, "--layout", "bhqk")
        self.assertEqual(got.shape, (1, 2, 4, 4))
        out = os.path.join(self.tmp, "x.npy")
        self.usage_error("attention", "--seq", 4, "--lengths", "5", "-o", out, mentions=["--lengths"])
        self.usage_error("attention", "--seq", 4, "--window", "-1", "-o", out, mentions=["--window"])
        self.assertFalse(os.path.exists(out))


class BatchStatsTests(BatchViewCase):
    def test_stats_of_a_padded_row(self):
        doc = json.loads(self.ok("stats", "--heads", 8, "--seq", 8, "--lengths", "8,5", "--padding", "left",
                                 "--batch-row", 1, "--format", "json").stdout)
        bias = batches.expected_batch(POW2, 8, [8, 5], "left")
        probs, masked = expected_attention(bias, -1e9)
        real = [3, 4, 5, 6, 7]  # left padding: the 5 real tokens are the last five
        self.assertEqual(doc["query"], 7)  # -1: the row's last real token
        self.assertEqual(doc["rows_averaged"], len(real))
        for h, head in enumerate(doc["heads"]):
            at = row_stats(probs[1, h, 7], 7)
            mean = np.mean([row_stats(probs[1, h, i], i) for i in real], axis=0)
            got = head["row"]
            self.assertAlmostEqual(got["entropy"], at[0], places=9)
            self.assertAlmostEqual(got["mean_distance"], at[1], places=9)
            self.assertEqual((got["distance_50"], got["distance_90"]), (at[2], at[3]))
            self.assertAlmostEqual(head["mean"]["entropy"], mean[0], places=9)
            self.assertAlmostEqual(head["mean"]["mean_distance"], mean[1], places=9)
            self.assertAlmostEqual(head["mean"]["distance_50"], mean[2], places=9)

    def test_bad_batch_row(self):
        self.usage_error("stats", "--seq", 6, "--lengths", "6,3", "--batch-row", 2, mentions=["--batch-row", "0 and 1"])


def longest_run(mask):
    """(start, end) of the longest run of True in a sequence of booleans, end exclusive."""
    padded = np.concatenate(([False], np.asarray(mask, dtype=bool), [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    if len(edges) == 0:
        return (0, 0)
    starts, ends = edges[0::2], edges[1::2]
    k = int(np.argmax(ends - starts))
    return (int(starts[k]), int(ends[k]))


def tile_box(image):
    """left, right, top, bottom (inclusive) of the single heatmap tile of a one-head figure."""
    white = (image == 255).all(axis=2)
    runs = [longest_run(~row) for row in white]
    top, end = longest_run([b - a >= image.shape[1] // 2 for a, b in runs])
    bottom = end - 1
    left, end = runs[(top + bottom) // 2]
    return left, end - 1, top, bottom


class BatchRenderTests(BatchViewCase):
    def test_masked_cells_are_grey_exactly_where_the_batch_masks(self):
        for what in ("bias", "attention"):
            out = os.path.join(self.tmp, f"{what}.png")
            self.ok("render", "--heads", 2, "--seq", 8, "--lengths", "8,3", "--documents", "2,6", "--batch-row", 1,
                    "--what", what, "--head", 0, "--width", 320, "--height", 360, "-o", out)
            image = read_png(out)[:, :, :3]
            self.assertEqual(image.shape[:2], (360, 320))
            # The tile: the tallest block of rows whose longest run of non-white pixels spans half
            # the width or more (a line of text may too, the colour bar never does), and that run's columns.
            left, right, top, bottom = tile_box(image)
            bias = batches.expected_batch(POW2[:2], 8, [8, 3], documents=(2, 6))
            _, masked = expected_attention(bias, -1e9)
            h, w = bottom - top + 1, right - left + 1
            for i in range(8):
                for j in range(8):
                    y = top + int((i + 0.5) * h / 8)
                    x = left + int((j + 0.5) * w / 8)
                    grey = tuple(int(c) for c in image[y, x]) == MASKED_GREY
                    self.assertEqual(grey, bool(masked[1, 0, i, j]), f"{what} cell ({i}, {j})")

    def test_bad_batch_row(self):
        self.usage_error("render", "--seq", 6, "--lengths", "6,3", "--batch-row", 5, "--what", "bias",
                         "-o", os.path.join(self.tmp, "x.png"), mentions=["--batch-row"])
        self.usage_error("render", "--seq", 6, "--lengths", "6,3", "--what", "attention", "--log-scale",
                         "-o", os.path.join(self.tmp, "x.png"), mentions=["--log-scale"])
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    cli.main()
