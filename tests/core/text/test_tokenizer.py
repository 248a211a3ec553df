#!/usr/bin/env python3
"""The tokenizer (core/text) against a reference byte-level BPE written here, in plain Python.

Small tokenizer.json files are made by the tests (a BPE trained here on a few sentences, in
the layouts BLOOM and GPT-NeoX/MPT ship), the C++ tokenizer encodes texts through
alibi_tokenizer_probe, and every id list must equal the reference's. The reference knows
nothing of the C++ code: GPT-2's byte alphabet, the two pre-tokenizer regexes (BLOOM's with
Python's `re`, GPT-2's as a hand-written scanner over Unicode categories), NFC from
`unicodedata` and the rank-ordered merge loop are written out below.

    test_tokenizer.py --probe PATH [unittest args]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
import unittest

PROBE = None

# ---------------------------------------------------------------------------------------------
# The reference


def bytes_to_unicode():
    """GPT-2's alphabet: printable Latin-1 bytes stand for themselves, the rest from U+0100."""
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
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}

# BLOOM's Split regex as Oniguruma reads it: the `[...]` inside the class is a nested class, so
# the excluded characters are ( | ) whitespace and the punctuation list.
BLOOM_PATTERN_ONIG = " ?[^(\\s|[.,!?…。，、।۔،])]+"
BLOOM_RE = re.compile(r" ?[^()|\s.,!?…。，、।۔،]+")


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_space(c):
    return c.isspace()


def gpt2_split(text):
    """GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+,
    alternative by alternative, left to right."""
    out, i, n = [], 0, len(text)

    def run(start, pred):
        j = start
        while j < n and pred(text[j]):
            j += 1
        return j

    other = lambda c: not (is_space(c) or is_letter(c) or is_number(c))  # noqa: E731
    while i < n:
        end = None
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if text.startswith(c, i):
                end = i + len(c)
                break
        if end is None:
            for pred in (is_letter, is_number, other):
                start = i + 1 if text[i] == " " else i
                j = run(start, pred)
                if j > start:
                    end = j
                    break
                if start != i:  # ' ?' may also match nothing
                    j = run(i, pred)
                    if j > i:
                        end = j
                        break
        if end is None and is_space(text[i]):
            k = run(i, is_space)
            if k == n:
                end = k
            elif k - 1 > i:
                end = k - 1
            else:
                end = k
        if end is None:  # cannot happen: every character is a letter, number, space or other
            end = i + 1
        out.append(text[i:end])
        i = end
    return out


def bpe_word(symbols, ranks):
    """The classic rank-ordered merge loop: merge the best pair everywhere, until none merges."""
    word = list(symbols)
    while len(word) > 1:
        pairs = [(ranks.get((word[k], word[k + 1]), None), k) for k in range(len(word) - 1)]
        pairs = [p for p in pairs if p[0] is not None]
        if not pairs:
            break
        rank = min(p[0] for p in pairs)
        a, b = next((word[k], word[k + 1]) for r, k in pairs if r == rank)
        merged, k = [], 0
        while k < len(word):
            if k + 1 < len(word) and word[k] == a and word[k + 1] == b:
                merged.append(a + b)
                k += 2
            else:
                merged.append(word[k])
                k += 1
        word = merged
    return word


