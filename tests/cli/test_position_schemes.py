"""ALiBi beside the other position schemes (`alibi render --what schemes`, issue 13 item 2): the SVG
carries the six labels (ALiBi, RoPE, sinusoidal, T5, KERPLE, Sandwich) in its legend and on its
curves, and every curve's numbers, read back from its polyline through the figure's own grid lines,
match the formula computed here in NumPy (T5's bucket as HF transformers computes it, sinusoidal
embeddings built as vectors, RoPE's sums); the PNG has the figure's size times --pixel-ratio and
the schemes' colours; --quantity attention draws the softmax of the bias alone; bad flags say
what to do.

Usage: test_position_schemes.py --alibi PATH/TO/alibi [unittest arguments]
"""

import math
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_views import read_png  # noqa: E402

ALIBI = None
SVG = "{http://www.w3.org/2000/svg}"
LABELS = {"ALiBi", "RoPE", "sinusoidal", "T5", "KERPLE", "Sandwich"}


def run(*args):
    return subprocess.run([ALIBI, *map(str, args)], capture_output=True, timeout=300)


# ---------------------------------------------------------------------------
# The formulas, independently of the program

def t5_bucket(relative_position, bidirectional, num_buckets=32, max_distance=128):
    """T5Attention._relative_position_bucket for one int, in float32 as torch computes it."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if relative_position > 0 else 0
        n = abs(relative_position)
    else:
        n = -min(relative_position, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(np.log(np.float32(n) / np.float32(max_exact))
                            / np.float32(math.log(max_distance / max_exact)) * np.float32(num_buckets - max_exact))
    return bucket + min(large, num_buckets - 1)


def t5_profile(b):
    return -2.5 * np.log1p(b) + 0.3 * np.sin(2.3 * b)  # the stated illustrative profile


def sinusoidal_embedding(pos, dim):
    k = np.arange(dim // 2)
    angle = pos / 10000.0 ** (2 * k / dim)
    p = np.empty(dim)
    p[0::2], p[1::2] = np.sin(angle), np.cos(angle)
    return p


def sinusoidal_pp(d, dim=128):
    return np.array([sinusoidal_embedding(1000.0, dim) @ sinusoidal_embedding(1000.0 - x, dim) for x in d])


def rope_expected(d, dim=128):
    theta = 10000.0 ** (-2 * np.arange(dim // 2) / dim)
    return 2 * np.cos(np.outer(d, theta)).sum(axis=1) / np.sqrt(dim)


def rope_bound(d, dim=128):
    theta = 10000.0 ** (-2 * np.arange(dim // 2) / dim)
    s = np.cumsum(np.exp(1j * np.outer(d, theta)), axis=1)  # S_1 .. S_{dim/2}
    return np.abs(s).sum(axis=1) / (dim // 2)


def sandwich_bias(d, head, heads, dbar=128):
    """Sandwich as NVIDIA NeMo's SandwichRelativePositionEmbedding computes it (commit c42ec1b):
    sum_{k=1}^{dbar/2} cos(d / 10000^(2k/dbar)) - dbar/2, divided by 8h/H for the 1-based head h."""
    inv_freq = 1.0 / 10000.0 ** (2 * np.arange(1, dbar // 2 + 1) / dbar)
    return (np.cos(np.outer(d, inv_freq)).sum(axis=1) - dbar / 2) / ((head + 1) * 8 / heads)


def expected_logits(d, heads=8):
    out = {f"ALiBi h{h} (m = 1/{2 ** (h + 1)})": -(2.0 ** -(h + 1)) * d for h in range(heads)}
    out["RoPE E[q·R(d)q]/sqrt(d_k)"] = rope_expected(d)
    out["RoPE decay bound"] = rope_bound(d) * np.sqrt(128) / rope_bound(np.zeros(1))[0]  # scaled to sqrt(d_k) at 0
    out["sinusoidal p_i·p_j/sqrt(d)"] = sinusoidal_pp(d) / np.sqrt(128)
    out["T5 decoder"] = t5_profile(np.array([t5_bucket(-int(x), False) for x in d], float))
    out["T5 encoder"] = t5_profile(np.array([t5_bucket(-int(x), True) for x in d], float))
    out["KERPLE log"] = -2 * np.log1p(d)  # r1 = 2, r2 = 1
    out["KERPLE power"] = -np.sqrt(d)
    out["Sandwich h0 (scale 1)"] = sandwich_bias(d, 0, heads)
    out[f"Sandwich h{heads - 1} (scale 1/8)"] = sandwich_bias(d, heads - 1, heads)
    return out


# ---------------------------------------------------------------------------
# Reading the figure back

class Figure:
    """The curves of a position-schemes SVG, mapped back to data through its grid lines."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        groups = {g.get("class"): g for g in root.iter(SVG + "g")}
        vertical = [ln for ln in groups["grid"] if ln.get("x1") == ln.get("x2")]
        horizontal = [ln for ln in groups["grid"] if ln.get("y1") == ln.get("y2")]
        xs = [float(t.text) for t in groups["x-ticks"]]
        # A log2 axis (attention) labels its ticks 2^e: the curves are then read back as log2 values.
        self.log_y = all(t.text.startswith("2^") for t in groups["y-ticks"])
        ys = [float(t.text[2:] if self.log_y else t.text) for t in groups["y-ticks"]]
        self.x_fit = np.polyfit([float(ln.get("x1")) for ln in vertical], xs, 1)
        self.y_fit = np.polyfit([float(ln.get("y1")) for ln in horizontal], ys, 1)
        self.title = next(t.text for t in root.iter(SVG + "text") if t.get("class") == "title")
        self.legend = [t.text for t in groups["legend"].iter(SVG + "text")]
        # Wrapped lines joined, continuation indents dropped.
        self.caption = " ".join(" ".join(t.text for t in groups["caption"].iter(SVG + "text")).split())
        self.labels, self.curves = set(), {}
        for line in groups["curves"].iter(SVG + "polyline"):
            self.labels.add(line.get("data-label"))
            name = line.find(SVG + "title").text.split(": ")[0]
            pts = np.array([[float(v) for v in p.split(",")] for p in line.get("points").split()])
            self.curves[name] = (np.polyval(self.x_fit, pts[:, 0]), np.polyval(self.y_fit, pts[:, 1]))


