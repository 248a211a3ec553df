"""The CLI's rules and reach in Python (issue 23): refusals, presets and configs, batches, the
explorer views, ax.fit's table; TypeError for a wrong type, ValueError for a bad value; lists
accepted wherever arrays are. Golden values come from NumPy here."""
import json

import numpy as np
import pytest

import alibi_explorer as ax


def test_f16_with_the_default_mask_is_refused_in_the_cli_words():
    with pytest.raises(ValueError) as raised:
        ax.bias(heads=8, seq=16, dtype="f16")
    message = str(raised.value)
    assert "f16 cannot hold the mask -1e9" in message
    assert "mask min" in message and "--" not in message
    b = ax.bias(heads=8, seq=16, dtype="f16", mask="min")  # the fix the message names
    assert np.isfinite(b.astype(np.float32)).all()
    assert ax.diagnose(b).findings == []
    # -inf on purpose, and a form with nothing masked, are not refused.
    assert np.isneginf(ax.bias(heads=2, seq=4, dtype="f16", mask="-inf")).any()
    assert ax.bias(heads=2, seq=4, dtype="f16", mode="symmetric").dtype == np.float16


def test_batches_from_lists_tuples_and_arrays():
    for lengths in ([5, 3], (5, 3), np.array([5, 3]), "5, 3"):
        b = ax.bias(heads=2, seq=5, lengths=lengths, mask="min")
        assert b.shape == (2, 2, 5, 5)
    b = ax.bias(heads=2, seq=5, lengths=[5, 3], padding="left", mask="min")
    lowest = np.finfo(np.float32).min
    assert (b[1, :, :, :2] == lowest).all()  # row 1's two left pads are masked as keys
    with pytest.raises(TypeError):
        ax.bias(heads=2, seq=5, lengths=5)
    with pytest.raises(ValueError, match="lengths"):
        ax.bias(heads=2, seq=5, lengths=[5, 2.5])
    with pytest.raises(ValueError, match="padding"):
        ax.bias(heads=2, seq=5, lengths=[5], padding="middle")


def test_preset_and_from_config(tmp_path):
    b = ax.bias(preset="bloom-560m", seq=4, mask="min")
    assert b.shape[0] == 16
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "bloom", "n_head": 12, "n_layer": 2, "hidden_size": 96}))
    s = ax.slopes(session=ax.Session(from_config=str(cfg)))
    np.testing.assert_allclose(s, [2.0 ** (-8.0 * (h + 1) / 8) if h < 8 else 2.0 ** (-(2 * (h - 8) + 1) * 0.5)
                                   for h in range(12)], rtol=1e-6)
    with pytest.raises(ValueError, match="from_config"):
        ax.bias(from_config=str(tmp_path / "missing.json"))
    with pytest.raises(TypeError):
        ax.bias(from_config=3)


def test_views_and_pixel_ratio():
    one = ax.render(heads=4, seq=16, width=200, height=150)
    two = ax.render(heads=4, seq=16, width=200, height=150, pixel_ratio=2)
    assert one.to_array().shape == (150, 200, 4) and two.to_array().shape == (300, 400, 4)
    for what in ("stages", "schemes", "extrapolation"):
        fig = ax.render(heads=4, seq=32, what=what)
        assert fig.kind == "svg" and "<svg" in fig.data[:200]
        assert ax.render(heads=4, seq=32, what=what, format="png").to_array().shape == (768, 1024, 4)
    assert ax.render(heads=4, seq=16, what="compare").kind == "png"
    with pytest.raises(ValueError, match="pixel_ratio"):
        ax.render(heads=4, pixel_ratio=3)
    with pytest.raises(TypeError):
        ax.render(heads=4, pixel_ratio="2")
    with pytest.raises(ValueError, match="pixel_ratio"):
        ax.render(heads=4, what="stages", format="svg", pixel_ratio=2)
    with pytest.raises(ValueError, match="schemes"):
        ax.render(heads=4, what="stages", max_distance=64)


def prior(m, t):
    i = np.arange(t)[:, None]
    j = np.arange(t)[None, :]
    w = np.where(j <= i, np.exp(-m * (i - j)), 0.0)
    return w / w.sum(axis=1, keepdims=True)


def test_fit_table_columns_and_formats():
    maps = np.stack([prior(0.25, 256), prior(0.0625, 256)])  # (H=2, T, T)
    t = ax.fit(maps.tolist(), slopes=[0.25, 0.25])            # a list of lists works as an array
    assert len(t) == 2
    assert isinstance(t["slope"], np.ndarray) and t["slope"].dtype == np.float64
    np.testing.assert_allclose(t["slope"], [0.25, 0.0625], rtol=0.01)
    assert list(t["verdict"]) == ["follows its slope", "drifted: 4x flatter"]
    assert list(t["verdict_kind"]) == ["follows", "flatter"]
    np.testing.assert_array_equal(t["head"], [0, 1])
    assert t.to_dict()["heads"][1]["verdict"] == "drifted: 4x flatter"
    assert t.to_csv().splitlines()[0].endswith(",verdict,verdict_kind")
    assert "drifted: 4x flatter" in str(t)
    # Without the model's slopes: no comparison, still a verdict on the shape.
    assert list(ax.fit(maps)["verdict"]) == ["ALiBi-shaped", "ALiBi-shaped"]
    assert np.isnan(ax.fit(maps)["configured_slope"]).all()
    # The similarity matrix.
    s = ax.fit(maps, similarity="profile").similarity
    assert len(s) == 1 and s[0]["distances"].shape == (2, 2)
    assert s[0]["distances"][0, 0] == 0 and s[0]["distances"][0, 1] > 0
    # Rows as a string, a pair or a slice.
    for rows in ("128:", (128, None), slice(128, None)):
        assert ax.fit(maps, rows=rows).to_dict()["fitted_rows"] == {"first": 128, "end": 256, "every": False}


def test_fit_errors():
    maps = np.stack([prior(0.25, 32)])
    with pytest.raises(ValueError, match="rows"):
        ax.fit(maps, rows="a:b")
    with pytest.raises(TypeError):
        ax.fit(maps, rows=3.5)
    with pytest.raises(TypeError):
        ax.fit(maps, layer="0")
    with pytest.raises(ValueError, match="order"):
        ax.fit(maps, order="random")
    with pytest.raises(ValueError, match="heads"):
        ax.fit(maps, heads=4)  # 4 configured slopes for a 1-head file
    with pytest.raises(TypeError):
        ax.fit(object())
    with pytest.raises((OSError, ValueError)):
        ax.fit("/nonexistent/attn.npy")
