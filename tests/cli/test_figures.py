"""The heatmap figures of `alibi render` (issue 13, "figures a lecturer can drop into slides"):
exact size at --pixel-ratio 1, 2 and 4, text pixels where the title, axes, colour-bar labels and
caption belong, a 2x figure rendered at 2x (every pixel shows its own cell, which an upscaled 1x
image cannot), and a clear message when the label font is missing.

Usage: test_figures.py --alibi PATH/TO/alibi [unittest arguments]
"""

import ctypes
import ctypes.util
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_views import tile_box  # noqa: E402

ALIBI = None
MASKED_GREY = (96, 96, 96)


class _PngImage(ctypes.Structure):
    """libpng's simplified-API png_image (png.h, PNG_IMAGE_VERSION 1)."""
    _fields_ = [("opaque", ctypes.c_void_p), ("version", ctypes.c_uint32), ("width", ctypes.c_uint32),
                ("height", ctypes.c_uint32), ("format", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("colormap_entries", ctypes.c_uint32), ("warning_or_error", ctypes.c_uint32),
                ("message", ctypes.c_char * 64)]


def _libpng():
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("png16") or "libpng16.so.16")
    except OSError:
        return None
    lib.png_image_begin_read_from_file.argtypes = [ctypes.POINTER(_PngImage), ctypes.c_char_p]
    lib.png_image_finish_read.argtypes = [ctypes.POINTER(_PngImage), ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_int32, ctypes.c_void_p]
    lib.png_image_free.argtypes = [ctypes.POINTER(_PngImage)]
    return lib


LIBPNG = _libpng()


def read_png(path):
    """RGBA or RGB 8-bit PNG -> (height, width, channels) uint8. Decoded by the system's libpng
    when there is one (the pure-Python decoder below took most of this suite's time on 2x and 4x
    figures, issue 25), else by the PNG specification in Python."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    if LIBPNG is not None:
        channels = 3 if head[25] == 2 else 4
        image = _PngImage(version=1)
        assert LIBPNG.png_image_begin_read_from_file(ctypes.byref(image), path.encode()), image.message
        image.format = 2 if channels == 3 else 3  # PNG_FORMAT_RGB, PNG_FORMAT_RGBA
        out = np.empty((image.height, image.width, channels), np.uint8)
        ok = LIBPNG.png_image_finish_read(ctypes.byref(image), None, out.ctypes.data, 0, None)
        message = image.message
        LIBPNG.png_image_free(ctypes.byref(image))
        assert ok, message
        return out
    return _read_png_python(path)


def _read_png_python(path):
    """The same by the PNG specification: None, Sub and Up rows with NumPy, Average and Paeth
    rows byte by byte on plain integers."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, [], 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    stride = width * channels
    rows = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(height, stride + 1)
    out = np.empty((height, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:]
        if kind == 0:
            cur = line.copy()
        elif kind == 1:
            cur = (np.cumsum(line.reshape(-1, channels), axis=0, dtype=np.uint32) & 255).astype(np.uint8).ravel()
        elif kind == 2:
            cur = line + prev  # uint8 arithmetic wraps modulo 256
        else:
            raw, up, done = line.tolist(), prev.tolist(), [0] * stride
            for x in range(stride):
                a = done[x - channels] if x >= channels else 0
                b = up[x]
                if kind == 3:
                    pred = (a + b) >> 1
                else:
                    c = up[x - channels] if x >= channels else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                done[x] = (raw[x] + pred) & 255
            cur = np.array(done, np.uint8)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)


def run(*args, env=None):
    return subprocess.run([ALIBI, *map(str, args)], capture_output=True, timeout=300, env=env)


def text_pixels(image):
    """Label pixels: grey (r = g = b) and darker than the background, anti-aliased near-black text;
    the mask grey (96, 96, 96) is excluded by the callers' regions (no masked cells there)."""
    rgb = image[:, :, :3].astype(int)
    return (rgb[:, :, 0] == rgb[:, :, 1]) & (rgb[:, :, 1] == rgb[:, :, 2]) & (rgb[:, :, 0] < 160)


