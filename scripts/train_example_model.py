#!/usr/bin/env python3
"""Trains the small ALiBi model shipped in assets/models/license-bloom-tiny/: a BLOOM-format
causal language model (Hugging Face `BloomForCausalLM` weight names and config.json) with a
byte-level BPE tokenizer.json, on the licence texts Debian ships in /usr/share/common-licenses.

A developer's tool, never run by the tests or the build. It needs Debian's PyTorch, which is
NOT a dependency of the project (not in scripts/deps, not in the .deb):

    sudo apt-get install python3-torch
    python3 scripts/train_example_model.py            # writes assets/models/license-bloom-tiny/
    python3 scripts/train_example_model.py --out DIR --steps 200 --layers 2

It needs neither `transformers` nor `safetensors`: the BLOOM forward pass is written here from
the published architecture (fused query_key_value split as (H, 3, head_dim), ALiBi slopes as
BLOOM's build_alibi_tensor makes them, tanh GELU, pre-LayerNorm blocks, tied lm_head), and the
safetensors file is written by hand (8-byte little-endian header length, JSON header, raw data).
Everything is seeded; a run on two cores takes a few minutes.

What it writes into --out:
  config.json         the fields BloomConfig saves (model_type "bloom", n_layer, n_head, ...)
  model.safetensors   float32 weights under BloomForCausalLM's names (lm_head tied, not stored)
  tokenizer.json      byte-level BPE in BLOOM's layout (Split regex + ByteLevel, 4 special tokens)
  README.md           the training length, the losses and the extrapolation result
"""

import argparse
import json
import math
import os
import re
import struct
import sys
import time

LICENSES = "/usr/share/common-licenses"
# BLOOM's pre-tokenizer regex as its tokenizer.json spells it (Oniguruma: the inner [...] is a
# nested class), and the same set written for Python's re.
BLOOM_SPLIT_ONIG = " ?[^(\\s|[.,!?…。，、।۔،])]+"
BLOOM_SPLIT_RE = re.compile(r" ?[^()|\s.,!?…。，、।۔،]+")
SPECIALS = ["<unk>", "<s>", "</s>", "<pad>"]


# ---------------------------------------------------------------------------------------------
# Tokenizer: byte-level BPE trained on the corpus


def bytes_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + n)
            n += 1
    return table


BYTE_TO_CHAR = bytes_to_unicode()


def pieces(text):
    out, last = [], 0
    for m in BLOOM_SPLIT_RE.finditer(text):
        if m.start() > last:
            out.append(text[last:m.start()])
        out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return ["".join(BYTE_TO_CHAR[b] for b in p.encode("utf-8")) for p in out if p]


def merge_word(word, a, b):
    out, k = [], 0
    while k < len(word):
        if k + 1 < len(word) and word[k] == a and word[k + 1] == b:
            out.append(a + b)
            k += 2
        else:
            out.append(word[k])
            k += 1
    return out


def train_bpe(text, merges_count):
    counts = {}
    for p in pieces(text):
        counts[p] = counts.get(p, 0) + 1
    words = {p: list(p) for p in counts}
    merges = []
    for _ in range(merges_count):
        pairs = {}
        for p, w in words.items():
            for k in range(len(w) - 1):
                pairs[(w[k], w[k + 1])] = pairs.get((w[k], w[k + 1]), 0) + counts[p]
        if not pairs:
            break
        best = max(sorted(pairs), key=lambda pair: pairs[pair])  # ties: the smallest pair
        merges.append(best)
        words = {p: merge_word(w, *best) for p, w in words.items()}
    return merges


class Bpe:
    def __init__(self, merges):
        self.vocab = {s: i for i, s in enumerate(SPECIALS)}
        for b in range(256):
            self.vocab[BYTE_TO_CHAR[b]] = len(self.vocab)
        for a, b in merges:
            self.vocab.setdefault(a + b, len(self.vocab))
        self.merges = merges
        self.ranks = {m: r for r, m in enumerate(merges)}

    def encode(self, text):
        ids, cache = [], {}
        for p in pieces(text):
            if p not in cache:
                word = list(p)
                while len(word) > 1:
                    ranked = [(self.ranks[(word[k], word[k + 1])], k) for k in range(len(word) - 1)
                              if (word[k], word[k + 1]) in self.ranks]
                    if not ranked:
                        break
                    _, k = min(ranked)
                    word = merge_word(word, word[k], word[k + 1])
                cache[p] = [self.vocab[t] for t in word]
            ids += cache[p]
        return ids

    def tokenizer_json(self):
        added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True} for i, s in enumerate(SPECIALS)]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": BLOOM_SPLIT_ONIG}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
            "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                               "use_regex": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": False},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "vocab": self.vocab, "merges": [f"{a} {b}" for a, b in self.merges]},
        }


# ---------------------------------------------------------------------------------------------
# The model: BLOOM, written from its published architecture


