"""Front-end agreement (issue 23): the same requests through the `alibi` CLI and the Python
module, compared. Tensors bit for bit, reports (stats, fit) byte for byte, figures byte for
byte, verdict strings, and refusals with their wording: the CLI's message with each flag named
as Python's keyword (the table below spells the mapping out independently of the code's
own table).

Each request is one row of a table: the CLI's arguments and the Python call that must agree.
Run by ctest as `alibi_agreement` (ALIBI_CLI and PYTHONPATH set; see conftest.py).
"""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import alibi_explorer as ax

# CLI flag -> Python keyword, for the refusals' wording (written here, not read from the code).
FLAG_TO_KEYWORD = {"--lengths": "lengths", "--seq": "seq", "--keys": "keys", "--window": "window",
                   "--prefix": "prefix", "--documents": "documents", "--positions": "positions",
                   "--mask": "mask", "--dtype": "dtype", "--batch-row": "batch_row", "--rows": "rows",
                   "--heads": "heads", "--pixel-ratio": "pixel_ratio",
                   "--slopes": "slopes"}


def cli_path():
    path = os.environ.get("ALIBI_CLI")
    if not path:
        pytest.fail("set ALIBI_CLI to the built `alibi` program (ctest does)")
    return path


def run_cli(*args):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, timeout=300)


def cli_ok(*args):
    r = run_cli(*args)
    assert r.returncode == 0, f"alibi {' '.join(map(str, args))}: {r.stderr.decode()}"
    return r.stdout.decode()


def cli_refusal(*args):
    r = run_cli(*args)
    assert r.returncode == 2, f"alibi {' '.join(map(str, args))} should refuse: exit {r.returncode}"
    line = r.stderr.decode().strip().splitlines()[-1]
    assert line.startswith("alibi: error: "), line
    return line[len("alibi: error: "):]


def python_words(cli_message):
    """The CLI's message with each flag named as Python names it."""
    return re.sub(r"(?<![a-z0-9-])--[a-z][a-z0-9-]*",
                  lambda m: FLAG_TO_KEYWORD.get(m.group(0), m.group(0)), cli_message)


# ---------------------------------------------------------------------------
# Tensors: `alibi bias|attention ... -o x.npy` against ax.bias / ax.attention.

TENSORS = [
    ("bias", ["--heads", "8", "--seq", "16"], dict(heads=8, seq=16)),
    ("bias", ["--slopes", "0.5,0.25,0.125", "--seq", "12", "--mode", "bloom"],
     dict(slopes=[0.5, 0.25, 0.125], seq=12, mode="bloom")),
    ("bias", ["--preset", "bloom-560m", "--seq", "8", "--lengths", "8,5,3", "--padding", "left", "--mask", "min"],
     dict(preset="bloom-560m", seq=8, lengths=[8, 5, 3], padding="left", mask="min")),
    ("bias", ["--heads", "4", "--seq", "12", "--documents", "5,7", "--window", "4"],
     dict(heads=4, seq=12, documents=(5, 7), window=4)),
    ("bias", ["--heads", "4", "--seq", "10", "--prefix", "3", "--positions", "naive", "--lengths", "10,6"],
     dict(heads=4, seq=10, prefix=3, positions="naive", lengths=np.array([10, 6]))),
    ("bias", ["--heads", "32", "--seq", "64", "--mode", "mpt", "--mask", "min", "--arith", "llm-foundry",
              "--dtype", "bf16"], dict(heads=32, seq=64, mode="mpt", mask="min", arith="llm-foundry", dtype="bf16")),
    ("bias", ["--heads", "8", "--seq", "16", "--dtype", "f16", "--mask", "min"], dict(heads=8, seq=16, dtype="f16",
                                                                                       mask="min")),
    ("bias", ["--heads", "6", "--seq", "16", "--keys", "40", "--mode", "symmetric", "--dtype", "f16"],
     dict(heads=6, seq=16, keys=40, mode="symmetric", dtype="f16")),
    ("attention", ["--heads", "4", "--seq", "8", "--lengths", "8,5,3", "--padding", "left", "--mask", "min"],
     dict(heads=4, seq=8, lengths=[8, 5, 3], padding="left", mask="min")),
    ("attention", ["--heads", "4", "--seq", "32", "--keys", "48", "--content", "gaussian", "--seed", "3"],
     dict(heads=4, seq=32, keys=48, content="gaussian", seed=3)),
    ("attention", ["--slopes", "0.3,0.1", "--seq", "24", "--content", "qk", "--dk", "16", "--temperature", "0.5"],
     dict(slopes=[0.3, 0.1], seq=24, content="qk", dk=16, temperature=0.5)),
    # The one slope-list grammar (decimals, fractions, powers), as text in both.
    ("bias", ["--slopes", "1/2,2^-2,0.125,1/2^4", "--seq", "8"], dict(slopes="1/2, 2^-2; 0.125 1/2^4", seq=8)),
]