class Reference:
    """Encodes as the tokenizer.json this object wrote says."""

    def __init__(self, kind, vocab, merges, added, nfc=False, prefix_space=False):
        self.kind, self.vocab, self.nfc, self.prefix_space = kind, vocab, nfc, prefix_space
        self.ranks = {tuple(m): r for r, m in enumerate(merges)}
        self.added = added  # list of dicts with id, content, special, lstrip, rstrip
        self.id_to_token = {i: t for t, i in vocab.items()}
        for a in added:
            self.id_to_token[a["id"]] = a["content"]

    def pieces(self, text):
        if self.nfc:
            text = unicodedata.normalize("NFC", text)
        if self.kind == "bloom":
            parts, last = [], 0
            for m in BLOOM_RE.finditer(text):
                if m.start() > last:
                    parts.append(text[last:m.start()])
                parts.append(m.group())
                last = m.end()
            if last < len(text):
                parts.append(text[last:])
        elif self.kind == "gpt2":
            # (Hugging Face's prepend does nothing to an empty string)
            if self.prefix_space and text and not text.startswith(" "):
                text = " " + text
            parts = gpt2_split(text)
        else:  # bytes: ByteLevel without its regex
            if self.prefix_space and text and not text.startswith(" "):
                text = " " + text
            parts = [text] if text else []
        return ["".join(BYTE_TO_CHAR[b] for b in p.encode("utf-8")) for p in parts if p]

    def encode_plain(self, text):
        ids = []
        for piece in self.pieces(text):
            ids += [self.vocab[t] for t in bpe_word(list(piece), self.ranks)]
        return ids

    def encode(self, text):
        ids, start, i = [], 0, 0
        while i < len(text):
            best = None
            for a in self.added:
                if text.startswith(a["content"], i) and (best is None or len(a["content"]) > len(best["content"])):
                    best = a
            if best is None:
                i += 1
                continue
            before = i
            if best.get("lstrip"):
                while before > start and text[before - 1] in " \t\n\r\f\v":
                    before -= 1
            ids += self.encode_plain(text[start:before])
            ids.append(best["id"])
            i += len(best["content"])
            if best.get("rstrip"):
                while i < len(text) and text[i] in " \t\n\r\f\v":
                    i += 1
            start = i
        return ids + self.encode_plain(text[start:])

    def decode(self, ids):
        text = "".join(self.id_to_token[i] for i in ids)
        return bytes(CHAR_TO_BYTE[c] if c in CHAR_TO_BYTE else ord(c) for c in text).decode("utf-8", "replace")


def train_merges(kind, corpus, count):
    """A tiny BPE trainer: the most frequent adjacent pair (ties to the first seen) becomes the
    next merge. Only to give the test tokenizers real, overlapping merges."""
    ref = Reference(kind, {}, [], [])
    words = [list(p) for line in corpus for p in ref.pieces(line)]
    merges = []
    for _ in range(count):
        counts = {}
        for w in words:
            for k in range(len(w) - 1):
                counts[(w[k], w[k + 1])] = counts.get((w[k], w[k + 1]), 0) + 1
        if not counts:
            break
        best = max(counts.items(), key=lambda kv: kv[1])[0]
        merges.append(best)
        words = [bpe_word(w, {best: 0}) for w in words]
    return merges


CORPUS = [
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox doesn't.",
    "Attention with linear biases: the slope of each head is a power of two.",
    "naïve café résumé — 東京 東京タワー, Ελληνικά κείμενα, русский текст, हिन्दी पाठ 😀😀",
    "  indented lines\n\n\tand tabs, numbers 12345 and 3.14159, they're we'll I'd",
]


def make_tokenizer(kind, merges_count=60, nfc=False, prefix_space=False, added=None, merges_as_lists=False):
    merges = train_merges(kind, CORPUS, merges_count) if merges_count else []
    vocab = {}
    added = added or []
    next_id = len(added)  # the added tokens take the first ids, as BLOOM's do
    for b in range(256):
        vocab[BYTE_TO_CHAR[b]] = next_id
        next_id += 1
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = next_id
            next_id += 1
    if kind == "bloom":
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": BLOOM_PATTERN_ONIG}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": prefix_space, "trim_offsets": True, "use_regex": False}]}
    else:
        pre = {"type": "ByteLevel", "add_prefix_space": prefix_space, "trim_offsets": True,
               "use_regex": kind == "gpt2"}
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [dict({"single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                               "special": True}, **a) for a in added],
        "normalizer": {"type": "NFC"} if nfc else None,
        "pre_tokenizer": pre,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": [[a, b] if merges_as_lists else f"{a} {b}" for a, b in merges]},
    }
    return doc, Reference(kind, vocab, merges, added, nfc=nfc, prefix_space=prefix_space)


TEXTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  leading spaces\n\nnew lines\ttabs   and trailing   ",
    "naïve café résumé — 東京タワー 😀 Ελληνικά русский हिन्दी",
    "don't won't they're we'll I'd it's",
    "numbers 12345, 3.14159 and 2^10=1024!",
    "",
    " ",
    "\n",
    "a",
    "(parens) [brackets] |pipes| ...!?",
    "e\u0301 combining accent, \u00e9 precomposed",
    "fox fox fox foxes",
]


def run_probe(doc_or_text, texts):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text, ensure_ascii=False))
        return subprocess.run([PROBE, path], input=json.dumps(texts), capture_output=True, text=True, timeout=120)


def probe_ok(test, doc, texts):
    proc = run_probe(doc, texts)
    test.assertEqual(proc.returncode, 0, proc.stderr)
    return json.loads(proc.stdout)


