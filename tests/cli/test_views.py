"""The explorer views `alibi render` draws besides the heatmaps and curves: --what slope-schemes,
stages, extrapolation and compare (with B's flags), and the heatmap flags --reduce and
--log-scale, checked through the binary.

Usage: test_views.py --alibi PATH/TO/alibi [unittest arguments]

Each SVG's data is read back from its polylines through its own tick marks (a tick's line sits at
the tick value's pixel), so the test checks the numbers the figure states, and the golden numbers
come from REFERENCES.md's formulas in NumPy (alibi_reference.py), never from the program.
"""

import os
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alibi_reference as ref  # noqa: E402
import cli_harness as cli  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


class Plot:
    """One plotSvg plot: its title, and each series' data mapped back through the ticks."""

    def __init__(self, svg):
        texts = [t for t in svg.iter(SVG + "text")]
        self.title = next((t.text for t in texts if t.get("font-weight") == "bold"), None)
        self.log_y = False

        # The extrapolation's distance axis is log2(1 + d): its ticks 0, 1, 2, 4 sit at log2(1 + d).
        self.log1p_x = any("log2(1 + d)" in (t.text or "") for t in texts)

        def axis(cls, coordinate, log1p=False):
            pairs = []
            for g in svg.iter(SVG + "g"):
                if g.get("class") != cls:
                    continue
                children = list(g)
                labels = [label.text for label in children[1::2]]
                # A log2 axis labels its ticks 1/256 ... 1/2, 1 (or 2^-30): read their exponents.
                log2 = any("/" in t or t.startswith("2^") for t in labels)
                for line, text in zip(children[0::2], labels):
                    if log2:
                        self.log_y = True
                        if text.startswith("2^"):
                            value = float(text[2:])
                        elif "/" in text:
                            num, den = text.split("/")
                            value = np.log2(float(num) / float(den))
                        else:
                            value = np.log2(float(text))
                    else:
                        value = np.log2(1 + float(text)) if log1p else float(text)
                    pairs.append((value, float(line.get(coordinate))))
            values, pixels = np.array(pairs).T
            slope, intercept = np.polyfit(values, pixels, 1)
            if log1p:
                return lambda p: 2.0 ** ((np.asarray(p) - intercept) / slope) - 1
            return lambda p: (np.asarray(p) - intercept) / slope

        self.to_x = axis("x-ticks", "x1", self.log1p_x)
        self.to_y = axis("y-ticks", "y1")
        self.series = {}
        # Bars (the stages): each <rect> in a "bars" group, its title "LABEL at X: Y"; the value is
        # the bar's edge farther from zero, read back through the ticks.
        for g in svg.iter(SVG + "g"):
            if g.get("class") != "bars":
                continue
            for rect in g.iter(SVG + "rect"):
                label = rect.find(SVG + "title").text.rsplit(" at ", 1)[0]
                x0, y0 = float(rect.get("x")), float(rect.get("y"))
                w, h = float(rect.get("width")), float(rect.get("height"))
                ends = self.to_y(np.array([y0, y0 + h]))
                xs, ys = self.series.get(label, ([], []))
                xs.append(float(self.to_x(x0 + w / 2)))
                ys.append(float(ends[np.argmax(np.abs(ends))]))
                self.series[label] = (xs, ys)
        self.series = {k: (np.array(x), np.array(y)) for k, (x, y) in self.series.items()}
        for poly in svg.iter(SVG + "polyline"):
            label = poly.find(SVG + "title").text
            pts = np.array([[float(v) for v in p.split(",")] for p in poly.get("points").split()])
            x, y = self.to_x(pts[:, 0]), self.to_y(pts[:, 1])
            self.series[label] = (x, 2.0 ** y if self.log_y else y)


def plots(path):
    root = ET.parse(path).getroot()
    # A figure of several plots side by side (the stages) holds each in a <g class="plot">.
    panels = [g for g in root.iter(SVG + "g") if g.get("class") == "plot"]
    return [Plot(p) for p in panels] if panels else [Plot(root)]


class ViewCase(cli.CliCase):
    TMP_PREFIX = "alibi-views-"


