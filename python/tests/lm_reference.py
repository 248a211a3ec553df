"""An ALiBi language model's forward pass in NumPy (float64), written from the published code and
independently of the C++ core: BLOOM after HF transformers' modeling_bloom.py (build_alibi_tensor,
fused per-head query_key_value, bloom_gelu_forward), MPT after HF modeling_mpt.py and
llm-foundry (gen_slopes, build_alibi_bias, Wqkv split in three, exact GELU, no_bias), and Falcon
with alibi true after HF modeling_falcon.py (BLOOM's slopes rounded to bfloat16, the bias added
before the 1/sqrt(head_dim) scaling, multi_query, parallel_attn, bias). Also a
writer of random checkpoints as Hugging Face folders (config.json, model.safetensors or shards
with model.safetensors.index.json) with float32, float16 or bfloat16 weights.

Used by python/tests/test_lm.py and by the benchmark's NumPy side (bench/lm_numpy_forward.py).
"""
import json
import math
import os
import struct

import numpy as np


# ---------------------------------------------------------------------------
# Slopes, each as its framework writes it

def bloom_slopes(heads):
    """HF build_alibi_tensor: base**arange(1, c+1), then extra_base**odd powers."""
    closest = 2 ** math.floor(math.log2(heads))
    base = 2 ** (-(2 ** -(math.log2(closest) - 3)))
    slopes = [base ** p for p in range(1, closest + 1)]
    if closest != heads:
        extra_base = 2 ** (-(2 ** -(math.log2(2 * closest) - 3)))
        remaining = min(closest, heads - closest)
        slopes += [extra_base ** p for p in range(1, 1 + 2 * remaining, 2)]
    return np.array(slopes, dtype=np.float64)


def mpt_slopes(heads, alibi_bias_max=8.0):
    """llm-foundry gen_slopes: 1 / 2**(arange(1, n'+1) * B / n'), interleaved for n' != H."""
    n = 2 ** math.ceil(math.log2(heads))
    m = np.arange(1, n + 1, dtype=np.float64) * (alibi_bias_max / n)
    slopes = 1.0 / np.power(2.0, m)
    if n != heads:
        slopes = np.concatenate([slopes[1::2], slopes[::2]])[:heads]
    return slopes


def bf16(a):
    """float64 values rounded to float32, then to bfloat16 (as float64)."""
    bits = bf16_bits(np.asarray(a, dtype=np.float64).astype(np.float32))
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def falcon_bias(slopes, t):
    """Falcon's build_alibi_tensor: slopes.bfloat16() * arange, a bfloat16 product (the integer
    positions are cast to bfloat16 first). (H, T) in float64."""
    m = bf16(slopes)
    j = bf16(np.arange(t, dtype=np.float64))
    return bf16(m[:, None] * j[None, :])


def falcon_effective_slopes(slopes, head_dim):
    """The slope per token of distance on the softmax's input: bf16(m) / sqrt(head_dim)."""
    return bf16(slopes) * (1.0 / math.sqrt(head_dim))


FALCON_TYPES = ("falcon", "RefinedWebModel", "RefinedWeb")


def falcon_dims(config):
    layers = config.get("num_hidden_layers", config.get("n_layer"))
    heads = config.get("num_attention_heads", config.get("n_head"))
    d = config.get("hidden_size", config.get("n_embed"))
    return layers, heads, d


# ---------------------------------------------------------------------------
# The forward pass

def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * w
    return y if b is None else y + b