@pytest.mark.parametrize("command, args, kwargs", TENSORS, ids=[" ".join(t[1]) for t in TENSORS])
def test_tensors_agree_bit_for_bit(tmp_path, command, args, kwargs):
    out = tmp_path / "cli.npy"
    cli_ok(command, *args, "-o", out)
    expected = np.load(out)
    got = getattr(ax, command)(**kwargs)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()


# ---------------------------------------------------------------------------
# Refusals: the CLI exits 2 with a message; Python raises with the same words.

REFUSALS = [
    # f16/bf16 with a finite mask the dtype cannot hold (the case first).
    (["bias", "--heads", "8", "--seq", "16", "--dtype", "f16"], lambda: ax.bias(heads=8, seq=16, dtype="f16"),
     ValueError, "f16 cannot hold the mask -1e9"),
    (["bias", "--heads", "2", "--seq", "4", "--dtype", "bf16", "--mask", "-1e39"],
     lambda: ax.bias(heads=2, seq=4, dtype="bf16", mask=-1e39), ValueError, "bf16 cannot hold"),
    (["bias", "--heads", "2", "--seq", "8", "--dtype", "f16", "--lengths", "8,5"],
     lambda: ax.bias(heads=2, seq=8, dtype="f16", lengths=[8, 5]), ValueError, "f16 cannot hold"),
    # Batch rules (the core's validateBatch), worded with Python's keywords.
    (["bias", "--heads", "2", "--seq", "8", "--lengths", "9,3"], lambda: ax.bias(heads=2, seq=8, lengths=[9, 3]),
     ValueError, "lengths"),
    (["bias", "--heads", "2", "--seq", "8", "--window", "20"], lambda: ax.bias(heads=2, seq=8, window=20),
     ValueError, "window"),
    (["bias", "--heads", "2", "--seq", "8", "--documents", "5,7"], lambda: ax.bias(heads=2, seq=8, documents=[5, 7]),
     ValueError, "documents"),
    (["bias", "--heads", "2", "--seq", "8", "--keys", "9", "--lengths", "8"],
     lambda: ax.bias(heads=2, seq=8, keys=9, lengths=[8]), ValueError, "keys"),
    (["bias", "--heads", "2", "--seq", "8", "--positions", "document"],
     lambda: ax.bias(heads=2, seq=8, positions="document"), ValueError, "documents"),
    (["bias", "--preset", "no-such-model", "--seq", "8"], lambda: ax.bias(preset="no-such-model", seq=8),
     ValueError, "no-such-model"),
    # Slope lists that do not parse, in the one grammar's words.
    (["bias", "--slopes", "0.5,abc", "--seq", "8"], lambda: ax.bias(slopes="0.5, abc", seq=8), ValueError,
     "'abc' is not a number"),
    (["bias", "--slopes", "0.5,-1", "--seq", "8"], lambda: ax.bias(slopes="0.5 -1", seq=8), ValueError,
     "'-1' is not a positive number"),
]


