"""`alibi diagnose` on the frameworks' own batch shapes, alone and against a named model (issue 24,
items 3 and 4), run by ctest with NumPy.

Usage: test_diagnose_batches.py --alibi PATH/TO/alibi [unittest arguments]

Every tensor is built here in NumPy from the formulas of REFERENCES.md and from the frameworks'
code as published: HF BLOOM's build_alibi_tensor (slopes * ((cumsum(mask) - 1) * mask), returned as
(batch * heads, 1, K), zeros on the padding keys), decode rows (B, H, 1, K) and (B, 1, 1, K) of a
left-padded batch (the padding keys masked), decode chunks (B, H, Q, K), Falcon's effective bias
(bf16(bf16(m) * p) times 1/sqrt(head_dim)) and MPT's -m (K - 1 - j). The probability change of a
finding is checked against a NumPy softmax of the tensor alone against correct ALiBi (zero content).
"""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alibi_reference as ref  # noqa: E402
import cli_harness as cli  # noqa: E402

NEG_INF = -np.inf


press, softmax, probability_change = ref.press, ref.softmax, ref.probability_change


def decode_rows(slopes, keys, lengths, queries=1, mask=NEG_INF, scale=1.0):
    """(B, H, Q, K): the last Q query rows of a left-padded causal batch of length K, positions
    from the mask; padding keys and future keys masked."""
    slopes = np.asarray(slopes, dtype=np.float64)
    out = np.full((len(lengths), len(slopes), queries, keys), mask, dtype=np.float64)
    for b, length in enumerate(lengths):
        pad = keys - length
        for q in range(queries):
            i = keys - queries + q  # the query's slot; its position is i - pad
            j = np.arange(pad, i + 1)
            out[b, :, q, pad: i + 1] = -slopes[:, None] * (i - j)[None, :] * scale
    return out


def bloom_alibi(slopes, mask):
    """HF BLOOM's build_alibi_tensor: slopes * ((cumsum(mask) - 1) * mask), (B * H, 1, K), f32."""
    m = np.asarray(slopes, dtype=np.float32)
    positions = ((np.cumsum(mask, axis=-1) - 1) * mask).astype(np.float32)
    alibi = m[None, :, None] * positions[:, None, :]
    return alibi.reshape(mask.shape[0] * len(m), 1, mask.shape[1]).astype(np.float32)


def left_mask(keys, lengths):
    mask = np.zeros((len(lengths), keys), np.int64)
    for b, length in enumerate(lengths):
        mask[b, keys - length:] = 1
    return mask


def falcon_batch(heads, keys, lengths, queries, scale=1 / 8):
    """Falcon's effective bias for the last `queries` rows of a left-padded batch: bf16(bf16(m) * p)
    over positions from the mask (its build_alibi_tensor), times 1/sqrt(head_dim) in f32 (its
    attention), padding and future keys -inf."""
    mb = np.asarray(ref.bf16_round(np.array(press(heads), dtype=np.float32).astype(np.float64)))
    out = np.full((len(lengths), heads, queries, keys), NEG_INF, dtype=np.float32)
    for b, length in enumerate(lengths):
        pad = keys - length
        p = np.arange(length, dtype=np.float64)
        alibi = np.asarray(ref.bf16_round(mb[:, None] * p[None, :])).astype(np.float32) * np.float32(scale)
        for q in range(queries):
            i = keys - queries + q
            if i < pad:
                continue
            out[b, :, q, pad: i + 1] = alibi[:, : i + 1 - pad]
    return out


