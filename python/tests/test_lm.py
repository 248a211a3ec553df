"""alibi_explorer.run / loss against an independent NumPy forward pass (lm_reference.py, written
from HF transformers' and llm-foundry's modelling code, not from the C++): logits, every layer's
attention maps and the loss agree to 1e-5 on random BLOOM and MPT checkpoints made here (Falcon:
test_lm_falcon.py), with several head counts (non-powers of two included), float32/float16/
bfloat16 weights, single and sharded files, MPT with no_bias true and false, and with slope
interventions. Also the maps file of `alibi run`, read back, and hostile checkpoints (a clear
ValueError, never a crash)."""
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

CASES = [
    # (architecture, layers, heads, d_model, vocab, dtype, shards, extra)
    ("bloom", 2, 4, 32, 50, "F32", 1, {}),
    ("bloom", 2, 3, 24, 40, "F16", 2, {}),
    ("bloom", 1, 6, 48, 30, "BF16", 1, {"apply_residual_connection_post_layernorm": True}),
    ("bloom", 2, 12, 48, 64, "F32", 3, {}),
    ("mpt", 2, 4, 32, 50, "F32", 1, {}),
    ("mpt", 2, 5, 40, 40, "BF16", 2, {"no_bias": False}),
    ("mpt", 1, 6, 24, 30, "F16", 1, {"hf": False, "no_bias": False}),
    ("mpt", 2, 12, 48, 64, "F32", 2, {"attn_config": {"alibi": True, "alibi_bias_max": 16}}),
]


def make(tmp_path, case, seed=0):
    arch, layers, heads, d, vocab, dtype, shards, extra = case
    extra = dict(extra)
    if arch == "bloom":
        config = ref.bloom_config(layers, heads, d, vocab, **extra)
    else:
        config = ref.mpt_config(layers, heads, d, vocab, no_bias=extra.pop("no_bias", True), hf=extra.pop("hf", True),
                                **extra)
    folder = str(tmp_path / f"{arch}-{heads}-{dtype}-{shards}")
    held = ref.write_model(folder, config, ref.random_weights(config, seed), dtype, shards)
    return folder, config, held


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-H{c[2]}-{c[5]}-{c[6]}shard")
def test_matches_numpy_forward(tmp_path, case):
    folder, config, held = make(tmp_path, case)
    rng = np.random.default_rng(1)
    ids = rng.integers(0, case[4], size=19)
    got = ax.run(folder, ids=ids.tolist(), logits=True)
    logits, attention, loss = ref.forward(config, held, ids)
    assert got["attention"].shape == attention.shape
    assert got["logits"].shape == logits.shape
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["logits"] - logits)) < TOL
    assert np.max(np.abs(got["loss"] - loss)) < TOL
    assert got["mean_loss"] == pytest.approx(loss.mean(), abs=TOL)
    assert list(got["ids"]) == ids.tolist()
    # The model's own slopes, as each framework computes them.
    own = ref.bloom_slopes(case[2]) if case[0] == "bloom" else ref.mpt_slopes(
        case[2], config["attn_config"]["alibi_bias_max"])
    assert np.allclose(got["slopes"], own, rtol=1e-12)
    assert np.allclose(ax.loss(folder, ids=ids.tolist()), loss, atol=TOL)


@pytest.mark.parametrize("arch", ["bloom", "mpt"])
def test_interventions_match_numpy(tmp_path, arch):
    case = (arch, 2, 6, 48, 40, "F32", 1, {})
    folder, config, held = make(tmp_path, case, seed=3)
    ids = np.random.default_rng(2).integers(0, 40, size=40)
    # Every slope halved, then head 2 set to 0.3.
    own = ref.bloom_slopes(6) if arch == "bloom" else ref.mpt_slopes(6)
    changed = own * 0.5
    changed[2] = 0.3
    got = ax.run(folder, ids=ids.tolist(), slope_scale=0.5, head_slopes={2: 0.3}, logits=True)
    logits, attention, loss = ref.forward(config, held, ids, slopes=changed)
    assert np.allclose(got["slopes"], changed, rtol=1e-12)
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["logits"] - logits)) < TOL
    # Another scheme and max_bias: geometric, B = 4 (2^(-4(h+1)/6), every H).
    geometric = 2.0 ** (-4.0 * np.arange(1, 7) / 6)
    b = ax.loss(folder, ids=ids.tolist(), slope_scheme="geometric", slope_max_bias=4)
    assert np.max(np.abs(b - ref.forward(config, held, ids, slopes=geometric)[2])) < TOL
    # length= keeps the first N tokens; beyond the MPT max_seq_len (64) too: ALiBi extrapolates.
    long_ids = np.random.default_rng(4).integers(0, 40, size=80)
    got_long = ax.loss(folder, ids=long_ids.tolist(), length=70)
    assert got_long.shape == (69,)
    assert np.max(np.abs(got_long - ref.forward(config, held, long_ids[:70])[2])) < TOL