@pytest.mark.parametrize("args, call, error, words", REFUSALS, ids=[" ".join(r[0]) for r in REFUSALS])
def test_refusals_agree_in_their_words(tmp_path, args, call, error, words):
    message = cli_refusal(*args, "-o", tmp_path / "x.npy")
    assert words in message
    assert not (tmp_path / "x.npy").exists()
    with pytest.raises(error) as raised:
        call()
    text = str(raised.value)
    assert "--" not in text, text  # no CLI flag in a Python message
    # The core's message, named in Python's words (Python may prefix the keyword it checked).
    assert text.endswith(python_words(message).removeprefix("--preset: ")), (text, message)


# ---------------------------------------------------------------------------
# Diagnosis (issue 24): `alibi diagnose FILE [--heads/--preset/--from-config]` against
# ax.diagnose(FILE, heads=, preset=, from_config=), text and JSON byte for byte, on the frameworks'
# batch shapes (NumPy-built: HF BLOOM's (batch * heads, 1, K) with left padding and zeros on the
# padding keys, decode rows (B, H, 1, K) with -inf padding, Falcon's effective bias).

def _press(heads, max_bias=8.0):
    c = 1 << (heads.bit_length() - 1)
    base = [2.0 ** (-max_bias * (h + 1) / c) for h in range(c)]
    extra = [2.0 ** (-max_bias * (2 * k + 1) / (2 * c)) for k in range(heads - c)]
    return np.array(base + extra)


def _bloom_rows(heads, keys, lengths, max_bias=8.0):
    mask = np.zeros((len(lengths), keys), np.int64)
    for b, length in enumerate(lengths):
        mask[b, keys - length:] = 1
    positions = ((np.cumsum(mask, axis=-1) - 1) * mask).astype(np.float32)
    alibi = _press(heads, max_bias).astype(np.float32)[None, :, None] * positions[:, None, :]
    return alibi.reshape(len(lengths) * heads, 1, keys)


def _decode_rows(heads, keys, lengths, factor=1.0):
    out = np.full((len(lengths), heads, 1, keys), -np.inf)
    for b, length in enumerate(lengths):
        j = np.arange(keys - length, keys)
        out[b, :, 0, keys - length:] = -factor * _press(heads)[:, None] * (keys - 1 - j)[None, :]
    return out.astype(np.float32)


def _falcon_config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "falcon", "alibi": True, "num_attention_heads": 32,
                                "hidden_size": 2048}))
    return path


DIAGNOSES = [
    ("bloom 12 heads detected", lambda: _bloom_rows(12, 16, [16, 11, 5]), [], {}),
    ("bloom 6 heads --heads", lambda: _bloom_rows(6, 16, [16, 11]), ["--heads", "6"], dict(heads=6)),
    ("bloom --preset", lambda: _bloom_rows(16, 12, [12, 7]), ["--preset", "bloom-560m"], dict(preset="bloom-560m")),
    ("bloom max_bias 16 --preset", lambda: _bloom_rows(16, 12, [12, 7], 16.0), ["--preset", "bloom-560m"],
     dict(preset="bloom-560m")),
    ("decode rows", lambda: _decode_rows(5, 20, [20, 13, 4]), [], {}),
    ("decode rows, one row scaled", lambda: np.concatenate([_decode_rows(8, 20, [20]), _decode_rows(8, 20, [9], 3.0)]),
     [], {}),
    ("decode rows --from-config falcon", lambda: _decode_rows(32, 12, [12, 6]), ["--from-config", None],
     dict(from_config=None)),
]


@pytest.mark.parametrize("name, build, args, kwargs", DIAGNOSES, ids=[d[0] for d in DIAGNOSES])
def test_diagnoses_of_batches_agree(tmp_path, name, build, args, kwargs):
    path = tmp_path / "t.npy"
    np.save(path, build())
    config = _falcon_config(tmp_path)
    args = [str(config) if a is None else a for a in args]
    kwargs = {k: (config if v is None else v) for k, v in kwargs.items()}
    text = cli_ok("diagnose", path, *args)
    doc = cli_ok("diagnose", path, "--format", "json", *args)
    got = ax.diagnose(str(path), **kwargs)
    assert str(got) == text.rstrip("\n") or str(got) == text
    assert got.to_json() == doc
    assert got.to_dict()["rows"] is not None, name


