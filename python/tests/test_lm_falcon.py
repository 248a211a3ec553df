"""Falcon with "alibi": true (HF modeling_falcon.py; tiiuae/falcon-rw-1b's form) against the NumPy
forward pass of lm_reference.py (falcon_forward, written from modeling_falcon.py, not from the
C++): logits, every layer's attention maps and the loss agree to 1e-5 on random checkpoints made
here: head counts with non-powers of two, float32/float16/bfloat16 weights, single and sharded
files, sequential and parallel attention, multi-query attention, with and without biases, HF's
and the RW config names, and a text longer than 256 tokens (where bfloat16 positions round). The
bias is added before the 1/sqrt(head_dim) scaling with bfloat16 slopes and products, so the slopes
a run reports are bf16(m)/sqrt(head_dim). Hostile Falcon configs get a ValueError naming the field."""
import json
import math
import os
import sys

import numpy as np
import pytest

import alibi_explorer as ax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lm_reference as ref  # noqa: E402

TOL = 1e-5

CASES = [
    # (layers, heads, d_model, vocab, dtype, shards, tokens, config keywords)
    (2, 4, 32, 50, "F32", 1, 19, {}),  # falcon-rw-1b's form: sequential, one k/v per head, biases
    (2, 3, 24, 40, "F16", 2, 17, {"parallel_attn": True}),
    (2, 6, 48, 30, "BF16", 1, 21, {"multi_query": True, "parallel_attn": True, "bias": False}),
    (1, 12, 48, 64, "F32", 3, 23, {"rw": True, "tie_word_embeddings": False}),
    (2, 5, 40, 40, "BF16", 2, 15, {"multi_query": True, "ffn_hidden_size": 56}),
    (1, 16, 32, 30, "F32", 1, 300, {}),  # base 2^-0.5: bfloat16 slopes; positions past 256 round
]


def make(tmp_path, case, seed=0):
    layers, heads, d, vocab, dtype, shards, _, extra = case
    config = ref.falcon_config(layers, heads, d, vocab, **extra)
    folder = str(tmp_path / f"falcon-{heads}-{dtype}-{shards}")
    held = ref.write_model(folder, config, ref.random_weights(config, seed), dtype, shards)
    return folder, config, held


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"H{c[1]}-{c[4]}-{c[5]}shard-T{c[6]}")
def test_falcon_matches_numpy_forward(tmp_path, case):
    folder, config, held = make(tmp_path, case)
    ids = np.random.default_rng(1).integers(0, case[3], size=case[6])
    got = ax.run(folder, ids=ids.tolist(), logits=True)
    logits, attention, loss = ref.forward(config, held, ids)
    assert got["attention"].shape == attention.shape
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["logits"] - logits)) < TOL
    assert np.max(np.abs(got["loss"] - loss)) < TOL
    hd = case[2] // case[1]
    assert np.allclose(got["slopes"], ref.falcon_effective_slopes(ref.bloom_slopes(case[1]), hd), rtol=1e-12)
    assert got["description"].startswith("Falcon (")


def test_falcon_bias_is_scaled_with_the_scores(tmp_path):
    """The arithmetic that tells Falcon from BLOOM: the same weights read as BLOOM's attention
    (bias added after the scaling) give other maps, so the test above can fail."""
    case = (1, 4, 32, 50, "F32", 1, 12, {})
    folder, config, held = make(tmp_path, case)
    ids = np.arange(12) % 50
    got = ax.run(folder, ids=ids.tolist())
    qkv = (ref.layer_norm(held["word_embeddings.weight"][ids], held["h.0.input_layernorm.weight"],
                          held["h.0.input_layernorm.bias"], 1e-5) @ held["h.0.self_attention.query_key_value.weight"].T
           + held["h.0.self_attention.query_key_value.bias"]).reshape(12, 4, 3, 8)
    q, k = qkv[:, :, 0].transpose(1, 0, 2), qkv[:, :, 1].transpose(1, 0, 2)
    bloom_way = ref.softmax_causal(q @ k.transpose(0, 2, 1) / math.sqrt(8)
                                   + ref.bloom_slopes(4)[:, None, None] * np.arange(12)[None, None, :])
    assert np.max(np.abs(got["attention"][0] - bloom_way)) > 1e-3


