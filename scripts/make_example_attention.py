#!/usr/bin/env python3
"""Writes the small example attention maps under assets/attention/ that the explorers' Help menu
and `alibi fit` open: a synthetic "trained-like" ALiBi model, so the tool can be tried without
a real model's weights.

The model (press slopes for H = 8, max_bias 8, causal) has, per layer, heads that (in quotes,
the verdict `alibi fit --heads 8` and the explorers give them; the rule is docs/FIT.md's):
  - follow their ALiBi slope (the prior plus Gaussian content of sigma 0.5): "follows its slope",
  - drifted: softmax(-m' d) with m' four times flatter or steeper than configured:
    "drifted: 4x flatter", "drifted: 4x steeper",
  - are attention sinks (half of each row's mass on token 0, the rest the prior's),
  - are previous-token heads (most of the mass at distance 1): "not ALiBi-shaped",
  - copy heads (mass on the key holding the same token earlier: a repeated random sequence).
Which head is which is printed and stored in the safetensors metadata.

    python3 scripts/make_example_attention.py            # writes assets/attention/*.npy|.safetensors

The files are deterministic (seeded); committing them is cheap (f16, T = 64).
"""

import json
import os
import struct
import sys

import numpy as np

H, T, LAYERS = 8, 64, 4
SLOPES = [2.0 ** (-8.0 * (h + 1) / H) for h in range(H)]  # press slopes, H a power of two


def softmax_rows(logits):
    logits = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=-1, keepdims=True)


def causal(logits):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return np.where(j <= i, logits, -np.inf)


def head_map(kind, slope, rng, tokens):
    i = np.arange(T)[:, None].astype(np.float64)
    j = np.arange(T)[None, :].astype(np.float64)
    d = i - j
    if kind == "follows":
        return softmax_rows(causal(-slope * d + rng.normal(0, 0.5, (T, T))))
    if kind == "flatter":
        return softmax_rows(causal(-slope / 4 * d))
    if kind == "steeper":
        return softmax_rows(causal(-slope * 4 * d))
    if kind == "sink":
        prior = softmax_rows(causal(-slope * d))
        sink = np.zeros((T, T))
        sink[:, 0] = 1.0
        return 0.5 * prior + 0.5 * sink
    if kind == "previous":
        logits = np.where(d == 1, 6.0, -slope * d)
        return softmax_rows(causal(logits))
    if kind == "copy":
        same = tokens[None, :] == tokens[:, None]
        logits = np.where(same & (d > 0), 5.0, -slope * d)
        return softmax_rows(causal(logits))
    raise ValueError(kind)


# Per layer: which behaviour each head has (most follow their slope, as in a healthy model).
ROLES = [
    ["follows", "follows", "follows", "follows", "follows", "follows", "follows", "follows"],
    ["follows", "previous", "follows", "follows", "sink", "follows", "flatter", "follows"],
    ["steeper", "follows", "copy", "follows", "follows", "sink", "follows", "follows"],
    ["follows", "follows", "follows", "flatter", "follows", "copy", "sink", "previous"],
]


def build():
    rng = np.random.default_rng(20261123)
    half = rng.integers(0, 50, T // 2)
    tokens = np.concatenate([half, half])  # a repeated sequence: copy heads have something to copy
    maps = np.empty((LAYERS, H, T, T))
    for layer in range(LAYERS):
        for h in range(H):
            maps[layer, h] = head_map(ROLES[layer][h], SLOPES[h], rng, tokens)
    return maps


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    blobs = []
    for name, array in tensors:
        bits = (array.astype(np.float32).view(np.uint32) + 0x7FFF + ((array.astype(np.float32).view(np.uint32) >> 16) & 1)) >> 16
        blob = bits.astype("<u2").tobytes()  # bfloat16, round to nearest even
        header[name] = {"dtype": "BF16", "shape": list(array.shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for blob in blobs:
            f.write(blob)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "attention")
    os.makedirs(root, exist_ok=True)
    maps = build()
    np.save(os.path.join(root, "trained-like-4x8x64.npy"), maps.astype(np.float16))
    tensors = [(f"model.layers.{layer}.self_attention", maps[layer][None]) for layer in range(LAYERS)]
    roles = {f"layer {layer}": " ".join(f"{h}:{r}" for h, r in enumerate(ROLES[layer])) for layer in range(LAYERS)}
    write_safetensors(os.path.join(root, "trained-like-4x8x64.safetensors"), tensors,
                      {"model": "synthetic ALiBi, press slopes H=8 max_bias 8", **roles})
    for layer in range(LAYERS):
        print(f"layer {layer}: " + ", ".join(f"h{h} {r}" for h, r in enumerate(ROLES[layer])))


if __name__ == "__main__":
    sys.exit(main())