def test_diagnose_refusals_agree(tmp_path):
    path = tmp_path / "t.npy"
    np.save(path, _bloom_rows(4, 8, [8, 5]))
    for args, kwargs in ((["--heads", "0"], dict(heads=0)), (["--heads", "3"], dict(heads=3))):
        message = cli_refusal("diagnose", path, *args)
        with pytest.raises(ValueError) as raised:
            ax.diagnose(str(path), **kwargs)
        text = str(raised.value)
        assert "--" not in text, text
        assert text.endswith(python_words(message)), (text, message)


def test_pixel_ratio_refusals_agree(tmp_path):
    """One core rule (checkFigureOutput) for --pixel-ratio and pixel_ratio=: the value, and none for SVG."""
    cases = [
        (["render", "--heads", "4", "--what", "attention", "--pixel-ratio", "3", "-o", tmp_path / "x.png"],
         dict(heads=4, what="attention", pixel_ratio=3)),
        (["render", "--heads", "8", "--seq", "64", "--what", "stages", "--pixel-ratio", "2", "-o", tmp_path / "x.svg"],
         dict(heads=8, seq=64, what="stages", format="svg", pixel_ratio=2)),
    ]
    for args, kwargs in cases:
        message = cli_refusal(*args)
        assert "--pixel-ratio" in message
        with pytest.raises(ValueError) as raised:
            ax.render(**kwargs)
        text = str(raised.value)
        assert "--" not in text, text
        assert text.endswith(python_words(message)), (text, message)
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.svg").exists()


# ---------------------------------------------------------------------------
# Reports: stats and fit, byte for byte.

def test_stats_reports_agree():
    for args, kwargs in (
        (["--heads", "8", "--seq", "64"], dict(heads=8, seq=64)),
        (["--heads", "4", "--seq", "16", "--lengths", "16,9", "--padding", "left", "--batch-row", "1", "--query", "-1"],
         dict(heads=4, seq=16, lengths=[16, 9], padding="left", batch_row=1, query=-1)),
        (["--slopes", "0.2,0.05", "--seq", "32", "--content", "gaussian", "--seed", "7"],
         dict(slopes=[0.2, 0.05], seq=32, content="gaussian", seed=7)),
    ):
        s = ax.stats(**kwargs)
        assert s.to_json() == cli_ok("stats", *args, "--format", "json")
        assert str(s) == cli_ok("stats", *args)
        assert s.to_csv() == cli_ok("stats", *args, "--format", "csv")


T = 512
CONFIGURED = [1 / 16] * 5


def synthetic_heads():
    """(5, T, T) causal heads built from the formulas: the prior at the configured slope, at
    1.3x, uniform, diagonal-only, sink-only."""
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    causal = j <= i
    out = np.zeros((5, T, T))
    for h, m in enumerate((1 / 16, 1.3 / 16, 0.0)):
        w = np.where(causal, np.exp(-m * (i - j)), 0.0)
        out[h] = w / w.sum(axis=1, keepdims=True)
    out[3][np.arange(T), np.arange(T)] = 1.0
    out[4][:, 0] = 1.0
    return out.astype(np.float32)


EXPECTED_VERDICTS = ["follows its slope", "drifted: 1.3x steeper", "no distance preference", "one key only",
                     "prefers far keys"]


@pytest.fixture(scope="module")
def heads_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("fit") / "heads.npy"
    np.save(path, synthetic_heads())
    return str(path)