# ---------------------------------------------------------------------------------------------
# The tests


class EncodeTests(unittest.TestCase):
    def check(self, doc, ref, texts=TEXTS, normalized=None):
        out = probe_ok(self, doc, texts)
        for text, result in zip(texts, out["results"]):
            with self.subTest(text=text):
                self.assertEqual(result["ids"], ref.encode(text))
                # decode(encode(text)) gives the text back (after the normalizer, if any)
                expected = normalized(text) if normalized else text
                self.assertEqual(result["decoded"], expected)
                self.assertEqual(ref.decode(result["ids"]), expected)
        return out

    def test_bloom_layout(self):
        added = [{"id": 0, "content": "<unk>"}, {"id": 1, "content": "<s>"}, {"id": 2, "content": "</s>"},
                 {"id": 3, "content": "<pad>"}]
        doc, ref = make_tokenizer("bloom", added=added)
        out = self.check(doc, ref)
        self.assertEqual(out["vocab_size"], max(doc["model"]["vocab"].values()) + 1)
        self.assertIn("byte-level BPE", out["summary"])
        # the merges were used: fewer tokens than bytes on a sentence of the corpus
        text = CORPUS[0]
        self.assertLess(len(ref.encode(text)), len(text.encode()))

    def test_gpt_neox_layout(self):
        added = [{"id": 0, "content": "<|endoftext|>"}, {"id": 1, "content": "<|padding|>"}]
        doc, ref = make_tokenizer("gpt2", nfc=True, added=added, merges_as_lists=True)
        self.check(doc, ref, normalized=lambda t: unicodedata.normalize("NFC", t))

    def test_gpt2_prefix_space(self):
        doc, ref = make_tokenizer("gpt2", prefix_space=True)
        out = probe_ok(self, doc, TEXTS)
        for text, result in zip(TEXTS, out["results"]):
            with self.subTest(text=text):
                self.assertEqual(result["ids"], ref.encode(text))

    def test_special_tokens_in_text(self):
        added = [{"id": 0, "content": "<s>"}, {"id": 1, "content": "</s>"},
                 {"id": 2, "content": "<mask>", "lstrip": True, "rstrip": True},
                 {"id": 3, "content": "<|endoftext|>"}]
        doc, ref = make_tokenizer("bloom", added=added)
        texts = ["<s>Hello</s>", "a <mask> b", "<s><s></s>", "one<|endoftext|>two", "</s  > <s >", "x   <mask>   y"]
        out = probe_ok(self, doc, texts)
        for text, result in zip(texts, out["results"]):
            with self.subTest(text=text):
                self.assertEqual(result["ids"], ref.encode(text))
        self.assertEqual(out["results"][0]["ids"][0], 0)
        self.assertEqual(out["results"][0]["ids"][-1], 1)
        self.assertEqual(out["results"][0]["decoded"], "<s>Hello</s>")
        self.assertEqual(out["results"][0]["display"][0], "<s>")
        # lstrip/rstrip: the spaces around <mask> belong to it
        self.assertEqual(out["results"][1]["decoded"], "a<mask>b")

    def test_single_bytes_are_a_plain_byte_tokenizer(self):
        doc, ref = make_tokenizer("bytes", merges_count=0)
        texts = ["Hello, world", "naïve 東京 😀\n\t"]
        out = probe_ok(self, doc, texts)
        for text, result in zip(texts, out["results"]):
            self.assertEqual(result["ids"], list(text.encode("utf-8")))
            self.assertEqual(result["decoded"], text)
        display = out["results"][1]["display"]
        # "naïve": ï is two bytes, each shown as a byte since neither is a character alone
        self.assertEqual(display[:6], ["n", "a", "<0xC3>", "<0xAF>", "v", "e"])
        self.assertEqual(display[6], "\u00b7")  # a space
        self.assertEqual(display[-2:], ["\u21b5", "\u2192"])  # newline, tab

    def test_display_of_merged_tokens(self):
        doc, ref = make_tokenizer("bloom")
        out = probe_ok(self, doc, [" the fox", "\n\nnew"])
        for result in out["results"]:
            shown = "".join(result["display"])
            self.assertNotIn("\u0120", shown)  # no "Ġ": spaces are shown as "·"
            self.assertEqual(shown.replace("\u00b7", " ").replace("\u21b5", "\n"), result["decoded"])

    def test_long_text(self):
        doc, ref = make_tokenizer("gpt2", merges_count=80)
        text = " ".join(CORPUS) * 20
        out = probe_ok(self, doc, [text])
        self.assertEqual(out["results"][0]["ids"], ref.encode(text))
        self.assertEqual(out["results"][0]["decoded"], text)