def bloom_slopes(heads):
    """BLOOM's build_alibi_tensor: the geometric slopes of the largest power of two <= heads,
    then every other slope of the next power of two for the remaining heads."""
    closest = 2 ** math.floor(math.log2(heads))
    base = 2.0 ** (-(2.0 ** -(math.log2(closest) - 3)))
    slopes = [base ** p for p in range(1, closest + 1)]
    if closest != heads:
        extra_base = 2.0 ** (-(2.0 ** -(math.log2(2 * closest) - 3)))
        remaining = min(closest, heads - closest)
        slopes += [extra_base ** p for p in range(1, 1 + 2 * remaining, 2)]
    return slopes


def build_model(torch, vocab, hidden, layers, heads):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = nn.LayerNorm(hidden, eps=1e-5)
            self.self_attention = nn.Module()
            self.self_attention.query_key_value = nn.Linear(hidden, 3 * hidden)
            self.self_attention.dense = nn.Linear(hidden, hidden)
            self.post_attention_layernorm = nn.LayerNorm(hidden, eps=1e-5)
            self.mlp = nn.Module()
            self.mlp.dense_h_to_4h = nn.Linear(hidden, 4 * hidden)
            self.mlp.dense_4h_to_h = nn.Linear(4 * hidden, hidden)

        def forward(self, x, bias):
            b, t, _ = x.shape
            d = hidden // heads
            h = self.input_layernorm(x)
            qkv = self.self_attention.query_key_value(h).view(b, t, heads, 3, d)
            q, k, v = (qkv[..., i, :].transpose(1, 2) for i in range(3))  # (B, H, T, d)
            scores = q @ k.transpose(-1, -2) / math.sqrt(d) + bias[:, :t, :t]
            probs = torch.softmax(scores, dim=-1)
            ctx = (probs @ v).transpose(1, 2).reshape(b, t, hidden)
            x = x + self.self_attention.dense(ctx)
            h = self.post_attention_layernorm(x)
            u = self.mlp.dense_h_to_4h(h)
            u = u * 0.5 * (1.0 + torch.tanh(0.79788456 * u * (1.0 + 0.044715 * u * u)))  # BLOOM's GELU
            return x + self.mlp.dense_4h_to_h(u)

    class Transformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab, hidden)
            self.word_embeddings_layernorm = nn.LayerNorm(hidden, eps=1e-5)
            self.h = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(hidden, eps=1e-5)

    class BloomForCausalLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = Transformer()
            self.slopes = torch.tensor(bloom_slopes(heads), dtype=torch.float32)
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear):
                    nn.init.zeros_(m.bias)

        def bias(self, t):
            # -slope * (i - j) on and below the diagonal, -inf above (BLOOM adds slope * j and a
            # causal mask; softmax makes the two the same).
            pos = torch.arange(t, dtype=torch.float32)
            dist = pos[:, None] - pos[None, :]
            b = -self.slopes[:, None, None] * dist
            return b.masked_fill(dist < 0, float("-inf"))

        def forward(self, ids):
            tr = self.transformer
            x = tr.word_embeddings_layernorm(tr.word_embeddings(ids))
            bias = self.bias(ids.shape[1])
            for block in tr.h:
                x = block(x, bias)
            return tr.ln_f(x) @ tr.word_embeddings.weight.T  # lm_head tied

    return BloomForCausalLM()


# ---------------------------------------------------------------------------------------------
# Writing


