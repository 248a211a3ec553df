"""`alibi run` / `alibi loss` and alibi_explorer.run / loss read a session's `model` section (the
model folder, text, length and slope change the explorers save): the session gives the same
numbers through `alibi loss --config`, `alibi loss` with the equivalent flags, and Python, and
those numbers are the NumPy forward pass's (lm_reference.py) with the session's slopes. Flags and
keywords given replace the session's values one by one. Refusals (a session without a `model`
section, a length the text cannot give) are worded the same by the CLI and by Python, since both
come from the core (lm::resolveRunInput, lm::prepareRun)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import alibi_explorer as ax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lm_reference as ref  # noqa: E402

TOL = 1e-5
TEXT = "Permission is hereby granted, free of charge, to any person obtaining a copy"


@pytest.fixture()
def shipped(source_dir):
    folder = source_dir / "assets" / "models" / "license-bloom-tiny"
    if not (folder / "config.json").exists():
        pytest.skip("no shipped model in this tree")
    return folder


def held_weights(folder):
    with open(folder / "config.json") as f:
        config = json.load(f)
    with open(folder / "model.safetensors", "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    dtypes = {"F32": "<f4", "F16": "<f2"}
    held = {}
    for name, e in header.items():
        begin, end = e["data_offsets"]
        short = name[len("transformer."):] if name.startswith("transformer.") else name
        held[short] = np.frombuffer(data[begin:end], dtypes[e["dtype"]]).reshape(e["shape"]).astype(np.float64)
    return config, held


def write_session(path, model_section):
    doc = json.loads(ax.Session().to_json())
    if model_section is not None:
        doc["model"] = model_section
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def cli_fails(*args):
    """The CLI's message for a refused run (without its "alibi: error: " prefix)."""
    result = subprocess.run([os.environ["ALIBI_CLI"], *map(str, args)], capture_output=True, timeout=300)
    assert result.returncode != 0
    message = result.stderr.decode().strip().splitlines()[-1]
    assert message.startswith("alibi: error: "), message
    return message[len("alibi: error: "):]


def test_session_cli_flags_and_python_agree(tmp_path, shipped, cli):
    session = write_session(tmp_path / "run.alibi.json", {
        "path": str(shipped), "text": TEXT, "length": 18, "slope_scale": 0.5, "head_slopes": {"4": 0.0625}})
    from_session = json.loads(cli("loss", "--config", session, "--format", "json"))
    from_flags = json.loads(cli("loss", shipped, "--text", TEXT, "--length", 18, "--slope-scale", 0.5,
                                "--head-slope", "4=1/16", "--format", "json"))
    assert from_session["token_ids"] == from_flags["token_ids"]
    assert len(from_session["token_ids"]) == 18
    assert from_session["a"]["loss"] == from_flags["a"]["loss"]
    assert from_session["b"]["loss"] == from_flags["b"]["loss"]
    assert from_session["b"]["slopes"] == from_flags["b"]["slopes"]
    # Python: the session's path, or the Session object; ax.loss gives B's loss (the change applied).
    b = ax.loss(session=session)
    assert np.max(np.abs(b - np.array(from_session["b"]["loss"]))) < 1e-6
    assert np.array_equal(ax.loss(session=ax.Session.load(str(session))), b)
    # The NumPy forward pass with the session's slopes: every slope halved, then head 4 = 1/16.
    config, held = held_weights(shipped)
    ids = np.array(from_session["token_ids"])
    changed = ref.bloom_slopes(config["n_head"]) * 0.5
    changed[4] = 1 / 16
    assert np.max(np.abs(b - ref.forward(config, held, ids, slopes=changed)[2])) < TOL
    assert np.max(np.abs(np.array(from_session["a"]["loss"]) - ref.forward(config, held, ids)[2])) < TOL
    # `alibi run --config` writes the maps of the changed model on the session's tokens.
    out = tmp_path / "maps.safetensors"
    cli("run", "--session", session, "-o", out)
    got = ax.run(session=session)
    with open(out, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    assert json.loads(header["__metadata__"]["token_ids"]) == list(got["ids"])
    assert header["attentions.0"]["shape"] == [config["n_head"], 18, 18]


def test_explicit_values_replace_the_sessions(tmp_path, shipped, cli):
    session = write_session(tmp_path / "run.alibi.json", {
        "path": str(shipped), "text": TEXT, "length": 18, "slope_scale": 0.5, "head_slopes": {"4": 0.0625}})
    # --slope-scale replaces the scale only; the head slope, text and length stay the session's.
    doc = json.loads(cli("loss", "--config", session, "--slope-scale", 2, "--format", "json"))
    expected = ax.loss(shipped, TEXT, length=18, slope_scale=2, head_slopes={4: 0.0625})
    assert np.max(np.abs(np.array(doc["b"]["loss"]) - expected)) < 1e-6
    assert np.array_equal(ax.loss(session=session, slope_scale=2), expected)
    # Another text and length; the model and slope change stay the session's.
    other = "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND"
    doc = json.loads(cli("loss", "--config", session, "--text", other, "--length", 12, "--format", "json"))
    expected = ax.loss(shipped, other, length=12, slope_scale=0.5, head_slopes={4: 0.0625})
    assert len(doc["token_ids"]) == 12
    assert np.max(np.abs(np.array(doc["b"]["loss"]) - expected)) < 1e-6
    assert np.array_equal(ax.loss(session=session, text=other, length=12), expected)
    # Scale 1 and no single heads: no change, so the loss is A's.
    a = ax.loss(shipped, TEXT, length=18)
    assert np.array_equal(ax.loss(session=session, slope_scale=1, head_slopes={}), a)
    doc = json.loads(cli("loss", "--config", session, "--slope-scale", 1, "--head-slope", "", "--format", "json"))
    assert doc["b"] is None
    assert np.max(np.abs(np.array(doc["a"]["loss"]) - a)) < 1e-6
    # Token ids instead of the session's text.
    ids = [84, 363, 273, 349, 337]
    assert np.array_equal(ax.run(session=session, ids=ids, length=5)["ids"], ids)


def test_refusals_are_worded_alike(tmp_path, shipped):
    bare = write_session(tmp_path / "bare.alibi.json", None)
    message = cli_fails("loss", "--config", bare)
    assert "has no `model` section" in message and "\"path\"" in message and "\"text\"" in message
    with pytest.raises(ValueError) as python:
        ax.loss(session=bare)
    assert str(python.value) == message
    # With the model named as well, the session still names nothing to run: refused alike.
    assert cli_fails("run", shipped, "--config", bare, "-o", tmp_path / "x.safetensors") == message
    # A length the session's text cannot give.
    session = write_session(tmp_path / "run.alibi.json", {"path": str(shipped), "text": "Permission"})
    message = cli_fails("loss", "--config", session, "--length", 500)
    with pytest.raises(ValueError) as python:
        ax.loss(session=session, length=500)
    assert str(python.value) == message
    assert message.startswith("length 500: the input gives")
    # A model section without a path.
    pathless = write_session(tmp_path / "pathless.alibi.json", {"text": "Permission"})
    message = cli_fails("loss", "--config", pathless)
    assert "without a `path`" in message
    with pytest.raises(ValueError) as python:
        ax.loss(session=pathless)
    assert str(python.value) == message
    # ... which the model named explicitly completes.
    assert ax.loss(shipped, session=pathless).shape[0] > 0
    assert not (tmp_path / "x.safetensors").exists()