@pytest.mark.parametrize("args, kwargs", [
    ([], {}),
    (["--rows", "128:"], dict(rows="128:")),
    (["--rows", ":300", "--order", "slope", "--similarity", "map"], dict(rows=(None, 300), order="slope",
                                                                        similarity="map")),
])
def test_fit_reports_and_verdicts_agree(heads_file, args, kwargs):
    slopes = ",".join(str(m) for m in CONFIGURED)
    t = ax.fit(heads_file, slopes=CONFIGURED, **kwargs)
    assert t.to_json() == cli_ok("fit", heads_file, "--slopes", slopes, *args, "--format", "json")
    assert t.to_csv() == cli_ok("fit", heads_file, "--slopes", slopes, *args, "--format", "csv")
    assert str(t) == cli_ok("fit", heads_file, "--slopes", slopes, *args)
    doc = json.loads(t.to_json())
    by_head = {h["head"]: h["verdict"] for h in doc["heads"]}
    assert [by_head[h] for h in range(5)] == EXPECTED_VERDICTS
    for h in range(5):
        assert by_head[h] in str(t)
    if args[:2] == ["--rows", "128:"]:
        assert doc["fitted_rows"] == {"first": 128, "end": T, "every": False}
        assert "query rows 128 to 511 of 512" in str(t)
        assert "every" not in str(t).splitlines()[2]


def test_fit_of_an_array_agrees_with_the_file(heads_file):
    from_file = ax.fit(heads_file, slopes=CONFIGURED)
    from_array = ax.fit(np.load(heads_file), slopes=CONFIGURED, name=heads_file)
    assert from_array.to_json() == from_file.to_json()
    assert list(from_array["verdict"]) == EXPECTED_VERDICTS


# ---------------------------------------------------------------------------
# Figures: `alibi render` against ax.render, byte for byte.

FIGURES = [
    (["--heads", "12", "--what", "slope-schemes"], dict(heads=12, what="slope-schemes"), "svg"),
    (["--heads", "6", "--max-bias", "4", "--what", "slope-schemes", "--pixel-ratio", "2", "--width", "320",
      "--height", "240"], dict(heads=6, max_bias=4, what="slope-schemes", pixel_ratio=2, width=320, height=240),
     "png"),
    (["--heads", "8", "--seq", "32", "--what", "bias"], dict(heads=8, seq=32, what="bias"), "png"),
    (["--heads", "4", "--seq", "16", "--what", "attention", "--pixel-ratio", "2", "--width", "320", "--height", "240"],
     dict(heads=4, seq=16, what="attention", pixel_ratio=2, width=320, height=240), "png"),
    (["--heads", "4", "--seq", "16", "--what", "bias", "--lengths", "16,9", "--padding", "left", "--batch-row", "1",
      "--width", "320", "--height", "240"],
     dict(heads=4, seq=16, what="bias", lengths=[16, 9], padding="left", batch_row=1, width=320, height=240), "png"),
    (["--heads", "8", "--seq", "64", "--what", "stages", "--head", "2", "--query", "40"],
     dict(heads=8, seq=64, what="stages", head=2, query=40), "svg"),
    (["--heads", "8", "--what", "schemes", "--max-distance", "256"], dict(heads=8, what="schemes", max_distance=256),
     "svg"),
    (["--heads", "8", "--seq", "64", "--what", "extrapolation", "--head", "3"],
     dict(heads=8, seq=64, what="extrapolation", head=3), "svg"),
    (["--heads", "12", "--seq", "64", "--what", "compare", "--width", "480", "--height", "360"],
     dict(heads=12, seq=64, what="compare", width=480, height=360), "png"),
    (["--heads", "12", "--what", "slopes", "--pixel-ratio", "2", "--width", "320", "--height", "240"],
     dict(heads=12, what="slopes", pixel_ratio=2, width=320, height=240), "png"),
    (["--heads", "4", "--seq", "32", "--what", "compare", "--b-scheme", "same", "--b-dtype", "bf16", "--b-mask", "min",
      "--width", "320", "--height", "240"],
     dict(heads=4, seq=32, what="compare", b_scheme="same", b_dtype="bf16", b_mask="min", width=320, height=240),
     "png"),
    (["--heads", "4", "--seq", "32", "--what", "compare", "--b-slopes", "0.5,1/8,2^-5,0.01", "--b-mode", "bloom",
      "--b-max-bias", "4", "--width", "320", "--height", "240"],
     dict(heads=4, seq=32, what="compare", b_slopes=[0.5, 0.125, 2 ** -5, 0.01], b_mode="bloom", b_max_bias=4,
          width=320, height=240), "png"),
]


