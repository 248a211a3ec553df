#!/usr/bin/python3
"""Writes the seed corpora in tests/fuzz/corpus/ (a few small valid and broken files per reader).
Run with Debian's /usr/bin/python3 (it has NumPy); the files are committed, so this only needs
to run again when the seeds should change."""
import io, json, os, shutil, struct
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "corpus")

def put(kind, name, data):
    os.makedirs(os.path.join(root, kind), exist_ok=True)
    with open(os.path.join(root, kind, name), "wb") as f:
        f.write(data)

def npy(a, **kw):
    b = io.BytesIO()
    np.save(b, a, **kw)
    return b.getvalue()

# .npy: every dtype the reader takes, a scalar, a v2 header, and broken files.
bias = -np.abs(np.arange(4)[:, None] - np.arange(4)[None, :]).astype(np.float32) / 4
put("npy", "f32_hqk.npy", npy(bias[None]))
put("npy", "f64_flat.npy", npy(bias.astype(np.float64).ravel()))
put("npy", "f16_mask_inf.npy", npy(np.array([[0, -np.inf], [-0.5, 0]], dtype=np.float16)))
put("npy", "bf16_u2.npy", npy(np.array([0x3f80, 0xbf00, 0xff80], dtype=np.uint16)))
put("npy", "f8_big_endian.npy", npy(np.array([1.5, -2.0], dtype=">f8")))
put("npy", "scalar.npy", npy(np.float32(3.0)))
put("npy", "empty.npy", npy(np.zeros((0, 3), dtype=np.float32)))
b = io.BytesIO()
np.lib.format.write_array(b, np.ones((2, 2), dtype=np.float32), version=(2, 0))
put("npy", "v2.npy", b.getvalue())
good = npy(np.ones((2, 3), dtype=np.float32))
put("npy", "bad_truncated.npy", good[:-5])
put("npy", "bad_fortran.npy", npy(np.asfortranarray(np.ones((2, 3), dtype=np.float32))))
put("npy", "bad_int64.npy", npy(np.arange(3, dtype=np.int64)))
def npy_by_hand(d, data=b""):
    h = d.encode()
    h += b" " * (63 - (10 + len(h)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
put("npy", "bad_huge_shape.npy", npy_by_hand("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000000,), }"))
put("npy", "bad_negative.npy", npy_by_hand("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }"))

# .safetensors: single tensor with metadata, several tensors, and broken headers.
def st(tensors, metadata=None, pad=True):
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data

meta = {"format": "alibi-explorer", "heads": "1", "queries": "4", "keys": "4", "layout": "hqk", "dtype": "f32"}
put("safetensors", "bias_f32.safetensors", st({"bias": ("F32", [1, 4, 4], bias.tobytes())}, meta))
put("safetensors", "two_tensors.safetensors",
    st({"alibi": ("F16", [2], np.array([1, -1], np.float16).tobytes()), "x": ("I64", [1], b"\0" * 8)}))
put("safetensors", "bf16.safetensors", st({"t": ("BF16", [3], np.array([0x3f80, 0, 0xff80], np.uint16).tobytes())}))
put("safetensors", "f64_scalar.safetensors", st({"bias": ("F64", [], np.float64(2.5).tobytes())}))
put("safetensors", "bad_offsets.safetensors",
    struct.pack("<Q", 80) + b'{"bias":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}}'.ljust(80) + b"\0" * 12)
put("safetensors", "bad_overlap.safetensors",
    st({"a": ("F32", [1], b"\0" * 4), "b": ("F32", [1], b"\0" * 4)}).replace(b"[4,8]", b"[2,6]"))
put("safetensors", "bad_json.safetensors", struct.pack("<Q", 16) + b'{"bias": {"dtyp' + b"\0" * 4)
put("safetensors", "bad_length.safetensors", struct.pack("<Q", 1 << 40) + b"{}")

# Session files: the shipped examples and a few broken ones.
sessions = os.path.join(here, "..", "..", "assets", "sessions")
for name in ("default.alibi.json", "fp16-mask-overflow.alibi.json", "press-vs-geometric-12.alibi.json"):
    path = os.path.join(sessions, name)
    if os.path.exists(path):
        shutil.copy(path, os.path.join(root, "session", name))
put("session", "minimal.alibi.json", b'{"version": 1}')
put("session", "custom_slopes.alibi.json",
    b'{"version": 1, "bias": {"heads": 3, "scheme": "custom", "slopes": [0.5, 0.25, 0.125], "mask": "-inf"}}')
put("session", "bad_field.alibi.json", b'{"version": 1, "bias": {"mode": "sideways"}}')
put("session", "bad_version.alibi.json", b'{"version": 99}')
put("session", "bad_types.alibi.json", b'{"version": 1, "bias": {"heads": "eight", "queries": -5}, "view": []}')

# Issue 16: seeds that reach the limits. Nesting around and beyond the depth limit (64), several
# tensors of every dtype the safetensors specification names (so the tiling check runs over
# many ranges), every .npy dtype and byte order, many dimensions, long headers and names.
put("session", "nested_60.alibi.json", b'{"version": 1, "bias": {"heads": ' + b"[" * 60 + b"]" * 60 + b"}}")
put("session", "nested_deep.alibi.json", b'{"version": 1, "bias": {"heads": ' + b"[" * 20000 + b"]" * 20000 + b"}}")
put("session", "nested_top.alibi.json", b"[" * 70 + b"]" * 70)
put("session", "long_string.alibi.json", b'{"version": 1, "bias": {"scheme": "' + b"x" * 60000 + b'"}}')
put("session", "every_field.alibi.json", json.dumps({
    "version": 1,
    "bias": {"heads": 4, "scheme": "geometric", "max_bias": 8.0, "queries": 16, "keys": 32, "mode": "mpt",
             "mask": -10000, "layout": "qkh", "dtype": "bf16"},
    "attention": {"content": "qk", "seed": 7, "sigma": 2.0, "dk": 16, "temperature": 1e-6, "query": 3},
    "view": {"head": 1, "width": 640, "height": 480, "train_length": 8}, "max_memory": 1 << 30}).encode())
put("session", "non_utf8.alibi.json", b'{"version": 1, "bias": {"scheme": "\xff\xfe\x1b[2J"}}')

every = {"BOOL": (1, b"\x01"), "U8": (1, b"\x02"), "I8": (1, b"\xff"), "F8_E5M2": (1, b"\x3c"),
         "F8_E4M3": (1, b"\x38"), "F8_E8M0": (1, b"\x7f"), "I16": (2, b"\1\0"), "U16": (2, b"\2\0"),
         "F16": (2, np.float16(1).tobytes()), "BF16": (2, b"\x80\x3f"), "I32": (4, b"\1\0\0\0"),
         "U32": (4, b"\2\0\0\0"), "F32": (4, np.float32(-1).tobytes()), "I64": (8, b"\1" + b"\0" * 7),
         "U64": (8, b"\2" + b"\0" * 7), "F64": (8, np.float64(0.5).tobytes()), "C64": (8, b"\0" * 8)}
put("safetensors", "every_dtype.safetensors",
    st({f"t_{d.lower()}": (d, [1], raw) for d, (_, raw) in every.items()}, {"note": "every dtype"}))
put("safetensors", "sub_byte.safetensors", st({"bias": ("F32", [1], b"\0" * 4), "q4": ("F4", [4], b"\x12\x34"),
                                               "q6": ("F6_E2M3", [4], b"\1\2\3")}))
put("safetensors", "many_tensors.safetensors",
    st({f"layers.{i}.alibi": ("F32", [2, 2], np.full(4, -i, np.float32).tobytes()) for i in range(40)}))
put("safetensors", "zero_sized.safetensors", st({"a": ("F32", [0, 3], b""), "bias": ("F16", [2], b"\0\0\0\0")}))
put("safetensors", "many_dims.safetensors", st({"bias": ("F32", [1] * 64, b"\0" * 4)}))
put("safetensors", "long_metadata.safetensors", st({"bias": ("F32", [1], b"\0" * 4)}, {"k" * 300: "v" * 20000}))
put("safetensors", "bad_gap.safetensors",
    st({"a": ("F32", [1], b"\0" * 4), "b": ("F32", [1], b"\0" * 4)}).replace(b"[4,8]", b"[8,12]") + b"\0" * 4)
put("safetensors", "bad_trailing.safetensors", st({"bias": ("F32", [1], b"\0" * 4)}) + b"\0")
shifted = bytearray(st({"bias": ("F32", [2], b"\0" * 8)}))
shifted[0] -= 1
put("safetensors", "bad_header_minus_one.safetensors", bytes(shifted))
deep = b'{"bias":{"dtype":"F32","shape":' + b"[" * 100 + b"]" * 100 + b',"data_offsets":[0,4]}}'
put("safetensors", "bad_nested.safetensors", struct.pack("<Q", len(deep)) + deep + b"\0" * 4)

for descr in ("<f2", ">f2", "<f4", ">f4", "<f8", "=f8", "<u2", ">u2"):
    put("npy", f"dtype_{descr[0].replace('<', 'le').replace('>', 'be').replace('=', 'ne')}{descr[1:]}.npy",
        npy_by_hand("{'descr': '%s', 'fortran_order': False, 'shape': (2,), }" % descr,
                    b"\0" * (2 * int(descr[2]))))
put("npy", "many_dims.npy", npy(np.zeros((1,) * 32, dtype=np.float32)))
put("npy", "bad_escape.npy", npy_by_hand("{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
put("npy", "bad_too_many_dims.npy",
    npy_by_hand("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ("1, " * 70), b"\0" * 4))

# Attention maps (fuzz_attention): the first byte picks the format (even: .npy, odd:
# .safetensors), the rest is the file. Probabilities and scores, stacked layers and batches,
# per-layer safetensors tensors named by layer, f16 and bf16.
def causal_probs(h, t, m=0.5):
    i = np.arange(t)[:, None]
    j = np.arange(t)[None, :]
    logits = np.where(j <= i, -m * (i - j), -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.broadcast_to(p / p.sum(axis=1, keepdims=True), (h, t, t)).copy()

p = causal_probs(2, 4)
put("attention", "npy_hqk.bin", b"\0" + npy(p.astype(np.float32)))
put("attention", "npy_lhqk_f16.bin", b"\0" + npy(np.stack([p, p]).astype(np.float16)))
put("attention", "npy_blhqk.bin", b"\0" + npy(np.stack([np.stack([p])] * 2).astype(np.float32)))
with np.errstate(divide="ignore"):
    put("attention", "npy_scores.bin", b"\0" + npy(np.log(p).astype(np.float32)))
put("attention", "npy_bf16.bin", b"\0" + npy((p.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)))
blob = p.astype(np.float32).tobytes()
put("attention", "st_layers.bin", b"\1" + st({"model.layers.1.attn": ("F32", [2, 4, 4], blob),
                                               "model.layers.0.attn": ("F32", [2, 4, 4], blob)}))
put("attention", "st_batched.bin", b"\1" + st({"attentions.0": ("F32", [1, 2, 4, 4], blob)}))

# Issue 25: many tensors beside large metadata (the header is read as events, the metadata kept
# at most once and within its budget), and lessons at their limits: 64 steps naming a file,
# bidirectional controls and line separators in one-line fields.
rows = np.array([[1, 0], [0.5, 0.5]], dtype=np.float32).tobytes()
put("attention", "st_many_layers_big_metadata.bin",
    b"\1" + st({f"layers.{n}": ("F32", [1, 2, 2], rows) for n in range(300)}, {"m": "x" * 60000}))
put("safetensors", "many_tensors_big_metadata.safetensors",
    st(dict([("bias", ("F32", [1], b"\0" * 4))] + [(f"t{n}", ("F32", [1, 2, 2], rows)) for n in range(300)]),
       {str(k): "v" * 8 for k in range(2000)}))
step = {"text": "x", "view": "attention-grid", "attention_maps": "attention/trained-like-4x8x64.npy", "layer": 1}
put("lesson", "64_steps_with_maps.lesson.json",
    json.dumps({"version": 1, "title": "Many", "steps": [step] * 64}).encode())
put("lesson", "bidi_title.lesson.json",
    json.dumps({"version": 1, "title": "m = \u202e1/8", "steps": [{"text": "x", "view": "grid"}]},
               ensure_ascii=False).encode())
put("lesson", "line_separator.lesson.json",
    json.dumps({"version": 1, "title": "T", "steps": [{"title": "two\u2028words", "text": "a\u2029b", "view": "grid"}]},
               ensure_ascii=False).encode())

# tokenizer.json: byte-level BPE in BLOOM's and GPT-NeoX's layouts (a few merges), a plain byte
# tokenizer, a byte_fallback one with a Llama-style decoder chain, and other kinds it refuses.
def byte_alphabet():
    printable = list(range(33, 127)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        table[b] = chr(b) if b in printable else chr(0x100 + n)
        n += b not in printable
    return table

alphabet = byte_alphabet()
vocab = {"<s>": 0, "</s>": 1}
for b in range(256):
    vocab[alphabet[b]] = len(vocab)
merges = [("\u0120", "t"), ("h", "e"), ("\u0120t", "he"), ("i", "n")]
for a, b in merges:
    vocab[a + b] = len(vocab)
added = [{"id": 0, "content": "<s>", "special": True}, {"id": 1, "content": "</s>", "special": True, "lstrip": True}]
bloom_tok = {
    "version": "1.0", "added_tokens": added, "normalizer": None,
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": " ?[^(\\s|[.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c])]+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
}
put("tokenizer", "bloom_like.json", json.dumps(bloom_tok, ensure_ascii=False).encode())
neox_tok = dict(bloom_tok, normalizer={"type": "NFC"},
                pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True, "use_regex": True},
                model={"type": "BPE", "vocab": vocab, "merges": [[a, b] for a, b in merges], "ignore_merges": True})
put("tokenizer", "neox_like.json", json.dumps(neox_tok, ensure_ascii=False).encode())
put("tokenizer", "bytes_only.json", json.dumps(dict(bloom_tok, model={"type": "BPE", "vocab": vocab, "merges": []}),
                                              ensure_ascii=False).encode())
fallback_vocab = {"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "\u2581": 257, "a": 258, "\u2581a": 259}
put("tokenizer", "byte_fallback.json", json.dumps({
    "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                                       {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "pre_tokenizer": None,
    "decoder": {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
        {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": True, "fuse_unk": True, "vocab": fallback_vocab,
              "merges": ["\u2581 a"]}}, ensure_ascii=False).encode())
put("tokenizer", "wordpiece.json", json.dumps({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}).encode())
put("tokenizer", "split_behaviours.json", json.dumps(dict(bloom_tok, pre_tokenizer={"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"String": "e"}, "behavior": beh, "invert": inv}
    for beh in ("Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous") for inv in (False, True)] + [
    {"type": "Digits", "individual_digits": True}, {"type": "ByteLevel", "use_regex": False}]}),
    ensure_ascii=False).encode())