def test_maps_file_reads_back(tmp_path):
    case = ("bloom", 2, 4, 32, 50, "F32", 1, {})
    folder, config, held = make(tmp_path, case)
    ids = [3, 1, 4, 1, 5, 9, 2, 6]
    out = tmp_path / "maps.safetensors"
    got = ax.run(folder, ids=ids, output=out)
    with open(out, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__")
    assert json.loads(meta["token_ids"]) == ids
    assert len(json.loads(meta["slopes"])) == 4
    assert sorted(header) == ["attentions.0", "attentions.1"]
    for name, entry in header.items():
        assert entry["dtype"] == "F32" and entry["shape"] == [4, 8, 8]
        begin, end = entry["data_offsets"]
        maps = np.frombuffer(data[begin:end], dtype="<f4").reshape(4, 8, 8)
        assert np.array_equal(maps, got["attention"][int(name.split(".")[1])])
    # The file is what `alibi fit` reads: one fitted slope per head.
    table = ax.fit(str(out))
    assert len(table["slope"]) == 8


def test_hostile_checkpoints(tmp_path):
    case = ("mpt", 1, 4, 32, 50, "F32", 2, {})
    folder, config, _ = make(tmp_path, case)
    # A config that disagrees with the shapes.
    wrong = dict(config, d_model=64)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(wrong, f)
    with pytest.raises(ValueError, match="config.json"):
        ax.run(folder, ids=[1, 2])
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    # A truncated shard.
    shard = os.path.join(folder, "model-00002-of-00002.safetensors")
    size = os.path.getsize(shard)
    os.truncate(shard, size - 5)
    with pytest.raises(ValueError, match="truncated"):
        ax.run(folder, ids=[1, 2])
    # An index naming a missing file.
    os.remove(shard)
    with pytest.raises(ValueError, match="not in the folder"):
        ax.loss(folder, ids=[1, 2])
    # A model without ALiBi.
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox"}, f)
    with pytest.raises(ValueError, match="does not use ALiBi"):
        ax.loss(folder, ids=[1, 2])
    # Text without a tokenizer.json.
    good, _, _ = make(tmp_path, ("bloom", 1, 2, 8, 20, "F32", 1, {}))
    with pytest.raises(ValueError, match="no tokenizer.json"):
        ax.run(good, "some text")
    with pytest.raises(ValueError, match="outside the model's vocabulary"):
        ax.run(good, ids=[1, 20])


def test_cli_run_and_loss(tmp_path, cli):
    case = ("mpt", 2, 3, 24, 30, "BF16", 1, {})
    folder, config, held = make(tmp_path, case)
    ids = [5, 7, 1, 0, 29, 3]
    out = tmp_path / "maps.safetensors"
    cli("run", folder, "--ids", ",".join(map(str, ids)), "--slope-scale", "2", "-o", out)
    _, attention, _ = ref.forward(config, held, np.array(ids), slopes=2 * ref.mpt_slopes(3))
    with open(out, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    begin, end = header["attentions.1"]["data_offsets"]
    assert np.max(np.abs(np.frombuffer(data[begin:end], "<f4").reshape(3, 6, 6) - attention[1])) < TOL
    doc = json.loads(cli("loss", folder, "--ids", ",".join(map(str, ids)), "--head-slope", "0=0", "--format", "json"))
    a = ref.forward(config, held, np.array(ids))[2]
    changed = ref.mpt_slopes(3)
    changed[0] = 0
    b = ref.forward(config, held, np.array(ids), slopes=changed)[2]
    assert np.max(np.abs(np.array(doc["a"]["loss"]) - a)) < TOL
    assert np.max(np.abs(np.array(doc["b"]["loss"]) - b)) < TOL
    csv = cli("loss", folder, "--ids", ",".join(map(str, ids)), "--format", "csv").splitlines()
    assert csv[0] == "position,token_id,token,loss"
    assert len(csv) == len(ids)


def bytes_to_unicode():
    """GPT-2's byte -> printable character table (the ByteLevel pre-tokenizer's)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def write_byte_tokenizer(folder):
    table = bytes_to_unicode()
    level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
           "pre_tokenizer": level, "post_processor": None, "decoder": level,
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                     "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                     "vocab": {table[b]: b for b in range(256)}, "merges": []}}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def test_text_through_the_tokenizer(tmp_path, cli):
    folder, config, held = make(tmp_path, ("bloom", 2, 4, 32, 256, "F32", 1, {}))
    write_byte_tokenizer(folder)
    text = "héllo, wörld\n"
    ids = list(text.encode("utf-8"))
    got = ax.run(folder, text, logits=True)
    assert list(got["ids"]) == ids
    assert got["tokens"][0] == "h" and got["tokens"][6] == ","  # é is two bytes
    logits, attention, loss = ref.forward(config, held, np.array(ids))
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["loss"] - loss)) < TOL
    out = tmp_path / "maps.safetensors"
    cli("run", folder, "--text", text, "-o", out)
    with open(out, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        meta = json.loads(f.read(n))["__metadata__"]
    assert json.loads(meta["token_ids"]) == ids
    assert json.loads(meta["tokens"])[:2] == ["h", "\ufffd"]  # a lone byte of é decodes to U+FFFD
    rows = cli("loss", folder, "--text", text, "--length", 6, "--format", "csv").splitlines()
    assert rows[1].startswith("1,195,")  # position 1 predicts the first byte of é (0xC3)
    assert len(rows) == 6


def test_shipped_model_matches_numpy(source_dir):
    """The example model under assets/models (BLOOM format, its own tokenizer.json)."""
    folder = source_dir / "assets" / "models" / "license-bloom-tiny"
    if not (folder / "config.json").exists():
        pytest.skip("no shipped model in this tree")
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
    text = "Permission is hereby granted, free of charge, to any person obtaining a copy"
    got = ax.run(str(folder), text, logits=True)
    logits, attention, loss = ref.forward(config, held, got["ids"])
    assert len(got["ids"]) > 10
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["logits"] - logits)) < TOL
    assert np.max(np.abs(got["loss"] - loss)) < TOL