def write_safetensors(path, tensors):
    """safetensors by hand: u64 little-endian header size, JSON header, raw little-endian data."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().float()
        data = t.numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # the data starts 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    os.replace(tmp, path)


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "assets", "models", "license-bloom-tiny"))
    ap.add_argument("--merges", type=int, default=256, help="BPE merges on top of the 256 bytes")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--heads", type=int, default=6, help="6: slopes of a non-power-of-two head count")
    ap.add_argument("--length", type=int, default=64, help="training length in tokens")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("error: this script needs PyTorch: sudo apt-get install python3-torch (a developer tool only)")
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    if args.hidden % args.heads:
        sys.exit(f"error: --hidden {args.hidden} is not a multiple of --heads {args.heads}")

    # The corpus: every licence file (symbolic links skipped), 90% of each to train, the last 10%
    # held out.
    names = sorted(n for n in os.listdir(LICENSES) if not os.path.islink(os.path.join(LICENSES, n)))
    train_text, held_text = [], []
    for n in names:
        with open(os.path.join(LICENSES, n), encoding="utf-8", errors="replace") as f:
            text = f.read()
        cut = text.rfind("\n", 0, int(len(text) * 0.9)) + 1
        train_text.append(text[:cut])
        held_text.append(text[cut:])
    train_text, held_text = "\n".join(train_text), "\n".join(held_text)

    t0 = time.time()
    bpe = Bpe(train_bpe(train_text, args.merges))
    train_ids = torch.tensor(bpe.encode(train_text), dtype=torch.long)
    held_ids = torch.tensor(bpe.encode(held_text), dtype=torch.long)
    vocab = len(bpe.vocab)
    print(f"tokenizer: {vocab} tokens; corpus {len(train_ids)} train / {len(held_ids)} held-out tokens "
          f"({time.time() - t0:.1f} s)", flush=True)

    model = build_model(torch, vocab, args.hidden, args.layers, args.heads)
    params = sum(p.numel() for p in model.parameters())
    print(f"model: {args.layers} layers, {args.heads} heads, d_model {args.hidden}, {params} parameters; "
          f"slopes {['%.6g' % s for s in bloom_slopes(args.heads)]}")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01, betas=(0.9, 0.95))
    T = args.length

    def lr_at(step):
        warm = 50
        if step < warm:
            return args.lr * (step + 1) / warm
        return args.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, args.steps - warm)))

    def held_loss(length):
        """Mean next-token loss over non-overlapping held-out windows of `length` tokens."""
        model.eval()
        with torch.no_grad():
            n = (len(held_ids) - 1) // length
            x = held_ids[: n * length].view(n, length)
            y = held_ids[1: n * length + 1].view(n, length)
            losses = []
            for i in range(0, n, 8):
                logits = model(x[i:i + 8])
                losses.append(torch.nn.functional.cross_entropy(
                    logits.reshape(-1, vocab), y[i:i + 8].reshape(-1), reduction="sum"))
        model.train()
        return float(sum(losses) / (n * length)), n

    t0 = time.time()
    gen = torch.Generator().manual_seed(1)
    train_loss = float("nan")
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        starts = torch.randint(0, len(train_ids) - T - 1, (args.batch,), generator=gen)
        x = torch.stack([train_ids[s:s + T] for s in starts])
        y = torch.stack([train_ids[s + 1:s + T + 1] for s in starts])
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        train_loss = 0.9 * train_loss + 0.1 * float(loss) if step else float(loss)
        if step % 25 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {float(loss):.4f}  (smoothed {train_loss:.4f})  {time.time() - t0:.0f} s",
                  flush=True)
    minutes = (time.time() - t0) / 60

    results = []
    for factor in (1, 2, 4):
        loss, windows = held_loss(T * factor)
        results.append((factor, T * factor, loss, windows))
        print(f"held-out loss at {factor}x ({T * factor} tokens, {windows} windows): {loss:.4f} nats/token")

    os.makedirs(args.out, exist_ok=True)
    state = {k: v for k, v in model.state_dict().items()}
    write_safetensors(os.path.join(args.out, "model.safetensors"), state)
    config = {
        "apply_residual_connection_post_layernorm": False,
        "architectures": ["BloomForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_dropout": 0.0,
        "hidden_size": args.hidden,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "bloom",
        "n_head": args.heads,
        "n_layer": args.layers,
        "pad_token_id": 3,
        "pretraining_tp": 1,
        "slow_but_exact": False,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
        "unk_token_id": 0,
        "use_cache": True,
        "vocab_size": vocab,
    }
    write_json(os.path.join(args.out, "config.json"), config)
    write_json(os.path.join(args.out, "tokenizer.json"), bpe.tokenizer_json())

    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in ("model.safetensors", "config.json",
                                                                    "tokenizer.json"))
    table = "\n".join(f"| {f}x | {n} | {loss:.4f} | {w} |" for f, n, loss, w in results)
    readme = f"""# license-bloom-tiny: a small ALiBi model to try the explorers on

A {args.layers}-layer, {args.heads}-head, d_model {args.hidden} causal language model in BLOOM's format
(`BloomForCausalLM` weight names, `config.json` with `model_type` "bloom", the lm_head tied to
the word embeddings), {params} parameters in float32, with a byte-level BPE `tokenizer.json` in
BLOOM's layout ({vocab} tokens: 4 special, 256 bytes, {len(bpe.merges)} merges). {size / 1e6:.1f} MB in all.

Trained by `scripts/train_example_model.py` (Debian's python3-torch, a developer tool: not a
dependency of the project, never run by the tests) on the licence texts Debian ships in
`/usr/share/common-licenses` ({len(names)} files; the first 90% of each to train, the last
10% held out: {len(train_ids)} and {len(held_ids)} tokens).

- ALiBi slopes (BLOOM's scheme for {args.heads} heads): {', '.join('%.6g' % s for s in bloom_slopes(args.heads))}
- Training length: {T} tokens; {args.steps} steps of {args.batch} sequences, AdamW (lr {args.lr}, cosine),
  {minutes:.1f} minutes on {args.threads} CPU threads.
- Final training loss (smoothed): {train_loss:.4f} nats/token.

## Train short, test long

Held-out next-token loss (nats/token, mean over every position of non-overlapping windows):

| length | tokens | loss | windows |
|---|---|---|---|
{table}

A window of 2x or 4x the training length holds distances the model never saw in training;
every position of every window counts, so a model that failed beyond its training length would
show a higher loss in the longer windows.

Regenerate with `python3 scripts/train_example_model.py` (seeded; the numbers above come from
that run).
"""
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme)
    print(f"wrote {args.out} ({size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