def gelu_tanh(x):
    return x * 0.5 * (1.0 + np.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


_erf = np.frompyfunc(math.erf, 1, 1)


def gelu_erf(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def softmax_causal(scores):
    t = scores.shape[-1]
    mask = np.triu(np.ones((t, t), dtype=bool), 1)
    s = np.where(mask, -np.inf, scores)
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def forward(config, weights, ids, slopes=None):
    """Returns (logits (T, V), attention (L, H, T, T), loss (T-1,)) in float64.

    `weights` maps names without the "transformer." prefix to float64 arrays; `slopes` replaces
    the model's own (after an intervention)."""
    ids = np.asarray(ids)
    t = len(ids)
    bloom = config["model_type"] == "bloom"
    falcon = config["model_type"] in FALCON_TYPES
    if falcon:
        return falcon_forward(config, weights, ids, slopes)
    if bloom:
        layers, heads, d = config["n_layer"], config["n_head"], config["hidden_size"]
        eps = config.get("layer_norm_epsilon", 1e-5)
        own = bloom_slopes(heads)
    else:
        layers, heads, d = config["n_layers"], config["n_heads"], config["d_model"]
        eps = config.get("layer_norm_epsilon", 1e-5)
        own = mpt_slopes(heads, config.get("attn_config", {}).get("alibi_bias_max", 8.0))
    m = own if slopes is None else np.asarray(slopes, dtype=np.float64)
    hd = d // heads
    W = weights

    def lin(x, name):
        y = x @ W[name + ".weight"].T
        b = W.get(name + ".bias")
        return y if b is None else y + b

    def norm(x, name):
        return layer_norm(x, W[name + ".weight"], W.get(name + ".bias"), eps)

    attentions = []
    pos = np.arange(t, dtype=np.float64)
    if bloom:
        h = norm(W["word_embeddings.weight"][ids], "word_embeddings_layernorm")
        for l in range(layers):
            p = f"h.{l}."
            ln = norm(h, p + "input_layernorm")
            qkv = lin(ln, p + "self_attention.query_key_value").reshape(t, heads, 3, hd)
            q, k, v = (qkv[:, :, i, :].transpose(1, 0, 2) for i in range(3))
            # baddbmm(alibi, q, k^T, beta=1, alpha=1/sqrt(hd)), alibi[h, j] = m_h * j
            scores = (q @ k.transpose(0, 2, 1)) / math.sqrt(hd) + m[:, None, None] * pos[None, None, :]
            probs = softmax_causal(scores)
            attentions.append(probs)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(t, d)
            residual = ln if config.get("apply_residual_connection_post_layernorm") else h
            h = lin(ctx, p + "self_attention.dense") + residual
            ln2 = norm(h, p + "post_attention_layernorm")
            residual = ln2 if config.get("apply_residual_connection_post_layernorm") else h
            h = lin(gelu_tanh(lin(ln2, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h") + residual
        h = norm(h, "ln_f")
        head = W["word_embeddings.weight"] if config.get("tie_word_embeddings", True) else W["lm_head.weight"]
    else:
        h = W["wte.weight"][ids]
        scale = 1.0 / math.sqrt(hd)
        for l in range(layers):
            p = f"blocks.{l}."
            ln = norm(h, p + "norm_1")
            qkv = lin(ln, p + "attn.Wqkv")
            q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(t, heads, hd).transpose(1, 0, 2) for i in range(3))
            # build_alibi_bias: arange(1 - T, 1) * slopes
            bias = m[:, None, None] * np.arange(1 - t, 1, dtype=np.float64)[None, None, :]
            probs = softmax_causal((q @ k.transpose(0, 2, 1)) * scale + bias)
            attentions.append(probs)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(t, d)
            h = h + lin(ctx, p + "attn.out_proj")
            ln2 = norm(h, p + "norm_2")
            h = h + lin(gelu_erf(lin(ln2, p + "ffn.up_proj")), p + "ffn.down_proj")
        h = norm(h, "norm_f")
        head = W["wte.weight"] if config.get("tie_word_embeddings", True) else W["lm_head.weight"]
    logits = h @ head.T
    top = logits.max(-1, keepdims=True)
    logsumexp = (top + np.log(np.exp(logits - top).sum(-1, keepdims=True)))[:, 0]
    loss = logsumexp[:-1] - logits[np.arange(t - 1), ids[1:]]
    return logits, np.stack(attentions), loss


def falcon_forward(config, weights, ids, slopes=None):
    """HF modeling_falcon.py's decoder with alibi true and new_decoder_architecture false."""
    t = len(ids)
    layers, heads, d = falcon_dims(config)
    eps = config.get("layer_norm_epsilon", 1e-5)
    multi_query = config.get("multi_query", True)
    parallel = config.get("parallel_attn", True)
    m = bloom_slopes(heads) if slopes is None else np.asarray(slopes, dtype=np.float64)
    hd = d // heads
    inv_norm_factor = 1.0 / math.sqrt(hd)
    bias = falcon_bias(m, t)
    W = weights

    def lin(x, name):
        y = x @ W[name + ".weight"].T
        b = W.get(name + ".bias")
        return y if b is None else y + b

    def norm(x, name):
        return layer_norm(x, W[name + ".weight"], W[name + ".bias"], eps)

    attentions = []
    h = W["word_embeddings.weight"][ids]
    for l in range(layers):
        p = f"h.{l}."
        ln = norm(h, p + "input_layernorm")
        fused = lin(ln, p + "self_attention.query_key_value")
        if multi_query:  # view(T, H + 2, hd): every query, then one key and one value
            fused = fused.reshape(t, heads + 2, hd)
            q = fused[:, :heads].transpose(1, 0, 2)
            k = np.broadcast_to(fused[:, heads][None], (heads, t, hd))
            v = np.broadcast_to(fused[:, heads + 1][None], (heads, t, hd))
        else:  # view(T, H, 3, hd)
            fused = fused.reshape(t, heads, 3, hd)
            q, k, v = (fused[:, :, i, :].transpose(1, 0, 2) for i in range(3))
        # (q k^T + alibi) * inv_norm_factor, then the causal softmax
        probs = softmax_causal((q @ k.transpose(0, 2, 1) + bias[:, None, :]) * inv_norm_factor)
        attentions.append(probs)
        attention_output = lin((probs @ v).transpose(1, 0, 2).reshape(t, d), p + "self_attention.dense")
        if parallel:
            mlp = lin(gelu_erf(lin(ln, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h")
            h = (mlp + attention_output) + h
        else:
            residual = attention_output + h
            ln2 = norm(residual, p + "post_attention_layernorm")
            h = lin(gelu_erf(lin(ln2, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h") + residual
    h = norm(h, "ln_f")
    head = W["word_embeddings.weight"] if config.get("tie_word_embeddings", True) else W["lm_head.weight"]
    logits = h @ head.T
    top = logits.max(-1, keepdims=True)
    logsumexp = (top + np.log(np.exp(logits - top).sum(-1, keepdims=True)))[:, 0]
    loss = logsumexp[:-1] - logits[np.arange(t - 1), ids[1:]]
    return logits, np.stack(attentions), loss


# ---------------------------------------------------------------------------
# Random checkpoints

def bloom_config(layers, heads, d, vocab, **extra):
    c = {"architectures": ["BloomForCausalLM"], "model_type": "bloom", "n_layer": layers, "n_head": heads,
         "hidden_size": d, "vocab_size": vocab, "layer_norm_epsilon": 1e-5}
    c.update(extra)
    return c


def mpt_config(layers, heads, d, vocab, no_bias=True, hf=True, **extra):
    c = {"architectures": ["MptForCausalLM" if hf else "MPTForCausalLM"], "model_type": "mpt", "n_layers": layers,
         "n_heads": heads, "d_model": d, "vocab_size": vocab, "expansion_ratio": 4, "max_seq_len": 64,
         "no_bias": no_bias, "attn_config": {"alibi": True, "alibi_bias_max": 8}}
    c.update(extra)
    return c


def falcon_config(layers, heads, d, vocab, multi_query=False, parallel_attn=False, bias=True, rw=False, **extra):
    """FalconForCausalLM's config, or (rw=True) the RW config of tiiuae/falcon-rw-1b's form."""
    if rw:
        c = {"architectures": ["RWForCausalLM"], "model_type": "RefinedWebModel", "n_layer": layers, "n_head": heads,
             "hidden_size": d}
    else:
        c = {"architectures": ["FalconForCausalLM"], "model_type": "falcon", "num_hidden_layers": layers,
             "num_attention_heads": heads, "hidden_size": d}
    c.update({"vocab_size": vocab, "alibi": True, "multi_query": multi_query, "parallel_attn": parallel_attn,
              "bias": bias, "new_decoder_architecture": False, "layer_norm_epsilon": 1e-5,
              "apply_residual_connection_post_layernorm": False})
    c.update(extra)
    return c


def weight_shapes(config):
    """Name (without prefix) -> shape, in the order the modelling code creates them."""
    s = {}
    if config["model_type"] in FALCON_TYPES:
        L, H, d = falcon_dims(config)
        V, hd = config["vocab_size"], d // H
        f = config.get("ffn_hidden_size") or 4 * d
        bias = config.get("bias", False)
        qkv = d + 2 * hd if config.get("multi_query", True) else 3 * d
        s["word_embeddings.weight"] = (V, d)
        for l in range(L):
            p = f"h.{l}."
            norms = ["input_layernorm"] + ([] if config.get("parallel_attn", True) else ["post_attention_layernorm"])
            for n in norms:
                s[p + n + ".weight"] = (d,)
                s[p + n + ".bias"] = (d,)
            for n, o, i in (("self_attention.query_key_value", qkv, d), ("self_attention.dense", d, d),
                            ("mlp.dense_h_to_4h", f, d), ("mlp.dense_4h_to_h", d, f)):
                s[p + n + ".weight"] = (o, i)
                if bias:
                    s[p + n + ".bias"] = (o,)
        s["ln_f.weight"] = (d,)
        s["ln_f.bias"] = (d,)
        if not config.get("tie_word_embeddings", True):
            s["lm_head.weight"] = (V, d)
        return s
    if config["model_type"] == "bloom":
        L, d, V = config["n_layer"], config["hidden_size"], config["vocab_size"]
        f = 4 * d
        s["word_embeddings.weight"] = (V, d)
        s["word_embeddings_layernorm.weight"] = (d,)
        s["word_embeddings_layernorm.bias"] = (d,)
        for l in range(L):
            p = f"h.{l}."
            for n in ("input_layernorm", "post_attention_layernorm"):
                s[p + n + ".weight"] = (d,)
                s[p + n + ".bias"] = (d,)
            for n, o, i in (("self_attention.query_key_value", 3 * d, d), ("self_attention.dense", d, d),
                            ("mlp.dense_h_to_4h", f, d), ("mlp.dense_4h_to_h", d, f)):
                s[p + n + ".weight"] = (o, i)
                s[p + n + ".bias"] = (o,)
        s["ln_f.weight"] = (d,)
        s["ln_f.bias"] = (d,)
    else:
        L, d, V = config["n_layers"], config["d_model"], config["vocab_size"]
        f = int(config.get("expansion_ratio", 4) * d)
        bias = not config.get("no_bias", True)
        s["wte.weight"] = (V, d)
        for l in range(L):
            p = f"blocks.{l}."
            for n in ("norm_1", "norm_2"):
                s[p + n + ".weight"] = (d,)
                if bias:
                    s[p + n + ".bias"] = (d,)
            for n, o, i in (("attn.Wqkv", 3 * d, d), ("attn.out_proj", d, d), ("ffn.up_proj", f, d),
                            ("ffn.down_proj", d, f)):
                s[p + n + ".weight"] = (o, i)
                if bias:
                    s[p + n + ".bias"] = (o,)
        s["norm_f.weight"] = (d,)
        if bias:
            s["norm_f.bias"] = (d,)
    if not config.get("tie_word_embeddings", True):
        s["lm_head.weight"] = s["word_embeddings.weight" if config["model_type"] == "bloom" else "wte.weight"]
    return s


def random_weights(config, seed=0, scale=0.3):
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in weight_shapes(config).items():
        w = rng.normal(0.0, scale, size=shape)
        if len(shape) == 1 and name.endswith(".weight"):  # layer norms: around 1
            w = 1.0 + 0.1 * w
        out[name] = w.astype(np.float32)
    return out


def bf16_bits(a):
    """float32 -> bfloat16 bits, rounded to nearest, ties to even."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def stored(a, dtype):
    """(bytes, the float64 values they hold) of `a` stored as dtype ("F32", "F16", "BF16")."""
    if dtype == "F32":
        x = np.asarray(a, dtype=np.float32)
        return x.tobytes(), x.astype(np.float64)
    if dtype == "F16":
        x = np.asarray(a, dtype=np.float16)
        return x.tobytes(), x.astype(np.float64)
    bits = bf16_bits(a)
    return bits.tobytes(), (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> (dtype string, shape, bytes)."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    offset = 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, (_, _, data) in tensors.items():
            f.write(data)


def write_model(folder, config, weights, dtype="F32", shards=1, prefix="transformer."):
    """Writes the folder; returns the float64 weights the files hold (after rounding to dtype)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    held = {}
    files = [{} for _ in range(shards)]
    for i, (name, w) in enumerate(weights.items()):
        data, values = stored(w, dtype)
        held[name] = values
        files[i % shards][prefix + name] = (dtype, w.shape, data)
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), files[0], {"format": "pt"})
    else:
        weight_map = {}
        for s, tensors in enumerate(files):
            fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
            write_safetensors(os.path.join(folder, fname), tensors, {"format": "pt"})
            for name in tensors:
                weight_map[name] = fname
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {}, "weight_map": weight_map}, f)
    return held