class PositionSchemesTests(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="alibi-schemes-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def ok(self, *args):
        r = run(*args)
        self.assertEqual(r.returncode, 0, f"alibi {' '.join(map(str, args))} failed:\n{r.stderr.decode()}")
        return r

    def usage_error(self, *args, mentions=()):
        r = run(*args)
        self.assertEqual(r.returncode, 2, f"alibi {' '.join(map(str, args))}: {r.stderr.decode()}")
        for word in mentions:
            self.assertIn(word, r.stderr.decode())

    def test_svg_has_the_six_labels_and_every_formula(self):
        out = self.path("schemes.svg")
        self.ok("render", "--heads", 8, "--what", "schemes", "-o", out)
        fig = Figure(out)
        self.assertEqual(fig.labels, LABELS)
        self.assertEqual(fig.title, "ALiBi beside other position schemes: logit contribution vs distance (D = 128)")
        for label in LABELS:
            self.assertTrue(any(text.startswith(label) for text in fig.legend), f"{label} not in {fig.legend}")
        # At 1024 x 768 the formulas and sources would fill half the figure (issue 27): the caption
        # keeps to a fifth of it and says where they are.
        self.assertIn("docs/POSITION_SCHEMES.md", fig.caption)
        # A figure tall enough for them carries every formula and its source.
        out = self.path("tall.svg")
        self.ok("render", "--heads", 8, "--what", "schemes", "--width", 1600, "--height", 1600, "-o", out)
        fig = Figure(out)
        for words in ("Press, Smith, Lewis", "RoFormer", "Vaswani", "_relative_position_bucket",
                      "illustrative, not learned", "KERPLE (NeurIPS 2022)", "ACL 2023", "NeMo", "(8h/H)"):
            self.assertIn(words, fig.caption)

    def test_svg_curves_match_the_formulas(self):
        out = self.path("schemes.svg")
        self.ok("render", "--heads", 8, "--what", "schemes", "--width", 1400, "--height", 1000, "-o", out)
        fig = Figure(out)
        d = np.arange(129, dtype=float)
        want = expected_logits(d)
        self.assertEqual(set(fig.curves), set(want))
        span = max(np.ptp(np.concatenate([v for v in want.values()])), 1.0)
        for name, values in want.items():
            x, y = fig.curves[name]
            np.testing.assert_allclose(x, d, atol=0.01, err_msg=name)
            # Read back through 2-decimal pixel coordinates: far below a thousandth of the span.
            np.testing.assert_allclose(y, values, atol=2e-4 * span, err_msg=name)
        # Hand-checked T5 buckets at d = 0, 1, 15, 16, 17, 100, 128 (HF, 32 buckets, max_distance 128).
        self.assertEqual([t5_bucket(-x, False) for x in (0, 1, 15, 16, 17, 100, 128, 1000)], [0, 1, 15, 16, 16, 30, 31, 31])
        self.assertEqual([t5_bucket(-x, True) for x in (0, 1, 15, 16, 17, 100, 128, 1000)], [0, 1, 9, 10, 10, 15, 15, 15])

    def test_attention_is_the_softmax_of_the_bias(self):
        out = self.path("attention.svg")
        self.ok("render", "--heads", 4, "--what", "schemes", "--quantity", "attention", "--max-distance", 60, "-o", out)
        fig = Figure(out)
        self.assertEqual(fig.labels, {"ALiBi", "T5", "KERPLE", "Sandwich"})
        self.assertTrue(any("RoPE: none under zero content" in t for t in fig.legend))
        d = np.arange(61, dtype=float)
        logits = {f"ALiBi h{h} (m = 1/{4 ** (h + 1)})": -(4.0 ** -(h + 1)) * d for h in range(4)}
        logits["KERPLE log"] = -2 * np.log1p(d)
        logits["T5 decoder"] = t5_profile(np.array([t5_bucket(-int(x), False) for x in d], float))
        logits["Sandwich h0 (scale 1/2)"] = sandwich_bias(d, 0, 4)  # 8h/H = 2 for h = 1 of 4
        logits["Sandwich h3 (scale 1/8)"] = sandwich_bias(d, 3, 4)
        self.assertTrue(fig.log_y)
        for name, z in logits.items():
            p = np.exp(z - z.max())
            p /= p.sum()
            x, y = fig.curves[name]
            # log2 of the probability, values below 2^-40 drawn on the floor.
            np.testing.assert_allclose(y, np.log2(np.maximum(p, 2.0 ** -40)), atol=0.02, err_msg=name)

    def test_png_size_and_colours(self):
        out = self.path("schemes.png")
        self.ok("render", "--heads", 8, "--what", "schemes", "--pixel-ratio", 2, "-o", out)
        with open(out, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(struct.unpack(">II", head[16:24]), (2048, 1536))  # 1024 x 768 at 2x
        one = self.path("one.png")
        self.ok("render", "--heads", 8, "--what", "schemes", "--width", 900, "--height", 700, "-o", one)
        image = read_png(one)
        self.assertEqual(image.shape[:2], (700, 900))
        rgb = image[:, :, :3].astype(int)
        for colour in ((214, 39, 40), (255, 127, 14), (44, 160, 44), (148, 103, 189), (227, 119, 194)):
            # RoPE, sinusoidal, T5, KERPLE, Sandwich: each scheme's colour is drawn.
            self.assertTrue(np.all(rgb == colour, axis=-1).any(), colour)

    def test_bad_flags_say_what_to_do(self):
        svg = self.path("x.svg")
        self.usage_error("render", "--what", "schemes", "--max-distance", 0, "-o", svg, mentions=["1..65536"])
        self.usage_error("render", "--what", "schemes", "--quantity", "probability", "-o", svg,
                         mentions=["logit", "attention"])
        self.usage_error("render", "--what", "bias", "--max-distance", 10, "-o", self.path("x.png"),
                         mentions=["--what schemes"])
        self.usage_error("render", "--what", "schemes", "--pixel-ratio", 2, "-o", svg, mentions=["--pixel-ratio"])
        self.usage_error("render", "--what", "schemes", "--width", 300, "--height", 200, "-o", svg,
                         mentions=["at least 900 x 700"])
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    argv = sys.argv[:]
    if "--alibi" not in argv:
        sys.exit("usage: test_position_schemes.py --alibi PATH [unittest args]")
    i = argv.index("--alibi")
    ALIBI = os.path.abspath(argv[i + 1])
    del argv[i:i + 2]
    unittest.main(argv=argv, verbosity=2)