class DiagnoseBatchTests(cli.CliCase):
    def diagnose(self, array, name="t.npy", *extra):
        path = self.path(name)
        np.save(path, array)
        doc = json.loads(self.ok("diagnose", path, "--format", "json", *extra).stdout)
        self.assertEqual(doc["findings"], [f["code"] for f in doc["findings_detail"]])
        return doc

    def detail(self, doc, code):
        for f in doc["findings_detail"]:
            if f["code"] == code:
                return f
        self.fail(f"{code} not in {doc['findings']}: {doc['summary']}")

    def real_findings(self, doc):
        return [f["code"] for f in doc["findings_detail"] if not f["informational"]]

    def assert_correct_rows(self, doc, lengths, tiles, queries, keys):
        """A correct batch of rows: matched, no finding but informational ones, every row the common
        match, the corrected parameters the left-padded square batch, and an error map of every row."""
        self.assertIsNotNone(doc["match"], doc["summary"])
        self.assertEqual(self.real_findings(doc), [], doc["summary"])
        self.assertEqual(doc["batch"]["lengths"], lengths, doc["summary"])
        self.assertEqual(len(doc["rows"]), len(lengths))
        for row in doc["rows"]:
            self.assertTrue(row["matched"] and row["common"], row)
        self.assertIn("Every row", doc["summary"])
        c = doc["correct"]
        self.assertIsNotNone(c, doc["summary"])
        self.assertEqual(c["queries"], keys)
        self.assertEqual(c["keys"], keys)
        self.assertEqual(c["batch"]["lengths"], lengths)
        self.assertEqual(c["batch"]["padding"], "left")
        self.assertEqual(c["batch"]["positions"], "mask")
        self.assertEqual(c["tensor_rows_from"], keys - queries)
        self.assertEqual(doc["error_map"]["shape"], [tiles, queries, keys])
        self.assertLess(float(doc["error_map"]["max_abs_error"]), 1e-5, doc["error_map"])
        return doc

    # -- HF BLOOM's (batch * heads, 1, K) ------------------------------------------------------
    def test_bloom_build_alibi_tensor(self):
        lengths = [20, 16, 11, 2]
        mask = left_mask(20, lengths)
        for heads in (5, 6, 12, 16):
            alibi = bloom_alibi(press(heads), mask)
            # 12 and 16 are known head counts (detected); 5 and 6 need --heads.
            runs = [("--heads", str(heads))] + ([()] if heads in (12, 16) else [])
            for extra in runs:
                doc = self.diagnose(alibi, "alibi.npy", *extra)
                self.assert_correct_rows(doc, lengths, len(lengths) * heads, 1, 20)
                self.assertTrue(doc["batch"]["padding_zeros"], doc["summary"])
                self.assertEqual(doc["correct"]["mode"], "bloom")
                self.assertEqual(doc["heads"], heads)
            # One row with the slopes off by one: that row differs, and the finding names it.
            wrong = alibi.reshape(len(lengths), heads, 1, 20).copy()
            off = 2.0 ** (-8.0 * np.arange(heads) / (1 << (heads.bit_length() - 1)))
            positions = ((np.cumsum(mask, axis=-1) - 1) * mask).astype(np.float32)
            wrong[2, :, 0, :] = (off[:, None] * positions[2][None, :]).astype(np.float32)
            wrong = wrong.reshape(len(lengths) * heads, 1, 20)
            doc = self.diagnose(wrong, "wrong.npy", "--heads", str(heads))
            self.assertIn("Rows that differ: row 2", doc["summary"])
            self.assertEqual([r["common"] for r in doc["rows"]], [True, True, False, True])
            f = self.detail(doc, "slope-off-by-one")
            self.assertIn("batch row 2:", f["evidence"])
            self.assertTrue(f["changes_attention"])
            # BLOOM form against correct ALiBi, padding keys masked for the softmax.
            real = mask.astype(bool)[:, None, None, :]
            bad = np.where(real, wrong.reshape(len(lengths), heads, 1, 20), NEG_INF)
            good = np.where(real, alibi.reshape(len(lengths), heads, 1, 20), NEG_INF)
            change = probability_change(bad, good)
            self.assertAlmostEqual(f["max_probability_change"], change, delta=1e-6 + 1e-3 * change)

    def test_bloom_preset_splits_and_checks(self):
        lengths = [16, 9, 12]
        alibi = bloom_alibi(press(16), left_mask(16, lengths))
        doc = self.diagnose(alibi, "bloom.npy", "--preset", "bloom-560m")
        self.assert_correct_rows(doc, lengths, 48, 1, 16)
        self.assertIn("Matches BLOOM-560m's own computation", doc["summary"])
        # Press slopes with max_bias 16 are not BLOOM's (max_bias 8).
        other = bloom_alibi(press(16, 16.0), left_mask(16, lengths))
        doc = self.diagnose(other, "other.npy", "--preset", "bloom-560m")
        f = self.detail(doc, "not-this-model")
        self.assertIn("BLOOM-560m", f["evidence"])
        self.assertTrue(f["changes_attention"])

    # -- decode rows (B, H, 1, K), (B, 1, 1, K) and chunks (B, H, Q, K) ---------------------------
    def test_decode_rows_left_padded(self):
        lengths = [24, 18, 7]
        for heads in (1, 3, 5, 8, 12):
            rows = decode_rows(press(heads), 24, lengths).astype(np.float32)
            doc = self.diagnose(rows)
            self.assert_correct_rows(doc, lengths, len(lengths) * heads, 1, 24)
            self.assertFalse(doc["batch"]["padding_zeros"])
            self.assertEqual(doc["correct"]["mask"], "-inf")
            text = self.ok("diagnose", self.path("t.npy")).stdout.decode()
            self.assertIn("read as a batch of rows", text)
            self.assertIn("correct:  press slopes (max_bias 8), causal mode", text)
            self.assertIn(f"error:    |tensor - correct ALiBi| per cell, ({len(lengths) * heads}, 1, 24)", text)
            self.assertIn("row 2     7 keys, the common match", text)

    def test_one_left_padded_decode_row(self):
        """(1, H, 1, K) with left padding: a batch of one row, its padding cropped."""
        for heads in (4, 12):
            row = decode_rows(press(heads), 16, [9]).astype(np.float32)
            doc = self.diagnose(row)
            self.assert_correct_rows(doc, [9], heads, 1, 16)
            # Without padding it stays a plain (1, H, Q, K) bias.
            doc = self.diagnose(decode_rows(press(heads), 16, [16]).astype(np.float32), "plain.npy")
            self.assertIsNone(doc["rows"])
            self.assertEqual(self.real_findings(doc), [], doc["summary"])

    def test_decode_rows_that_differ(self):
        lengths = [24, 18, 7]
        for heads in (3, 8, 12):
            correct = decode_rows(press(heads), 24, lengths)
            # Row 1 at three times the bias: scaled-bias there, changing attention.
            scaled = correct.copy()
            scaled[1] *= 3
            doc = self.diagnose(scaled.astype(np.float32))
            self.assertIn("Rows that differ: row 1", doc["summary"])
            f = self.detail(doc, "scaled-bias")
            self.assertIn("batch row 1:", f["evidence"])
            self.assertTrue(f["changes_attention"])
            change = probability_change(scaled, correct)
            self.assertAlmostEqual(f["max_probability_change"], change, delta=1e-6 + 1e-3 * change)
            self.assertAlmostEqual(doc["max_probability_change"], change, delta=1e-6 + 1e-3 * change)
            # Row 2's decode row one position off: a constant on its row, harmless.
            shifted = correct.copy()
            shifted[2] = np.where(np.isinf(correct[2]), NEG_INF, correct[2] - press(heads)[:, None, None])
            doc = self.diagnose(shifted.astype(np.float32))
            f = self.detail(doc, "row-offset")
            self.assertFalse(f["changes_attention"], f)
            self.assertIn("batch row 2:", f["evidence"])
            self.assertLess(probability_change(shifted, correct), 1e-6)
            # A row that nothing reproduces: no match for the batch, and the row is named.
            noise = correct.copy()
            rng = np.random.default_rng(heads)
            noise[0, :, :, 5:] = -rng.uniform(0, 3, size=(heads, 1, 19))
            doc = self.diagnose(noise.astype(np.float32))
            self.assertIsNone(doc["match"], doc["summary"])
            self.assertFalse(doc["rows"][0]["matched"])
            self.assertTrue(doc["rows"][1]["matched"] and doc["rows"][1]["common"])
            self.assertIn("Rows that differ: row 0", doc["summary"])

    def test_one_head_rows_and_f16(self):
        lengths = [30, 12, 25, 30]
        rows = decode_rows(press(1), 30, lengths, mask=np.finfo(np.float16).min).astype(np.float16)
        self.assertEqual(rows.shape, (4, 1, 1, 30))
        doc = self.diagnose(rows)
        self.assert_correct_rows(doc, lengths, 4, 1, 30)
        self.assertEqual(doc["correct"]["mask"], "min")

    def test_decode_chunk(self):
        lengths = [16, 10, 13]
        for heads in (4, 6):
            chunk = decode_rows(press(heads), 16, lengths, queries=3).astype(np.float32)
            doc = self.diagnose(chunk)
            self.assert_correct_rows(doc, lengths, len(lengths) * heads, 3, 16)

    def test_figure_of_a_batch_of_rows(self):
        alibi = bloom_alibi(press(12), left_mask(16, [16, 9]))
        path = self.path("alibi.npy")
        np.save(path, alibi)
        out = self.path("diagnosis.png")
        self.ok("diagnose", path, "--figure", out)
        width, height = cli.png_size(out)
        self.assertGreater(width, 100)
        self.assertGreater(height, 100)

    # -- against a named model, in batches ---------------------------------------------------
    def test_falcon_batches_with_and_without_its_scale(self):
        heads, keys, lengths = 32, 12, [12, 8]
        shapes = {
            "square": falcon_batch(heads, keys, lengths, keys),
            "decode": falcon_batch(heads, keys, lengths, 1),
        }
        unscaled = {
            "square": falcon_batch(heads, keys, lengths, keys, scale=1.0),
            "decode": falcon_batch(heads, keys, lengths, 1, scale=1.0),
        }
        for name, tensor in shapes.items():
            doc = self.diagnose(tensor, f"falcon_{name}.npy", "--preset", "falcon-rw-1b")
            self.assertEqual(self.real_findings(doc), [], f"{name}: {doc['summary']}")
            self.assertIn("Matches Falcon-RW-1B's own computation", doc["summary"])
            self.assertIsNotNone(doc["match"], doc["summary"])
            port = unscaled[name]
            doc = self.diagnose(port, f"port_{name}.npy", "--preset", "falcon-rw-1b")
            f = self.detail(doc, "not-this-model")
            self.assertIn("1/sqrt(64)", f["evidence"])
            self.assertTrue(f["changes_attention"])
            change = probability_change(port, tensor)
            self.assertAlmostEqual(f["max_probability_change"], change, delta=1e-5 + 1e-2 * change)
            # Without --preset the port is textbook ALiBi: no finding.
            self.assertEqual(self.real_findings(self.diagnose(port, f"plain_{name}.npy")), [], name)

    def test_falcon_from_config_on_bloom_shaped_rows(self):
        """Falcon's config.json (alibi true, 32 heads, hidden_size 2048: head_dim 64) on a (B * H, 1, K)
        tensor of its effective bias, zeros on the padding keys as build_alibi_tensor leaves them."""
        config = self.path("config.json")
        with open(config, "w") as f:
            json.dump({"model_type": "falcon", "alibi": True, "num_attention_heads": 32, "hidden_size": 2048,
                       "_name_or_path": "my-falcon"}, f)
        heads, keys, lengths = 32, 10, [10, 6, 8]
        mask = left_mask(keys, lengths)
        mb = np.asarray(ref.bf16_round(np.array(press(heads), dtype=np.float32).astype(np.float64)))
        positions = ((np.cumsum(mask, axis=-1) - 1) * mask).astype(np.float64)
        alibi = np.asarray(ref.bf16_round(mb[None, :, None] * positions[:, None, :])).astype(np.float32)
        effective = (alibi * np.float32(1 / 8)).reshape(len(lengths) * heads, 1, keys)
        doc = self.diagnose(effective, "falcon_rows.npy", "--from-config", config)
        self.assertEqual(self.real_findings(doc), [], doc["summary"])
        self.assertEqual(doc["batch"]["lengths"], lengths, doc["summary"])
        self.assertIn("Matches my-falcon's own computation", doc["summary"])
        unscaled = alibi.reshape(len(lengths) * heads, 1, keys)
        doc = self.diagnose(unscaled, "port_rows.npy", "--from-config", config)
        f = self.detail(doc, "not-this-model")
        self.assertIn("1/sqrt(64)", f["evidence"])
        self.assertIn("build_alibi_tensor before", f["evidence"])

    def test_bloom_square_batch_with_its_preset(self):
        heads, t, lengths = 16, 10, [10, 7, 4]
        m = np.array(press(heads), dtype=np.float32)
        out = np.full((len(lengths), heads, t, t), NEG_INF, dtype=np.float32)
        for b, length in enumerate(lengths):
            pad = t - length
            p = np.arange(length, dtype=np.float32)
            for i in range(pad, t):
                out[b, :, i, pad: i + 1] = m[:, None] * p[None, : i + 1 - pad]
        doc = self.diagnose(out, "bloom_batch.npy", "--preset", "bloom-560m")
        self.assertEqual(self.real_findings(doc), [], doc["summary"])
        self.assertIn("Matches BLOOM-560m's own computation", doc["summary"])
        self.assertEqual(doc["batch"]["lengths"], lengths)
        # Positions that count the padding: in BLOOM's form a constant per row, harmless.
        naive = out.copy()
        for b, length in enumerate(lengths):
            pad = t - length
            for i in range(pad, t):
                naive[b, :, i, pad: i + 1] = m[:, None] * np.arange(pad, i + 1, dtype=np.float32)[None, :]
        doc = self.diagnose(naive, "bloom_naive.npy", "--preset", "bloom-560m")
        f = self.detail(doc, "not-this-model")
        self.assertIn("count the padding", f["evidence"])
        self.assertFalse(f["changes_attention"], f)

    def test_mpt_decode_rows(self):
        lengths = [20, 14]
        rows = decode_rows(press(32), 20, lengths).astype(np.float32)  # -m (K - 1 - j) = causal at decode
        doc = self.diagnose(rows, "mpt.npy", "--preset", "mpt-7b")
        self.assertEqual(self.real_findings(doc), [], doc["summary"])
        self.assertIn("Matches MPT-7B's own computation", doc["summary"])
        wrong = decode_rows(press(32, 16.0), 20, lengths).astype(np.float32)
        doc = self.diagnose(wrong, "mpt16.npy", "--preset", "mpt-7b")
        f = self.detail(doc, "not-this-model")
        self.assertTrue(f["changes_attention"])
        self.assertNotIn("lacks", f["evidence"])

    def test_slope_vectors_against_a_model(self):
        doc = self.diagnose(press(32).astype(np.float32), "m.npy", "--preset", "falcon-rw-1b")
        self.assertEqual(doc["findings"], [], doc["summary"])
        self.assertIn("Matches Falcon-RW-1B's slopes", doc["summary"])
        # The scale folded into the slopes: Falcon's attention would apply it twice.
        doc = self.diagnose((press(32) / 8).astype(np.float32), "m8.npy", "--preset", "falcon-rw-1b")
        self.assertIn("applied twice", self.detail(doc, "not-this-model")["evidence"])
        doc = self.diagnose(press(16).astype(np.float32), "b.npy", "--preset", "bloom-560m")
        self.assertEqual(doc["findings"], [], doc["summary"])
        doc = self.diagnose(press(16, 16.0).astype(np.float32), "b16.npy", "--preset", "bloom-560m")
        self.assertIn("not-this-model", doc["findings"])
        doc = self.diagnose(press(12).astype(np.float32), "b12.npy", "--preset", "bloom-560m")
        self.assertIn("12 slopes where BLOOM-560m has 16 heads", self.detail(doc, "not-this-model")["evidence"])


if __name__ == "__main__":
    cli.main()
