#!/usr/bin/env python3
"""The NumPy side of alibi-bench's BM_LmForwardBloom560m row: the forward pass of a BLOOM
checkpoint folder (written by the bench) on the ids in IDS_FILE, in float32 through NumPy's BLAS,
with the weights memory-mapped from model.safetensors and converted one tensor at a time as a
layer needs them (the embedding, 1 GB in float32, is held whole, as a plain NumPy pass would). The forward pass itself is python/tests/lm_reference.py's
(float64 there); here it runs in float32, as a user's NumPy code would. Prints
`numpy_s=... cpu_s=... peak_rss_mb=... mean_loss=...`.

    OPENBLAS_NUM_THREADS=2 python3 bench/lm_numpy_forward.py MODEL_DIR IDS_FILE
"""
import json
import math
import os
import resource
import struct
import sys
import time

import numpy as np


def open_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    dtypes = {"F32": np.float32, "F16": np.float16}

    def get(name):
        e = header.get(name) or header["transformer." + name]
        begin, end = e["data_offsets"]
        return data[begin:end].view(dtypes[e["dtype"]]).reshape(e["shape"]).astype(np.float32)
    return get


def layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def bloom_slopes(heads):
    closest = 2 ** math.floor(math.log2(heads))
    base = 2 ** (-(2 ** -(math.log2(closest) - 3)))
    slopes = [base ** p for p in range(1, closest + 1)]
    if closest != heads:
        extra = 2 ** (-(2 ** -(math.log2(2 * closest) - 3)))
        slopes += [extra ** p for p in range(1, 1 + 2 * min(closest, heads - closest), 2)]
    return np.array(slopes, dtype=np.float32)


def main():
    folder, ids_file = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    ids = np.array([int(x) for x in open(ids_file).read().split(",")])
    get = open_safetensors(os.path.join(folder, "model.safetensors"))
    L, H, d = config["n_layer"], config["n_head"], config["hidden_size"]
    hd, t = d // H, len(ids)
    start = time.perf_counter()
    cpu = time.process_time()
    emb = get("word_embeddings.weight")
    h = layer_norm(emb[ids], get("word_embeddings_layernorm.weight"), get("word_embeddings_layernorm.bias"))
    alibi = bloom_slopes(H)[:, None, None] * np.arange(t, dtype=np.float32)[None, None, :]
    mask = np.triu(np.ones((t, t), dtype=bool), 1)
    for l in range(L):
        p = f"h.{l}."
        ln = layer_norm(h, get(p + "input_layernorm.weight"), get(p + "input_layernorm.bias"))
        qkv = (ln @ get(p + "self_attention.query_key_value.weight").T
               + get(p + "self_attention.query_key_value.bias")).reshape(t, H, 3, hd)
        q, k, v = (np.ascontiguousarray(qkv[:, :, i, :].transpose(1, 0, 2)) for i in range(3))
        s = np.matmul(q, k.transpose(0, 2, 1)) / np.float32(math.sqrt(hd)) + alibi
        s[:, mask] = -np.inf
        s -= s.max(-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(-1, keepdims=True)
        ctx = np.matmul(s, v).transpose(1, 0, 2).reshape(t, d)
        h = ctx @ get(p + "self_attention.dense.weight").T + get(p + "self_attention.dense.bias") + h
        ln = layer_norm(h, get(p + "post_attention_layernorm.weight"), get(p + "post_attention_layernorm.bias"))
        x = ln @ get(p + "mlp.dense_h_to_4h.weight").T + get(p + "mlp.dense_h_to_4h.bias")
        x = x * 0.5 * (1.0 + np.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
        h = x @ get(p + "mlp.dense_4h_to_h.weight").T + get(p + "mlp.dense_4h_to_h.bias") + h
    h = layer_norm(h, get("ln_f.weight"), get("ln_f.bias"))
    logits = h @ emb.T
    top = logits.max(-1, keepdims=True)
    lse = (top + np.log(np.exp(logits - top).sum(-1, keepdims=True)))[:, 0]
    loss = lse[:-1] - logits[np.arange(t - 1), ids[1:]]
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"numpy_s={seconds:.3f} cpu_s={cpu:.3f} peak_rss_mb={peak:.1f} mean_loss={float(loss.mean()):.6f}")


if __name__ == "__main__":
    main()