def test_falcon_interventions(tmp_path):
    case = (2, 6, 48, 40, "F32", 1, 40, {})
    folder, config, held = make(tmp_path, case, seed=3)
    ids = np.random.default_rng(2).integers(0, 40, size=40)
    changed = ref.bloom_slopes(6) * 0.5
    changed[2] = 0.3
    got = ax.run(folder, ids=ids.tolist(), slope_scale=0.5, head_slopes={2: 0.3}, logits=True)
    logits, attention, loss = ref.forward(config, held, ids, slopes=changed)
    assert np.allclose(got["slopes"], ref.falcon_effective_slopes(changed, 8), rtol=1e-12)
    assert np.max(np.abs(got["attention"] - attention)) < TOL
    assert np.max(np.abs(got["logits"] - logits)) < TOL


def test_falcon_maps_file_and_cli_loss(tmp_path, cli):
    case = (2, 3, 24, 30, "BF16", 1, 6, {"parallel_attn": True})
    folder, config, held = make(tmp_path, case)
    ids = [5, 7, 1, 0, 29, 3]
    out = tmp_path / "maps.safetensors"
    cli("run", folder, "--ids", ",".join(map(str, ids)), "-o", out)
    with open(out, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__")
    assert np.allclose(json.loads(meta["slopes"]), ref.falcon_effective_slopes(ref.bloom_slopes(3), 8), rtol=1e-12)
    _, attention, loss = ref.forward(config, held, np.array(ids))
    begin, end = header["attentions.1"]["data_offsets"]
    assert np.max(np.abs(np.frombuffer(data[begin:end], "<f4").reshape(3, 6, 6) - attention[1])) < TOL
    doc = json.loads(cli("loss", folder, "--ids", ",".join(map(str, ids)), "--format", "json"))
    assert np.max(np.abs(np.array(doc["a"]["loss"]) - loss)) < TOL


HOSTILE = [
    ({"new_decoder_architecture": True}, "new_decoder_architecture"),
    ({"alibi": False}, "does not use ALiBi"),
    ({"activation": "relu"}, "\"activation\""),
    ({"multi_query": "yes"}, "\"multi_query\" must be true or false"),
    ({"num_attention_heads": 5}, "not a multiple of the 5 heads"),
    ({"num_hidden_layers": 0}, "\"num_hidden_layers\" is 0"),
    ({"ffn_hidden_size": -3}, "\"ffn_hidden_size\" is -3"),
]


@pytest.mark.parametrize("change,message", HOSTILE, ids=[h[1] for h in HOSTILE])
def test_hostile_falcon_configs(tmp_path, change, message):
    folder, config, _ = make(tmp_path, (1, 4, 32, 20, "F32", 1, 4, {}))
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(dict(config, **change), f)
    with pytest.raises(ValueError, match=message):
        ax.run(folder, ids=[1, 2, 3])


@pytest.mark.parametrize("change,tensor", [
    ({"multi_query": True}, "self_attention.query_key_value.weight"),  # weights made with one k/v per head
    ({"parallel_attn": False, "bias": False}, "post_attention_layernorm"),  # weights made parallel, no norm 2
    ({"bias": True}, "query_key_value.bias"),  # weights made without biases
])
def test_falcon_weights_that_disagree_with_the_config(tmp_path, change, tensor):
    made = {"multi_query": False, "parallel_attn": True, "bias": False}
    config = ref.falcon_config(1, 4, 32, 20, **made)
    folder = str(tmp_path / "falcon")
    ref.write_model(folder, config, ref.random_weights(config), "F32", 1)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(dict(config, **change), f)
    with pytest.raises(ValueError, match=tensor):
        ax.loss(folder, ids=[1, 2, 3])
