"""`alibi fit`: effective slopes of saved attention maps, checked through the binary.

Usage: test_fit.py --alibi PATH/TO/alibi [unittest arguments]

The maps are made here in NumPy from known slopes (softmax of -m (i - j) over the causal keys,
plus Gaussian content where stated) and written as .npy (np.save) and .safetensors (by hand,
one tensor per layer), so nothing under test produces its inputs. The expected slopes are the
ones the maps were made from.
"""

import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness as cli  # noqa: E402


def prior_maps(slopes, t, sigma=0.0, seed=0, keys=None):
    """(H, Q, K) causal softmax(-m (i - j) + N(0, sigma^2)), query i at position i + K - Q."""
    keys = keys or t
    rng = np.random.default_rng(seed)
    i = (np.arange(t) + keys - t)[:, None]
    j = np.arange(keys)[None, :]
    out = np.empty((len(slopes), t, keys))
    for h, m in enumerate(slopes):
        logits = -m * (i - j) + (rng.normal(0, sigma, (t, keys)) if sigma else 0.0)
        logits = np.where(j <= i, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        out[h] = p / p.sum(axis=1, keepdims=True)
    return out


def write_safetensors(path, tensors, metadata=None):
    """One F32 tensor per (name, array), in order."""
    with open(path, "wb") as f:
        f.write(cli.safetensors_bytes([(name, np.asarray(array, np.float32), None) for name, array in tensors],
                                      metadata=metadata))


PAPER_8 = [2.0 ** (-(h + 1)) for h in range(8)]  # 2^(-8 (h+1) / 8)


class FitTests(cli.CliCase):
    def fit_json(self, *args):
        r = cli.run("fit", *args, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return json.loads(r.stdout)

    def test_pure_prior_slopes_within_one_percent(self):
        maps = np.stack([prior_maps(PAPER_8, 128), prior_maps(PAPER_8[::-1], 128)])  # (L=2, H, T, T)
        np.save(self.path("a.npy"), maps.astype(np.float32))
        doc = self.fit_json(self.path("a.npy"), "--heads", "8")
        self.assertEqual(doc["layers"], 2)
        self.assertEqual(doc["values"], "probabilities")
        self.assertTrue(doc["causal"])
        self.assertEqual(len(doc["heads"]), 16)
        for entry in doc["heads"]:
            for key in ("layer", "head", "slope", "slope_low", "slope_high", "kl", "sink_mass", "entropy",
                        "mean_distance", "distance_90", "configured_slope"):
                self.assertIn(key, entry)
            truth = (PAPER_8 if entry["layer"] == 0 else PAPER_8[::-1])[entry["head"]]
            self.assertAlmostEqual(entry["slope"], truth, delta=0.01 * truth)
            self.assertEqual(entry["configured_slope"], PAPER_8[entry["head"]])
            self.assertLess(entry["kl"], 1e-5)
            # Entropy and mean distance of the maps, computed here.
        layer0 = maps[0]
        i = np.arange(128)[:, None]
        j = np.arange(128)[None, :]
        d = np.where(j <= i, i - j, 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.nansum(np.where(layer0 > 0, layer0 * np.log(layer0), 0), axis=2).mean(axis=1)
        mean_distance = (layer0 * d).sum(axis=2).mean(axis=1)
        for entry in doc["heads"][:8]:
            self.assertAlmostEqual(entry["entropy"], entropy[entry["head"]], delta=1e-5)
            self.assertAlmostEqual(entry["mean_distance"], mean_distance[entry["head"]], delta=1e-4)
            self.assertAlmostEqual(entry["sink_mass"], layer0[entry["head"], :, 0].mean(), delta=1e-6)

    def test_content_slope_inside_interval(self):
        slopes = [0.5, 0.125, 0.03125]
        np.save(self.path("c.npy"), prior_maps(slopes, 256, sigma=1.0, seed=5).astype(np.float32))
        doc = self.fit_json(self.path("c.npy"))
        for entry, truth in zip(doc["heads"], slopes):
            self.assertLessEqual(entry["slope_low"], truth)
            self.assertGreaterEqual(entry["slope_high"], truth)
            self.assertNotIn("configured_slope", entry)

    def test_safetensors_layers_numbered_by_name_and_scores(self):
        # Pre-softmax scores (log-probabilities, -inf masked) in f16, one (1, H, T, T) tensor per layer.
        t = 64
        tensors = []
        for layer, scale in ((12, 1.0), (3, 2.0), (7, 4.0)):
            p = prior_maps([s * scale / 4 for s in PAPER_8[:4]], t)
            with np.errstate(divide="ignore"):
                tensors.append((f"transformer.h.{layer}.attn", np.log(p)[None]))
        write_safetensors(self.path("s.safetensors"), tensors)
        doc = self.fit_json(self.path("s.safetensors"))
        self.assertEqual(doc["values"], "scores")
        self.assertEqual([h["layer"] for h in doc["heads"]], [3] * 4 + [7] * 4 + [12] * 4)
        self.assertAlmostEqual(doc["heads"][0]["slope"], PAPER_8[0] * 2 / 4, delta=0.005 * PAPER_8[0])
        one = self.fit_json(self.path("s.safetensors"), "--layer", "7")
        self.assertEqual({h["layer"] for h in one["heads"]}, {7})
        named = self.fit_json(self.path("s.safetensors"), "--tensor", "transformer.h.12.attn")
        self.assertEqual({h["layer"] for h in named["heads"]}, {12})

    def test_batched_stack_and_csv(self):
        maps = np.stack([np.stack([prior_maps([0.5, 0.25], 32)]), np.stack([prior_maps([0.125, 0.0625], 32)])])
        np.save(self.path("b.npy"), maps.astype(np.float32))  # (B=2, L=1, H=2, T, T)
        doc = self.fit_json(self.path("b.npy"), "--batch", "1")
        self.assertAlmostEqual(doc["heads"][0]["slope"], 0.125, delta=0.00125)
        r = cli.run("fit", self.path("b.npy"), "-o", self.path("fit.csv"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("fit.csv")) as f:
            rows = f.read().splitlines()
        self.assertTrue(rows[0].startswith("layer,head,slope,slope_low,slope_high"))
        self.assertEqual(len(rows), 3)
        self.assertAlmostEqual(float(rows[1].split(",")[2]), 0.5, delta=0.005)

    def test_similarity_order_puts_identical_heads_together(self):
        maps = prior_maps([0.5, 0.01, 0.01, 0.5, 0.1], 64)
        np.save(self.path("sim.npy"), maps.astype(np.float32))
        for basis in ("profile", "map"):
            doc = self.fit_json(self.path("sim.npy"), "--order", "similarity", "--similarity", basis)
            order = doc["similarity"][0]["order"]
            self.assertEqual(abs(order.index(0) - order.index(3)), 1, basis)
            self.assertEqual(abs(order.index(1) - order.index(2)), 1, basis)
            self.assertEqual([h["head"] for h in doc["heads"]], order)
            dist = np.array(doc["similarity"][0]["distances"])
            self.assertAlmostEqual(dist[0, 3], 0.0, delta=1e-6)
            # Profile JSD of heads 0 and 1, computed here from the maps.
            if basis == "profile":
                def profile(h):
                    prof = np.zeros(64)
                    for i in range(64):
                        prof[: i + 1] += maps[h, i, i::-1]
                    return prof / prof.sum()
                a, b = profile(0), profile(1)
                mix = (a + b) / 2
                jsd = 0.5 * np.sum(np.where(a > 0, a * np.log2(a / mix), 0)) + 0.5 * np.sum(
                    np.where(b > 0, b * np.log2(b / mix), 0))
                self.assertAlmostEqual(dist[0, 1], np.sqrt(jsd), delta=1e-9)

    def test_bad_files_exit_2_with_a_message(self):
        good = prior_maps([0.5], 8).astype(np.float32)
        np.save(self.path("rank.npy"), good[0])
        nan = good.copy()
        nan[0, 3, 1] = np.nan
        np.save(self.path("nan.npy"), nan)
        np.save(self.path("half.npy"), good * 0.5)
        np.save(self.path("huge.npy"), np.zeros((5000, 1, 1), np.float32))
        np.save(self.path("trunc.npy"), good)
        with open(self.path("trunc.npy"), "r+b") as f:
            f.truncate(os.path.getsize(self.path("trunc.npy")) - 5)
        write_safetensors(self.path("overlap.safetensors"), [("l.0", good), ("l.1", good)])
        with open(self.path("overlap.safetensors"), "r+b") as f:
            data = bytearray(f.read())
            data = data.replace(b"[256, 512]", b"[200, 456]")
            f.seek(0)
            f.write(data)
        cases = [
            ("rank.npy", [], "dimensions"),
            ("nan.npy", [], "NaN"),
            ("half.npy", ["--values", "probabilities"], "not 1"),
            ("huge.npy", [], "limits"),
            ("trunc.npy", [], "truncated"),
            ("overlap.safetensors", [], "overlap"),
        ]
        for name, extra, words in cases:
            r = cli.run("fit", self.path(name), *extra)
            self.assertEqual(r.returncode, 2, f"{name}: {r.stderr.decode()}")
            self.assertIn(words, r.stderr.decode(), name)
            self.assertNotIn("Traceback", r.stderr.decode())
        for args, words in ((["--layer", "9"], "no layer 9"), (["--rows", "x"], "row range"),
                            (["--order", "nope"], "expected index"), (["--heads", "3"], "head count")):
            np.save(self.path("ok.npy"), good)
            r = cli.run("fit", self.path("ok.npy"), *args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr.decode()}")
            self.assertIn(words, r.stderr.decode(), args)

    def test_render_file_views(self):
        t = 64
        maps = prior_maps([2.0, 0.5, 0.1, 0.02], t)
        np.save(self.path("r.npy"), np.stack([maps, maps[::-1]]).astype(np.float32))
        r = cli.run("render", self.path("r.npy"), "--layer", "1", "--what", "attention", "--width", "400", "--height",
                "300", "-o", self.path("grid.png"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("grid.png"), "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(struct.unpack(">II", head[16:24]), (400, 300))
        r = cli.run("render", self.path("r.npy"), "--what", "similarity", "-o", self.path("sim.png"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        r = cli.run("render", self.path("r.npy"), "--what", "fit", "--head", "1", "--heads", "4", "-o", self.path("fit.svg"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("fit.svg")) as f:
            svg = f.read()
        self.assertIn("layer 0 head 1: attention vs distance", svg)
        self.assertIn("fitted prior, m* = 0.5", svg)
        self.assertIn("configured prior, m = 1/16", svg)  # press slopes of H = 4: 2^-2 (h+1)
        # The same plot as PNG at 2x has twice the pixels; the row plot and the overview too.
        for what, extra in (("fit", ["--head", "1"]), ("row", ["--head", "2", "--query", "7"]), ("overview", [])):
            r = cli.run("render", self.path("r.npy"), "--what", what, *extra, "--width", "640", "--height", "400",
                        "--pixel-ratio", "2", "-o", self.path(what + ".png"))
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            with open(self.path(what + ".png"), "rb") as f:
                self.assertEqual(struct.unpack(">II", f.read(24)[16:24]), (1280, 800), what)
        # Without --height the overview ends below what it drew (its grid is bound by the width, so
        # the session's 768 left a blank band); with --height it is exactly that tall.
        for extra, fixed in (([], False), (["--height", "768"], True)):
            r = cli.run("render", self.path("r.npy"), "--what", "overview", *extra, "-o", self.path("ov.png"))
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            width, height = cli.png_size(self.path("ov.png"))
            self.assertEqual(width, 1024)
            if fixed:
                self.assertEqual(height, 768)
            else:
                self.assertLess(height, 768)
        r = cli.run("render", self.path("r.npy"), "--what", "row", "--head", "2", "--query", "7", "-o", self.path("row.svg"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("row.svg")) as f:
            svg = f.read()
        self.assertIn("head 2, query row 7: probability by key", svg)
        self.assertIn("fitted prior, m* = ", svg)
        for args, words in ((["--what", "overview", "-o", self.path("x.svg")], "FILE.png"),
                            (["--what", "overview", "--layer", "0", "-o", self.path("x.png")], "drop --layer"),
                            (["--what", "row", "--query", "999", "-o", self.path("x.png")], "query rows (0 to"),
                            (["--what", "row", "--head", "9", "-o", self.path("x.png")], "heads (0 to"),
                            (["--what", "bias", "-o", self.path("x.png")], "expected attention, overview, similarity"),
                            (["--layer", "5", "--what", "attention", "-o", self.path("x.png")], "no layer 5")):
            r = cli.run("render", self.path("r.npy"), *args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr.decode()}")
            self.assertIn(words, r.stderr.decode(), args)

    def test_render_two_heads(self):
        t = 32
        layer0, layer1 = prior_maps([1.0, 0.25, 0.05], t), prior_maps([0.5, 0.1, 2.0], t, sigma=0.5, seed=3)
        write_safetensors(self.path("two.safetensors"), [("model.layers.0.attn", layer0),
                                                         ("model.layers.1.attn", layer1)])
        src = self.path("two.safetensors")
        # A | B | B - A: three square panels, so the figure is as tall as they need unless --height
        # (a third of the width for the tiles plus their frame: between 0.3 and 0.45 of the width).
        for args, size in ((["--head", "0:1", "--vs", "1:2"], (1024, None)),
                           (["--layer", "1", "--head", "0", "--vs", "2", "--width", "800", "--height", "500"], (800, 500)),
                           (["--head", "1:1", "--vs", "fitted-prior", "--pixel-ratio", "2"], (2048, None)),
                           (["--head", "0:2", "--vs", "prior", "--heads", "3"], (1024, None))):
            r = cli.run("render", src, "--what", "heads", *args, "-o", self.path("heads.png"))
            self.assertEqual(r.returncode, 0, f"{args}: {r.stderr.decode()}")
            width, height = cli.png_size(self.path("heads.png"))
            self.assertEqual(width, size[0], args)
            if size[1] is None:
                self.assertTrue(0.3 * width < height < 0.45 * width, f"{args}: {width} x {height}")
            else:
                self.assertEqual(height, size[1], args)
        # Out of range, missing or misplaced sides: exit 2 and a message naming the range or the way out.
        for args, words in ((["--what", "heads", "--head", "0:1", "--vs", "5:0"], "layers 0 to 1"),
                            (["--what", "heads", "--head", "0:9", "--vs", "1:0"], "heads 0 to 2"),
                            (["--what", "heads", "--head", "7:0", "--vs", "1:0"], "layers 0 to 1"),
                            (["--what", "heads", "--head", "0:1", "--vs", "1:x"], "LAYER:HEAD"),
                            (["--what", "heads", "--head", "0:1"], "needs --vs"),
                            (["--what", "heads", "--head", "0:1", "--vs", "prior"], "no slopes are paired"),
                            (["--what", "attention", "--vs", "1:0"], "drop it"),
                            (["--what", "heads", "--head", "0:1", "--vs", "1:0", "--log-scale"], "drop --log-scale")):
            r = cli.run("render", src, *args, "-o", self.path("x.png"))
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr.decode()}")
            self.assertIn(words, r.stderr.decode(), args)
            self.assertFalse(os.path.exists(self.path("x.png")), args)
        r = cli.run("render", "--heads", "4", "--what", "bias", "--vs", "1:0", "-o", self.path("x.png"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("give the FILE", r.stderr.decode())

    def test_a_model_runs_maps_pair_with_the_slopes_they_name(self):
        """`alibi run` writes the slopes its maps were computed with: fit and render pair with them
        when no slopes are named, and named slopes win."""
        slopes = [0.5, 0.125, 0.03125]
        src = self.path("run.safetensors")
        write_safetensors(src, [("attentions.0", prior_maps(slopes, 32))],
                          metadata={"slopes": json.dumps(slopes), "format": "pt"})
        doc = self.fit_json(src)
        self.assertEqual([e["configured_slope"] for e in doc["heads"]], slopes)
        self.assertEqual([e["verdict_kind"] for e in doc["heads"]], ["follows"] * 3)
        named = self.fit_json(src, "--heads", "3")  # press slopes of H = 3: 2^-4, 2^-8, then 2^-2
        self.assertEqual([e["configured_slope"] for e in named["heads"]], [2.0 ** -4, 2.0 ** -8, 2.0 ** -2])
        r = cli.run("render", src, "--what", "heads", "--head", "0:1", "--vs", "prior", "-o", self.path("h.png"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        # Slopes that do not fit the heads are not used (and the fit says nothing of them).
        write_safetensors(src, [("attentions.0", prior_maps(slopes, 32))], metadata={"slopes": "[0.5, 0.25]"})
        self.assertNotIn("configured_slope", self.fit_json(src)["heads"][0])

    def test_example_assets_open_and_name_the_drifted_heads(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "attention")
        for name in ("trained-like-4x8x64.npy", "trained-like-4x8x64.safetensors"):
            r = cli.run("fit", os.path.join(root, name), "--heads", "8")
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            text = r.stdout.decode()
            self.assertIn("follows its slope", text)
            self.assertIn("drifted: 4x flatter", text)  # layer 3 head 3 was made with m / 4
            self.assertIn("drifted: 4x steeper", text)  # layer 2 head 0 with 4 m
            self.assertIn("not ALiBi-shaped", text)     # previous-token and copy heads
            self.assertIn("prefers far keys", text)     # the sinks

    def test_verdicts_of_synthetic_heads_in_every_format(self):
        """The verdict rule (docs/FIT.md) on heads built here: the prior at the configured slope,
        at 1.3x, uniform, diagonal-only, sink-only; the same words in the table, CSV and JSON."""
        t = 512
        i = np.arange(t)[:, None]
        j = np.arange(t)[None, :]
        heads = np.zeros((5, t, t))
        for h, m in enumerate((1 / 16, 1.3 / 16, 0.0)):
            w = np.where(j <= i, np.exp(-m * (i - j)), 0.0)
            heads[h] = w / w.sum(axis=1, keepdims=True)
        heads[3][np.arange(t), np.arange(t)] = 1.0
        heads[4][:, 0] = 1.0
        np.save(self.path("v.npy"), heads.astype(np.float32))
        expected = ["follows its slope", "drifted: 1.3x steeper", "no distance preference", "one key only",
                    "prefers far keys"]
        slopes = ["--slopes", ",".join(["0.0625"] * 5)]
        doc = self.fit_json(self.path("v.npy"), *slopes)
        self.assertEqual([h["verdict"] for h in doc["heads"]], expected)
        self.assertEqual([h["verdict_kind"] for h in doc["heads"]],
                         ["follows", "steeper", "no-distance-preference", "one-key", "prefers-far-keys"])
        diagonal = doc["heads"][3]
        self.assertGreaterEqual(diagonal["slope_low"], 0)  # no [-1, 30]
        self.assertEqual(diagonal["slope_low"], diagonal["slope_high"])
        r = cli.run("fit", self.path("v.npy"), *slopes, "--format", "csv")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        rows = r.stdout.decode().splitlines()
        self.assertTrue(rows[0].endswith(",configured_slope,verdict,verdict_kind"))
        self.assertEqual([row.split(",")[-2] for row in rows[1:]], expected)
        text = cli.run("fit", self.path("v.npy"), *slopes).stdout.decode()
        for line, words in zip(text.splitlines()[-5:], expected):
            self.assertTrue(line.endswith(words), line)
        self.assertNotIn("e+", text)  # no 8.6e+15x ratios

    def test_rows_range_is_named_in_the_header_and_json(self):
        np.save(self.path("r.npy"), prior_maps(PAPER_8[:2], 256).astype(np.float32))
        r = cli.run("fit", self.path("r.npy"), "--rows", "128:")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        text = r.stdout.decode()
        self.assertIn("over query rows 128 to 255 of 256", text)
        self.assertNotIn("every", text.splitlines()[2])
        doc = self.fit_json(self.path("r.npy"), "--rows", "128:")
        self.assertEqual(doc["fitted_rows"], {"first": 128, "end": 256, "every": False})
        self.assertTrue(all(h["rows"] == 128 for h in doc["heads"]))
        doc = self.fit_json(self.path("r.npy"))
        self.assertEqual(doc["fitted_rows"], {"first": 0, "end": 256, "every": True})
        self.assertIn("over every query row", cli.run("fit", self.path("r.npy")).stdout.decode())


if __name__ == "__main__":
    cli.main()