class ViewTests(ViewCase):
    def test_slope_schemes(self):
        # The slope-scheme comparison moved from --what schemes (now ALiBi beside the other position
        # schemes, test_position_schemes.py) to --what slope-schemes, and draws what it drew.
        for heads, max_bias in ((12, 8), (5, 16), (8, 8)):
            out = self.path("slope-schemes.svg")
            self.ok("render", "--heads", heads, "--max-bias", max_bias, "--what", "slope-schemes", "-o", out)
            (plot,) = plots(out)
            self.assertEqual(plot.title, f"Slope schemes, H = {heads}, max_bias {max_bias}")
            want = {"press": ref.press_slopes(heads, max_bias), "geometric": ref.geometric_slopes(heads, max_bias),
                    "linear": ref.linear_slopes(heads)}
            self.assertEqual(set(plot.series), set(want))
            for name, slopes in want.items():
                x, y = plot.series[name]
                np.testing.assert_allclose(x, np.arange(heads), atol=0.01, err_msg=name)
                # Read back through a log2 axis: a hundredth of a pixel is far below one part in 1000.
                np.testing.assert_allclose(np.log2(y), np.log2(np.array(slopes, float)), atol=1e-3, err_msg=name)

    def test_stages(self):
        out = self.path("stages.svg")
        self.ok("render", "--heads", 8, "--seq", 16, "--what", "stages", "--head", 2, "--query", 10,
                "--temperature", 2, "-o", out)
        stages = plots(out)
        self.assertEqual([p.title for p in stages], ["1 · content logits", "2 · + ALiBi bias", "3 · masked, / temperature",
                                                    "4 · softmax"])
        root = ET.parse(out).getroot()
        notes = [t.text for t in root.iter(SVG + "text")]
        self.assertEqual(notes.count("keys 11-15: masked (-1e9)"), 2)  # stages 2 and 3 say what they leave out
        self.assertEqual(notes.count("all 0 (zero content)"), 1)  # stage 1 says why it looks empty
        m = ref.geometric_slopes(8)[2]  # press = geometric for a power of two: 1/8
        j = np.arange(16)
        allowed = j <= 10
        bias = np.where(allowed, -m * (10 - j), -1e9)
        content = stages[0].series["head 2, query 10"]
        np.testing.assert_allclose(content[1], 0, atol=1e-6)  # zero content
        np.testing.assert_allclose(content[0], j[j <= 10], atol=0.01)  # every panel spans keys 0..10
        x, y = stages[1].series["head 2, query 10"]
        np.testing.assert_allclose(x, j[allowed], atol=0.01)  # masked keys are hidden at stage 2
        np.testing.assert_allclose(y, bias[allowed], atol=1e-3)
        x, y = stages[2].series["head 2, query 10"]
        np.testing.assert_allclose(x, j[allowed], atol=0.01)  # and at stage 3
        np.testing.assert_allclose(y, bias[allowed] / 2, atol=1e-3)
        x, y = stages[3].series["head 2, query 10"]
        want = ref.framework_softmax(np.where(allowed, bias / 2, -1e9))
        np.testing.assert_allclose(x, j[allowed], atol=0.01)  # the masked keys' 0 is not drawn either
        np.testing.assert_allclose(y, want[allowed], atol=1e-4)
        self.assertAlmostEqual(y.sum(), 1.0, places=3)

    def test_extrapolation(self):
        out = self.path("extrapolation.svg")
        self.ok("render", "--heads", 8, "--seq", 64, "--what", "extrapolation", "--head", 3, "-o", out)
        (plot,) = plots(out)
        self.assertEqual(plot.title, "Head 3: attention vs distance as T grows (L = 64)")
        self.assertEqual(list(plot.series), ["T = 64 (= L)", "T = 128", "T = 256", "T = 512", "T = 1024"])
        m = 2.0 ** -4  # head 3 of 8
        for label, (d, p) in plot.series.items():
            t = int(re.search(r"T = (\d+)", label).group(1))
            # The last query sees every key: p(d) = e^(-m d) (1 - e^-m) / (1 - e^(-m T)), d = 0..T-1.
            want = np.exp(-m * d) * (1 - np.exp(-m)) / (1 - np.exp(-m * t))
            self.assertGreaterEqual(d.max(), t - 1.5, label)
            np.testing.assert_allclose(p, want, atol=2e-4, err_msg=label)

    def compare(self, *args):
        out = self.path("compare.png")
        r = self.ok("render", "--heads", 12, "--seq", 64, "--what", "compare", "--width", 640, "--height", 400,
                    *args, "-o", out)
        self.assertEqual(cli.png_size(out), (640, 400))
        return r.stderr.decode()

    @staticmethod
    def bias(slopes, t=64, dtype=np.float32):
        i = np.arange(t)[:, None]
        j = np.arange(t)[None, :]
        values = np.array(slopes, dtype)[:, None, None] * (-(i - j)).astype(dtype)[None]
        return np.where(j <= i, values, dtype(-1e9))

    def max_difference(self, a, b):
        # Over the cells no side masks (j <= i): masked cells are drawn grey, not as a difference.
        t = a.shape[-1]
        allowed = np.tril(np.ones((t, t), bool))[None]
        diff = np.where(allowed, np.abs(a.astype(np.float64) - b.astype(np.float64)), 0.0)
        h, i, j = np.unravel_index(np.argmax(diff), diff.shape)
        return diff[h, i, j], h, i, j

    def test_compare_against_geometric_by_default(self):
        text = self.compare()
        value, h, i, j = self.max_difference(self.bias(ref.press_slopes(12)), self.bias(ref.geometric_slopes(12)))
        match = re.search(r"max \|A - B\| = ([0-9.e+-]+) at head (\d+), query (\d+), key (\d+)", text)
        self.assertIsNotNone(match, text)
        self.assertAlmostEqual(float(match.group(1)), value, delta=value * 1e-5)
        self.assertEqual(tuple(int(g) for g in match.groups()[1:]), (h, i, j))
        self.assertIn("B: A with scheme geometric", text)

    def test_compare_b_flags(self):
        text = self.compare("--b-scheme", "linear", "--b-max-bias", 8)
        value, *_ = self.max_difference(self.bias(ref.press_slopes(12)), self.bias(ref.linear_slopes(12)))
        match = re.search(r"max \|A - B\| = ([0-9.e+-]+)", text)
        self.assertAlmostEqual(float(match.group(1)), value, delta=value * 1e-5, msg=text)
        self.assertIn("scheme linear", text)
        custom = [0.5 ** (h + 1) for h in range(12)]
        text = self.compare("--b-slopes", ",".join(map(str, custom)))
        value, *_ = self.max_difference(self.bias(ref.press_slopes(12)), self.bias(custom))
        self.assertAlmostEqual(float(re.search(r"max \|A - B\| = ([0-9.e+-]+)", text).group(1)), value,
                               delta=value * 1e-5, msg=text)
        text = self.compare("--b-scheme", "same")
        self.assertIn("identical", text)
        # bf16 B: A - B is A's rounding to bf16, at most half a bf16 ulp of the largest |bias|.
        text = self.compare("--b-scheme", "same", "--b-dtype", "bf16")
        a = self.bias(ref.press_slopes(12))
        value, *_ = self.max_difference(a, ref.bf16_round(a).astype(np.float32))
        self.assertAlmostEqual(float(re.search(r"max \|A - B\| = ([0-9.e+-]+)", text).group(1)), value,
                               delta=value * 1e-4, msg=text)

    def test_compare_bad_b_flags(self):
        out = self.path("x.png")
        args = ("render", "--heads", 4, "--what", "compare", "-o", out)
        self.usage_error(*args, "--b-scheme", "steep", mentions=["--b-scheme", "same"])
        self.usage_error(*args, "--b-slopes", "0.5,0.25", mentions=["--b-slopes", "4 head"])
        self.usage_error(*args, "--b-scheme", "linear", "--b-slopes", "1,2,3,4", mentions=["--b-scheme custom"])
        self.usage_error(*args, "--b-mask", "lots", mentions=["--b-mask"])
        self.usage_error(*args, "--b-max-bias", "x", mentions=["--b-max-bias"])
        self.assertFalse(os.path.exists(out))

    def test_views_refuse_the_wrong_extension(self):
        # Every view writes PNG; the heatmap views (compare among them) have no SVG.
        self.usage_error("render", "--what", "compare", "-o", self.path("x.svg"), mentions=[".png"])
        self.usage_error("render", "--what", "bias", "-o", self.path("x.svg"), mentions=[".png"])
        self.usage_error("render", "--what", "stages", "--pixel-ratio", 3, "-o", self.path("x.png"),
                         mentions=["1, 2 or 4"])
        self.assertEqual(os.listdir(self.tmp), [])


class HeatmapFlagTests(ViewCase):
    def render(self, *args):
        out = self.path("a.png")
        self.ok("render", "--heads", 4, "--seq", 2048, "--what", "attention", "--width", 320, "--height", 240,
                *args, "-o", out)
        self.assertEqual(cli.png_size(out), (320, 240))
        with open(out, "rb") as f:
            return f.read()

    def test_reduce_and_log_scale_change_the_picture(self):
        default = self.render()
        self.assertEqual(self.render("--reduce", "auto"), default)
        self.assertEqual(self.render("--reduce", "max"), default)  # attention's default
        pictures = {default, self.render("--reduce", "sum"), self.render("--reduce", "mean"), self.render("--log-scale")}
        self.assertEqual(len(pictures), 4)

    def test_bad_reduce(self):
        self.usage_error("render", "--what", "bias", "--reduce", "median", "-o", self.path("x.png"),
                         mentions=["--reduce", "auto, mean, max, sum"])
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    cli.main()