def test_compare_b_refusals_are_the_clis():
    # The same rule as --b-slopes: one slope per head of A; B's keywords belong to compare only.
    with pytest.raises(ValueError, match="b_slopes lists 2 slope"):
        ax.render(heads=4, seq=16, what="compare", b_slopes=[0.5, 0.25])
    with pytest.raises(ValueError, match="b_slopes implies b_scheme='custom'"):
        ax.render(heads=2, seq=16, what="compare", b_scheme="linear", b_slopes=[0.5, 0.25])
    with pytest.raises(ValueError, match="what='compare'"):
        ax.render(heads=4, seq=16, what="bias", b_scheme="linear")
    with pytest.raises(ValueError, match="b_mode"):
        ax.render(heads=4, seq=16, what="compare", b_mode="sideways")
    cli_refusal("render", "--heads", "4", "--seq", "16", "--what", "compare", "--b-max-bias", "-3", "-o", "/dev/null")
    with pytest.raises(ValueError) as e:
        ax.render(heads=4, seq=16, what="compare", b_max_bias=-3)
    assert "max_bias" in str(e.value) and "1000" in str(e.value), str(e.value)


@pytest.mark.parametrize("args, kwargs, ext", FIGURES, ids=[" ".join(f[0]) for f in FIGURES])
def test_figures_agree_byte_for_byte(tmp_path, args, kwargs, ext):
    out = tmp_path / f"cli.{ext}"
    cli_ok("render", *args, "-o", out)
    fig = ax.render(**kwargs)
    assert fig.kind == ext
    data = fig.data if isinstance(fig.data, bytes) else fig.data.encode()
    assert data == out.read_bytes()


# ---------------------------------------------------------------------------
# Sessions: a session written by Python is the CLI's --config.

def test_session_with_a_batch_and_custom_slopes_agrees(tmp_path):
    s = ax.Session(slopes=[0.5, 0.125, 0.03125], seq=8, lengths=[8, 5], padding="left", mask="min")
    path = tmp_path / "s.alibi.json"
    s.save(path)
    out = tmp_path / "cli.npy"
    cli_ok("bias", "--config", path, "-o", out)
    assert ax.bias(session=ax.Session.load(path)).tobytes() == np.load(out).tobytes()


@pytest.mark.parametrize("args, kwargs, ext", [
    (["--what", "attention", "--width", "480", "--height", "360"], dict(what="attention", width=480, height=360), "png"),
    (["--what", "similarity", "--width", "400", "--height", "400"], dict(what="similarity", width=400, height=400),
     "png"),
    (["--what", "fit", "--head", "1", "--slopes", "0.0625,0.0625,0.0625,0.0625,0.0625"],
     dict(what="fit", head=1, slopes=[0.0625] * 5), "svg"),
    (["--what", "row", "--head", "2", "--query", "40", "--pixel-ratio", "2"],
     dict(what="row", head=2, query=40, pixel_ratio=2, format="png"), "png"),
    (["--what", "heads", "--head", "1", "--vs", "3"], dict(what="heads", head=1, vs="3"), "png"),
    (["--what", "heads", "--head", "0", "--vs", "fitted-prior", "--width", "900", "--height", "420"],
     dict(what="heads", head=0, vs="fitted-prior", width=900, height=420), "png"),
])
def test_attention_map_figures_of_a_file_agree(tmp_path, heads_file, args, kwargs, ext):
    out = tmp_path / f"cli.{ext}"
    cli_ok("render", heads_file, *args, "-o", out)
    fig = ax.render(maps=heads_file, **kwargs)
    data = fig.data if isinstance(fig.data, bytes) else fig.data.encode()
    assert fig.kind == ext and data == out.read_bytes()