class HostileTests(unittest.TestCase):
    def refused(self, doc, *needles):
        proc = run_probe(doc, ["x"])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        for needle in needles:
            self.assertIn(needle, proc.stderr)
        self.assertLess(len(proc.stderr), 2000)
        return proc.stderr

    def test_other_models_are_named(self):
        for model, name in [({"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "a"}, "WordPiece"),
                            ({"type": "Unigram", "vocab": [["a", 0.0]]}, "Unigram"),
                            ({"type": "WordLevel", "vocab": {"a": 0}}, "WordLevel")]:
            with self.subTest(model=name):
                doc, _ = make_tokenizer("bloom", merges_count=0)
                doc["model"] = model
                self.refused(doc, name, "not BPE")

    def test_unknown_components(self):
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581"}
        self.refused(doc, "Metaspace")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["normalizer"] = {"type": "BertNormalizer"}
        self.refused(doc, "BertNormalizer")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["decoder"] = {"type": "WordPiece"}
        self.refused(doc, "WordPiece")

    def test_malformed_files(self):
        self.refused("{not json", "not valid JSON")
        self.refused("[]", "not a JSON object")
        self.refused("{}", "no \"model\"")
        self.refused("", "not valid JSON")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["model"]["merges"] = ["a zz"]
        self.refused(doc, "merge #0", "missing from its vocabulary")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["model"]["merges"] = ["abc"]
        self.refused(doc, "merge #0")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["model"]["vocab"]["extra"] = 5
        self.refused(doc, "id 5")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["model"]["vocab"]["extra"] = "seven"
        self.refused(doc, "extra")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["model"]["vocab"]["big"] = 2**31 - 1
        self.refused(doc, "big")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": "(unclosed"}
        self.refused(doc, "does not compile")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways"
        self.refused(doc, "Sideways")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["added_tokens"] = [{"id": -1, "content": "<s>"}]
        self.refused(doc, "added token")
        doc, _ = make_tokenizer("bloom", merges_count=0)
        doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": []}
        for _ in range(10):  # 11 Sequences (the reader takes 8), 23 JSON levels
            doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [doc["pre_tokenizer"]]}
        self.refused(doc, "nested too deeply")
        for _ in range(40):  # deeper than any JSON reader takes: refused before parsing
            doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [doc["pre_tokenizer"]]}
        self.refused(doc, "nested more than 64 levels deep")

    def test_a_missing_byte_without_unk_is_refused(self):
        doc, _ = make_tokenizer("bytes", merges_count=0)
        del doc["model"]["vocab"][BYTE_TO_CHAR[0x41]]
        self.refused(doc, "0x41")

    def test_not_a_regular_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([PROBE, tmp], input="[]", capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("not a regular file", proc.stderr)
            proc = subprocess.run([PROBE, os.path.join(tmp, "missing.json")], input="[]", capture_output=True,
                                  text=True, timeout=60)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("No such file", proc.stderr)


class ReferenceSelfTests(unittest.TestCase):
    """The reference's own pieces, against facts written by hand."""

    def test_alphabet(self):
        self.assertEqual(BYTE_TO_CHAR[ord(" ")], "\u0120")  # "Ġ"
        self.assertEqual(BYTE_TO_CHAR[ord("\n")], "\u010a")  # "Ċ"
        self.assertEqual(BYTE_TO_CHAR[ord("A")], "A")
        self.assertEqual(len(set(BYTE_TO_CHAR.values())), 256)

    def test_gpt2_split(self):
        self.assertEqual(gpt2_split("Hello world"), ["Hello", " world"])
        self.assertEqual(gpt2_split("don't  go"), ["don", "'t", " ", " go"])
        self.assertEqual(gpt2_split("a 12!! \n\nb  "), ["a", " 12", "!!", " \n", "\n", "b", "  "])

    def test_bloom_split(self):
        self.assertEqual(BLOOM_RE.findall("Hello, world! (x)"), ["Hello", " world", "x"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", required=True)
    args, rest = parser.parse_known_args()
    PROBE = args.probe
    unittest.main(argv=[sys.argv[0]] + rest)