class FigureCase(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.TemporaryDirectory()
        self.tmp = self.tmpdir.name

    def tearDown(self):
        self.tmpdir.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def ok(self, *args, env=None):
        r = run(*args, env=env)
        self.assertEqual(r.returncode, 0, f"alibi {' '.join(map(str, args))} failed:\n{r.stderr.decode()}")
        return r

    def render(self, name, *args):
        out = self.path(name)
        self.ok("render", *args, "-o", out)
        return read_png(out)


class FigureTests(FigureCase):
    def test_size_at_each_pixel_ratio(self):
        for ratio in (1, 2, 4):
            image = self.render(f"r{ratio}.png", "--heads", 4, "--seq", 32, "--what", "bias", "--width", 400,
                                "--height", 300, "--pixel-ratio", ratio)
            self.assertEqual(image.shape[:2], (300 * ratio, 400 * ratio))

    def test_text_where_the_labels_belong(self):
        image = self.render("one.png", "--heads", 4, "--seq", 32, "--what", "bias", "--head", 1, "--width", 640,
                            "--height", 480)
        left, right, top, bottom = tile_box(image[:, :, :3])
        text = text_pixels(image)
        self.assertGreater(right - left, 300)
        # The title above the tile, the query ticks and axis label left of it, the key ticks, axis
        # label and caption below it, the colour bar's labels right of it.
        self.assertGreater(text[:top, :].sum(), 100, "title")
        self.assertGreater(text[top:bottom + 1, :left].sum(), 60, "query axis")
        self.assertGreater(text[bottom + 1:, left:right + 1].sum(), 150, "key axis and caption")
        self.assertGreater(text[top:(top + bottom) // 2, right + 1:].sum(), 40, "colour bar labels")
        # The first query tick "0" sits level with the middle of row 0 (32 rows in the tile).
        row0 = top + int(0.5 * (bottom - top + 1) / 32)
        self.assertGreater(text[row0 - 3:row0 + 4, :left].sum(), 3, "tick label 0 at query row 0")
        # Text is anti-aliased: grey levels between the ink and the white background occur.
        rgb = image[:, :, 0][:top]
        self.assertGreater(((rgb > 60) & (rgb < 200)).sum(), 20)

    def test_2x_is_rendered_not_upscaled(self):
        # 600 keys: at 1x a pixel of the ~470 px tile covers more than one key, at 2x each pixel
        # shows exactly one cell. Every 2x pixel is masked grey exactly when its own cell is
        # masked (j > i): an upscaled 1x image draws the causal staircase in 2-pixel steps and
        # fails here; and 2x2 blocks straddling the diagonal differ inside (no uniform blocks).
        T = 600
        one = self.render("one.png", "--heads", 2, "--seq", T, "--what", "bias", "--head", 0, "--width", 640,
                          "--height", 640)[:, :, :3]
        two = self.render("two.png", "--heads", 2, "--seq", T, "--what", "bias", "--head", 0, "--width", 640,
                          "--height", 640, "--pixel-ratio", 2)[:, :, :3]
        self.assertEqual(two.shape[:2], (2 * one.shape[0], 2 * one.shape[1]))
        l1, r1, t1, b1 = tile_box(one)
        l2, r2, t2, b2 = tile_box(two)
        w1, h1, w2, h2 = r1 - l1 + 1, b1 - t1 + 1, r2 - l2 + 1, b2 - t2 + 1
        self.assertEqual((w2, h2), (2 * w1, 2 * h1), "the 2x tile has twice the pixels each way")
        self.assertLess(w1, T)
        self.assertGreaterEqual(w2, T)
        tile = two[t2:b2 + 1, l2:r2 + 1]
        grey = (tile == MASKED_GREY).all(axis=2)
        ys, xs = np.mgrid[0:h2, 0:w2]
        i = np.minimum(((ys + 0.5) * T / h2).astype(int), T - 1)
        j = np.minimum(((xs + 0.5) * T / w2).astype(int), T - 1)
        body = ys > h2 // 8  # the head label's box sits in the top-left corner
        mismatched = (grey != (j > i)) & body
        self.assertEqual(int(mismatched.sum()), 0, "2x pixels that do not show their own cell's mask")
        # Neighbouring pixels inside one 1x pixel's 2x2 block differ along the diagonal.
        blocks = grey[:h2 // 2 * 2, :w2 // 2 * 2].reshape(h2 // 2, 2, w2 // 2, 2)
        mixed = blocks.any(axis=(1, 3)) & ~blocks.all(axis=(1, 3))
        self.assertGreater(int(mixed[h2 // 16:].sum()), h2 // 4)

    def test_missing_font_names_the_package(self):
        env = dict(os.environ, ALIBI_FONT_DIR=os.path.join(self.tmp, "no-fonts"))
        out = self.path("x.png")
        r = run("render", "--heads", 2, "--seq", 8, "--what", "bias", "-o", out, env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("fonts-dejavu-core", r.stderr.decode())
        self.assertIn("DejaVuSans.ttf", r.stderr.decode())
        self.assertFalse(os.path.exists(out), "no partial file")

    def test_bad_pixel_ratio(self):
        for args, word in (((3,), "1, 2 or 4"), ((2,), "SVG")):
            what = "slopes" if word == "SVG" else "bias"
            ext = "svg" if word == "SVG" else "png"
            r = run("render", "--heads", 2, "--what", what, "--pixel-ratio", *args, "-o", self.path(f"x.{ext}"))
            self.assertEqual(r.returncode, 2, r.stderr.decode())
            self.assertIn("--pixel-ratio", r.stderr.decode())
            self.assertIn(word, r.stderr.decode())
        r = run("render", "--heads", 2, "--what", "bias", "--width", 8000, "--pixel-ratio", 4, "-o", self.path("x.png"))
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("16384", r.stderr.decode())
        # Saved attention maps (render FILE): SVG has no pixel ratio, and the size limit holds.
        np.save(self.path("maps.npy"), np.full((1, 1, 4, 4), 0.25, dtype=np.float32))
        r = run("render", self.path("maps.npy"), "--what", "fit", "--pixel-ratio", 2, "-o", self.path("m.svg"))
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("SVG", r.stderr.decode())
        r = run("render", self.path("maps.npy"), "--width", 8000, "--pixel-ratio", 4, "-o", self.path("m.png"))
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("16384", r.stderr.decode())

    def test_every_view_writes_png_at_each_pixel_ratio(self):
        # Every --what is a figure from render/view_figure.hpp, PNG at 2x (the core tests cover 1x/2x/4x
        # of every view; this checks the CLI routes each one there).
        views = (("bias",), ("attention", "--head", 1), ("slopes",), ("distance",), ("attention-distance",),
                 ("stages", "--head", 1), ("compare",), ("extrapolation",), ("slope-schemes",))
        for what, *extra in views:
            for ratio in (2,):
                image = self.render(f"{what}-{ratio}.png", "--heads", 4, "--seq", 32, "--what", what, *extra,
                                    "--width", 520, "--height", 300, "--pixel-ratio", ratio)
                self.assertEqual(image.shape[:2], (300 * ratio, 520 * ratio), what)
                self.assertTrue(text_pixels(image).any(), f"{what}: the figure has labels")

    def test_compare_at_2x_has_twice_the_pixels_and_is_not_upscaled(self):
        # B = A rounded to bf16: A - B is rounding noise, different from cell to cell; with T = 1024 a
        # 1x pixel spans several cells, so the four 2x pixels inside it differ where an upscaled
        # picture would repeat one.
        args = ("--heads", 4, "--seq", 1024, "--what", "compare", "--b-scheme", "same", "--b-dtype", "bf16",
                "--width", 480, "--height", 360)
        one = self.render("c1.png", *args)
        two = self.render("c2.png", *args, "--pixel-ratio", 2)
        self.assertEqual(two.shape[:2], (2 * one.shape[0], 2 * one.shape[1]))
        window = two[two.shape[0] * 4 // 10:two.shape[0] * 6 // 10, two.shape[1] * 3 // 10:two.shape[1] * 6 // 10, :3]
        window = window[:window.shape[0] // 2 * 2, :window.shape[1] // 2 * 2].astype(int)
        blocks = window.reshape(window.shape[0] // 2, 2, window.shape[1] // 2, 2, 3)
        varying = (blocks.max(axis=(1, 3)) != blocks.min(axis=(1, 3))).any(axis=-1).mean()
        self.assertGreater(varying, 0.05)

    def test_diagnose_figure(self):
        # `alibi diagnose FILE --figure OUT.png`: the error map against correct ALiBi, at each ratio.
        bias = self.path("b.npy")
        self.ok("bias", "--heads", 4, "--seq", 32, "--scheme", "geometric", "--max-bias", 4, "-o", bias)
        for ratio in (1, 2):
            out = self.path(f"d{ratio}.png")
            self.ok("diagnose", bias, "--figure", out, "--pixel-ratio", ratio)
            image = read_png(out)
            self.assertEqual(image.shape[:2], (768 * ratio, 1024 * ratio))
            self.assertTrue(text_pixels(image).any())
        r = run("diagnose", bias, "--figure", self.path("d.svg"))
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("OUT.png", r.stderr.decode())
        r = run("diagnose", bias, "--pixel-ratio", 2)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("--figure", r.stderr.decode())

    def test_same_session_same_bytes(self):
        # The figure is a pure function of the session: two runs write the same bytes.
        for what in ("curves", "compare"):
            args = ("--heads", 8, "--seq", 64, "--what", "slopes" if what == "curves" else "compare",
                    "--width", 480, "--height", 320, "--pixel-ratio", 2)
            a, b = self.path(f"{what}-a.png"), self.path(f"{what}-b.png")
            self.ok("render", *args, "-o", a)
            self.ok("render", *args, "-o", b)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertEqual(fa.read(), fb.read(), what)

    def test_saved_attention_at_2x_is_drawn_not_upscaled(self):
        # One head whose 16 x 16 map alternates along each row (a checkerboard under the causal
        # mask): at 1x each cell spans several pixels; at 2x the figure has twice the pixels
        # each way, and neighbouring pixels inside one cell are equal while cells stay distinct.
        t = 16
        p = np.zeros((1, 1, t, t), dtype=np.float32)
        for i in range(t):
            w = np.array([2.0 if (i + j) % 2 == 0 else 1.0 for j in range(i + 1)])
            p[0, 0, i, : i + 1] = w / w.sum()
        np.save(self.path("checker.npy"), p)
        sizes = {}
        for ratio in (1, 2):
            out = self.path(f"checker{ratio}.png")
            r = run("render", self.path("checker.npy"), "--width", 400, "--height", 300, "--pixel-ratio", ratio,
                    "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            sizes[ratio] = read_png(out).shape[:2]
        self.assertEqual(sizes[1], (300, 400))
        self.assertEqual(sizes[2], (600, 800))
        one = tile_box(read_png(self.path("checker1.png"))[:, :, :3])
        img = read_png(self.path("checker2.png"))[:, :, :3].astype(int)
        left, right, top, bottom = tile_box(img)
        # The map has twice the 1x map's pixels each way (within the layout's rounding).
        self.assertLessEqual(abs((right - left + 1) - 2 * (one[1] - one[0] + 1)), 4)
        self.assertLessEqual(abs((bottom - top + 1) - 2 * (one[3] - one[2] + 1)), 4)
        # The map's last row (query 15, every key unmasked): colour changes only at cell edges,
        # 15 of them between 16 cells, and every cell is a run of many equal pixels (no blur).
        row = img[bottom - 2, left:right + 1]
        changes = np.nonzero(np.any(row[1:] != row[:-1], axis=1))[0]
        self.assertEqual(len(changes), t - 1, changes)
        runs = np.diff(np.concatenate(([-1], changes, [len(row) - 1])))
        self.assertTrue(np.all(runs >= (right - left) // t - 1), runs)


if __name__ == "__main__":
    argv = sys.argv[:]
    if "--alibi" not in argv:
        sys.exit("usage: test_figures.py --alibi PATH [unittest args]")
    i = argv.index("--alibi")
    ALIBI = os.path.abspath(argv[i + 1])
    del argv[i:i + 2]
    unittest.main(argv=argv, verbosity=2)
