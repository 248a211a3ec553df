"""Every value the module returns equals the CLI's export of the same parameters, bit for bit
(the same core code computes both; these tests catch a binding that converts, reorders or
rounds anything), and the reports equal the CLI's text and JSON byte for byte."""
import json

import numpy as np
import pytest

import alibi_explorer as ax


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


BIAS_CASES = [
    dict(heads=8, seq=16),
    dict(heads=12, seq=33, mode="bloom", dtype="bf16", mask="min"),
    dict(heads=5, seq=7, keys=19, mode="mpt", layout="qkh", dtype="f16", mask="min"),
    dict(heads=3, seq=9, mode="symmetric", layout="1hqk", dtype="f64", scheme="geometric", max_bias=6.5),
    dict(heads=4, seq=6, mode="clamped", layout="flat", mask="-inf", scheme="linear"),
    dict(seq=5, slopes=[0.5, 0.1, 0.03], mask=-123.5),
    dict(heads=12, seq=20, mode="bloom", arith="hf-bloom"),
    dict(heads=6, seq=11, mode="mpt", arith="llm-foundry", dtype="bf16"),
]


def flags(case):
    out = []
    for key, value in case.items():
        if key == "slopes":
            value = ",".join(map(repr, value))
        out += ["--" + key.replace("_", "-"), str(value)]
    return out


@pytest.mark.parametrize("case", BIAS_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_bias_equals_cli_npy(case, cli, tmp_path):
    out = tmp_path / "bias.npy"
    cli("bias", *flags(case), "-o", out)
    assert same_bits(ax.bias(**case), np.load(out))


@pytest.mark.parametrize("case", [dict(heads=4, seq=32, content="qk", dk=16, seed=3),
                                  dict(heads=3, seq=20, keys=40, content="gaussian", sigma=2.0, temperature=0.5,
                                       dtype="f64", mode="mpt"),
                                  dict(heads=2, seq=12, dtype="bf16")])
def test_attention_equals_cli_npy(case, cli, tmp_path):
    out = tmp_path / "attention.npy"
    cli("attention", *flags(case), "-o", out)
    assert same_bits(ax.attention(**case), np.load(out))


@pytest.mark.parametrize("case", [dict(heads=12), dict(heads=7, scheme="geometric", dtype="f16"),
                                  dict(slopes=[0.5, 0.25, 0.3], dtype="f64"), dict(heads=5, dtype="bf16")])
def test_slopes_equal_cli_npy(case, cli, tmp_path):
    out = tmp_path / "slopes.npy"
    cli("slopes", *flags(case), "-o", out)
    assert same_bits(ax.slopes(**case), np.load(out))


def test_defaults_are_the_clis(cli, tmp_path):
    out = tmp_path / "bias.npy"
    cli("bias", "-o", out)
    assert same_bits(ax.bias(), np.load(out))
    assert ax.bias().shape == (8, 16, 16) and ax.bias().dtype == np.float32


def test_stats_report_equals_cli(cli):
    case = dict(heads=6, seq=48, query=20, content="gaussian", seed=5)
    s = ax.stats(**case)
    assert s.to_json() == cli("stats", *flags(case), "--format", "json")
    assert str(s) == cli("stats", *flags(case))
    assert s.to_csv() == cli("stats", *flags(case), "--format", "csv")
    assert s.to_dict() == json.loads(s.to_json())
    assert s.num_heads == 6 and s.query == 20 and len(s.heads) == 6


@pytest.mark.parametrize("fixture", ["diagnose_f16_overflow.npy", "diagnose_qkh_numpy_f32.npy",
                                     "diagnose_qkh_reshaped_as_hqk.npy"])
def test_diagnosis_equals_cli(fixture, cli, source_dir):
    path = str(source_dir / "tests" / "data" / fixture)
    from_path = ax.diagnose(path)
    assert str(from_path) == cli("diagnose", path)
    assert from_path.to_json() == cli("diagnose", path, "--format", "json")
    # An array read in memory gives the same report, named as asked.
    from_array = ax.diagnose(np.load(path), name=path)
    assert str(from_array) == str(from_path)
    assert from_array.to_dict() == from_path.to_dict()
    doc = json.loads(from_path.to_json())
    assert from_path.findings == doc["findings"] and from_path.match == doc["match"]


def test_diagnose_recovers_parameters():
    d = ax.diagnose(ax.bias(heads=12, seq=40, mode="bloom", max_bias=6))
    assert d.match["scheme"] == "press" and d.match["mode"] == "bloom" and d.match["max_bias"] == 6
    assert d.findings == [] and d.max_abs_error == 0
    assert repr(d) == str(d).rstrip("\n")


def test_render_png_equals_cli(cli, tmp_path):
    case = dict(heads=6, seq=40, what="attention", content="qk", colormap="magma", width=320, height=200)
    out = tmp_path / "grid.png"
    cli("render", *flags(case), "-o", out)
    fig = ax.render(**case)
    assert fig._repr_png_() == out.read_bytes()
    assert fig._repr_svg_() is None
    assert fig.to_array().shape == (200, 320, 4) and fig.to_array().dtype == np.uint8


@pytest.mark.parametrize("what", ["slopes", "distance", "attention-distance"])
def test_render_svg_equals_cli(what, cli, tmp_path):
    case = dict(heads=12, seq=30, what=what, head=2, width=500, height=300)
    out = tmp_path / "curves.svg"
    cli("render", *flags(case), "-o", out)
    fig = ax.render(**case)
    assert fig.data == out.read_text() and fig._repr_png_() is None
    # Jupyter gets the same SVG without the XML declaration, which IPython refuses in a str.
    assert not fig._repr_svg_().startswith("<?xml") and out.read_text().endswith(fig._repr_svg_())


def test_figure_save(tmp_path):
    fig = ax.render(heads=2, seq=8, width=64, height=48)
    fig.save(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes() == fig.data
    with pytest.raises(ValueError, match="PNG"):
        fig.save(tmp_path / "g.svg")
    assert not (tmp_path / "g.svg").exists()
    with pytest.raises(OSError):
        fig.save(tmp_path / "missing-folder" / "g.png")


def test_render_defaults_to_the_bias_grid(cli, tmp_path):
    out = tmp_path / "grid.png"
    cli("render", "--heads", 12, "--seq", 64, "--what", "bias", "-o", out)
    assert ax.render(heads=12, seq=64).data == out.read_bytes()
