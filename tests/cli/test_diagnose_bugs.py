"""`alibi diagnose` on the bugs real ALiBi ports shipped (issue 24), run by ctest with NumPy.

Usage: test_diagnose_bugs.py --alibi PATH/TO/alibi [unittest arguments]

Every tensor is built here in NumPy from the formulas of REFERENCES.md and from the way each
public bug report describes the broken line (a bias never assigned, a bias indexed by the query,
slopes for H / tp heads on every tensor-parallel rank, positions from a bf16 arange, finfo.min
added to the bias in f16, ...). The harmless / changes-attention flag and the probability change
are checked against a NumPy softmax of the tensor alone against correct ALiBi (zero content).
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


def causal(slopes, queries, keys=None, mask=NEG_INF, positions=None):
    """(H, Q, K) causal ALiBi, bottom-right: -m (p_i - j) for j <= p_i, the mask after."""
    keys = queries if keys is None else keys
    p = np.arange(queries)[:, None] + (keys - queries)
    j = np.arange(keys)[None, :]
    if positions is None:
        dist = (p - j).astype(np.float64)
    else:
        dist = positions(p) - positions(j)
    values = -np.asarray(slopes)[:, None, None] * dist[None]
    return np.where((j <= p)[None], values, mask)


class DiagnoseBugTests(cli.CliCase):
    def diagnose(self, array, name="t.npy", *extra):
        path = self.path(name)
        np.save(path, array)
        doc = json.loads(self.ok("diagnose", path, "--format", "json", *extra).stdout)
        self.assertEqual(doc["findings"], [f["code"] for f in doc["findings_detail"]])
        for f in doc["findings_detail"]:
            self.assertTrue(f["explanation"], f)
            self.assertTrue(f["fix"], f)
        return doc

    def detail(self, doc, code):
        for f in doc["findings_detail"]:
            if f["code"] == code:
                return f
        self.fail(f"{code} not in {doc['findings']}: {doc['summary']}")

    def assert_bug(self, doc, code, tensor, correct, harmless=False):
        f = self.detail(doc, code)
        change = probability_change(tensor, correct)
        self.assertAlmostEqual(f["max_probability_change"], change, delta=1e-6 + 1e-3 * change)
        self.assertEqual(f["changes_attention"], not harmless, f"{code}: NumPy change {change}")
        if harmless:
            self.assertLess(change, 1e-5)
        else:
            self.assertGreater(change, 1e-4)
        return f

    def assert_correct(self, doc):
        self.assertIsNotNone(doc["match"], doc["summary"])
        real = [f["code"] for f in doc["findings_detail"] if not f["informational"]]
        self.assertEqual(real, [], doc["summary"])

    # -- no ALiBi ----------------------------------------------------------------------------
    def test_no_alibi(self):
        for heads in (8, 12):
            correct = causal(press(heads), 16)
            zero = np.where(np.isinf(correct), NEG_INF, 0.0).astype(np.float32)
            doc = self.diagnose(zero)
            self.assertEqual(doc["findings"], ["no-alibi"], doc["summary"])
            self.assert_bug(doc, "no-alibi", zero, correct)
            # Indexed by the query position: -m * i on every allowed key of row i.
            rows = -press(heads)[:, None, None] * np.arange(16)[None, :, None] * np.ones((1, 1, 16))
            by_query = np.where(np.isinf(correct), NEG_INF, rows).astype(np.float32)
            doc = self.diagnose(by_query)
            self.assertEqual(doc["findings"], ["no-alibi"], doc["summary"])
            self.assert_bug(doc, "no-alibi", by_query, correct)
        # A decode step built over a one-token window: a zero row over 24 keys.
        doc = self.diagnose(np.zeros((5, 1, 24), np.float32))
        self.assertEqual(doc["findings"], ["no-alibi"])

    # -- row offset --------------------------------------------------------------------------
    def test_decode_row_off_by_one_is_harmless(self):
        for heads in (5, 8, 12):
            keys = 40
            m = press(heads)
            correct = causal(m, 1, keys)
            shifted = (-m[:, None, None] * (keys - np.arange(keys))[None, None, :]).astype(np.float32)
            doc = self.diagnose(shifted)
            self.assertIn("row-offset", doc["findings"], doc["summary"])
            self.assert_bug(doc, "row-offset", shifted, correct, harmless=True)
            self.assert_correct(self.diagnose(correct.astype(np.float32)))

    # -- scaled slopes -----------------------------------------------------------------------
    def test_scaled_bias_reports_c(self):
        for heads in (8, 12):
            correct = causal(press(heads), 24)
            tripled = (3 * correct).astype(np.float32)
            doc = self.diagnose(tripled)
            f = self.assert_bug(doc, "scaled-bias", tripled, correct)
            self.assertIn("c = 3", f["evidence"])

    def test_sqrt_dk_names_d(self):
        correct = causal(press(8), 24)
        scaled = (correct / np.sqrt(64)).astype(np.float32)
        doc = self.diagnose(scaled)
        f = self.assert_bug(doc, "scaled-by-sqrt-dk", scaled, correct)
        self.assertIn("d_k = 64", f["evidence"])

    def test_slope_ratio(self):
        slopes = 0.5 * 0.7 ** np.arange(8)
        bias = causal(slopes, 20).astype(np.float32)
        doc = self.diagnose(bias)
        f = self.assert_bug(doc, "slope-ratio", bias, causal(press(8), 20))
        self.assertIn("0.7", f["evidence"])

    def test_reversed_heads(self):
        for heads in (8, 12):
            bias = causal(press(heads)[::-1], 20).astype(np.float32)
            doc = self.diagnose(bias)
            self.assert_bug(doc, "reversed-head-order", bias, causal(press(heads), 20))

    def test_permuted_heads(self):
        bias = causal(np.sort(press(12))[::-1], 20).astype(np.float32)  # sorted steep to flat
        doc = self.diagnose(bias)
        self.assert_bug(doc, "permuted-head-order", bias, causal(press(12), 20))

    def test_off_by_one_in_one_block(self):
        heads, c = 12, 8
        first_wrong = np.concatenate([2.0 ** (-8.0 * np.arange(c) / c), press(2 * c)[0::2][: heads - c]])
        extra_wrong = np.concatenate([press(c), press(2 * c)[1::2][: heads - c]])
        for slopes in (first_wrong, extra_wrong):
            bias = causal(slopes, 20).astype(np.float32)
            doc = self.diagnose(bias)
            self.assert_bug(doc, "slope-off-by-one", bias, causal(press(heads), 20))

    def test_tensor_parallel(self):
        heads = 16
        for tp in (2, 4):
            per = heads // tp
            # Every rank computes press slopes for its own H / tp heads.
            local = np.tile(press(per), tp)
            bias = causal(local, 20).astype(np.float32)
            doc = self.diagnose(bias)
            f = self.assert_bug(doc, "tensor-parallel-slopes", bias, causal(press(heads), 20))
            self.assertIn(f"{tp} tensor-parallel ranks", f["evidence"])
            # Every rank takes rank 0's slice.
            shard0 = np.tile(press(heads)[:per], tp)
            bias = causal(shard0, 20).astype(np.float32)
            doc = self.diagnose(bias)
            f = self.assert_bug(doc, "tensor-parallel-slopes", bias, causal(press(heads), 20))
            self.assertIn("rank 1 takes rank 0's slice", f["evidence"])
            # One rank's own slice is correct for that rank: informational only.
            rank = np.array(press(heads)[per: 2 * per])
            doc = self.diagnose(causal(rank, 20).astype(np.float32))
            self.assert_correct(doc)
            self.assertIn(f"rank 1 of tp {tp}", doc["summary"])

    # -- precision ---------------------------------------------------------------------------
    def test_positions_rounded_bf16(self):
        heads, keys = 4, 600
        m = press(heads)
        bf16 = lambda x: np.asarray(ref.bf16_round(np.asarray(x, dtype=np.float64)), dtype=np.float64)  # noqa: E731
        bias = causal(m, 1, keys, positions=bf16).astype(np.float32)
        doc = self.diagnose(bias)
        self.assert_bug(doc, "positions-rounded", bias, causal(m, 1, keys))

    def test_bloom_fp16_path_stored_as_f32_is_informational(self):
        heads, t = 12, 64
        m = np.array(press(heads), dtype=np.float32)
        j = np.arange(t, dtype=np.float32)
        allowed = np.arange(t)[None, :] <= np.arange(t)[:, None]
        values = (m[:, None, None] * j[None, None, :]).astype(np.float16).astype(np.float32)
        bias = np.where(allowed[None], values, NEG_INF).astype(np.float32)
        doc = self.diagnose(bias)
        f = self.detail(doc, "low-precision-bias")
        self.assertTrue(f["informational"])
        self.assert_correct(doc)

    def test_fp16_min_added_to_the_bias(self):
        heads, t = 8, 64
        m = press(heads)
        i, j = np.arange(t)[:, None], np.arange(t)[None, :]
        sym = -m[:, None, None] * np.abs(i - j)[None]
        lowest = np.float16(np.finfo(np.float16).min)
        with np.errstate(over="ignore"):
            added = (sym.astype(np.float16) + lowest).astype(np.float16)
        bias = np.where((j <= i)[None], sym.astype(np.float16), added)
        self.assertTrue(np.isinf(bias).any() and (bias == lowest).any())
        doc = self.diagnose(bias)
        self.assertIn("fp16-mask-overflow", doc["findings"], doc["summary"])
        self.assertIsNotNone(doc["match"], doc["summary"])
        # As HF shapes it, (1, H, T, T): not read as padding and a prefix-LM.
        doc = self.diagnose(bias[None], "b4.npy")
        self.assertIn("fp16-mask-overflow", doc["findings"], doc["summary"])
        self.assertNotIn("prefix-lm", doc["findings"], doc["summary"])
        self.assertIsNotNone(doc["match"], doc["summary"])

    # -- alignment, caches -------------------------------------------------------------------
    def test_bias_top_left_mask_bottom_right(self):
        heads, q, k = 8, 4, 12
        m = press(heads)
        i, j = np.arange(q)[:, None], np.arange(k)[None, :]
        values = -m[:, None, None] * (i - j)[None]
        bias = np.where((j <= i + k - q)[None], values, NEG_INF).astype(np.float32)
        doc = self.diagnose(bias)
        # Bias and mask disagree: the bias is correct ALiBi plus m (K - Q) per row, so harmless.
        self.assert_bug(doc, "top-left-aligned", bias, causal(m, q, k), harmless=True)

    def test_static_kv_cache(self):
        for heads in (8, 12):
            used, slots = 40, 64
            correct = causal(press(heads), 1, used)
            full = np.concatenate([correct, np.full((heads, 1, slots - used), NEG_INF)], axis=2).astype(np.float32)
            doc = self.diagnose(full)
            self.assertEqual(doc["findings"], ["static-kv-cache"], doc["summary"])
            self.assertTrue(self.detail(doc, "static-kv-cache")["informational"])
            self.assertEqual(doc["used_keys"], used)
            self.assert_correct(doc)

    # -- the two smaller defects -------------------------------------------------------------
    def test_all_heads_half_is_single_slope_not_sqrt_dk(self):
        bias = causal(np.full(4, 0.5), 16).astype(np.float32)
        doc = self.diagnose(bias)
        self.assertIn("single-slope-all-heads", doc["findings"])
        self.assertNotIn("scaled-by-sqrt-dk", doc["findings"])
        self.assertNotIn("-0", doc["summary"].split("Matches")[1].split(",")[0])

    def test_negative_zero_diagonal(self):
        m = press(8).astype(np.float32)
        i, j = np.arange(16)[:, None], np.arange(16)[None, :]
        values = -m[:, None, None] * (i - j)[None].astype(np.float32)  # -0.0 on the diagonal
        bias = np.where((j <= i)[None], values, np.float32(-1e9)).astype(np.float32)
        self.assertTrue(np.signbit(bias[0, 0, 0]))
        path = self.path("negzero.npy")
        np.save(path, bias)
        text = self.ok("diagnose", path).stdout.decode()
        self.assertIn("sign of zero", text)
        self.assertNotIn("up to 0 ulp", text)
        self.assert_correct(self.diagnose(bias))

    # -- the frameworks' own shapes ----------------------------------------------------------
    def bloom_alibi(self, heads, mask):
        """HF BLOOM's build_alibi_tensor: slopes * ((cumsum(mask) - 1) * mask), as (B * H, 1, K)."""
        m = press(heads).astype(np.float32)
        positions = ((np.cumsum(mask, axis=-1) - 1) * mask).astype(np.float32)
        alibi = m[None, :, None] * positions[:, None, :]
        return alibi.reshape(mask.shape[0] * heads, 1, mask.shape[1]).astype(np.float32)

    def test_bloom_batch_times_heads_shape(self):
        for heads in (12, 16):
            mask = np.ones((3, 20), np.int64)
            mask[1, :4] = 0  # left padding
            mask[2, :9] = 0
            alibi = self.bloom_alibi(heads, mask)
            for extra in ((), ("--heads", str(heads))):
                doc = self.diagnose(alibi, "alibi.npy", *extra)
                self.assert_correct(doc)
                self.assertEqual(doc["batch"]["lengths"], [20, 16, 11], doc["summary"])
            # Naive positions (the raw index) in BLOOM's form: a constant per row, harmless.
            naive = self.bloom_alibi(heads, np.ones((3, 20), np.int64))
            doc = self.diagnose(naive, "naive.npy", "--heads", str(heads))
            self.assert_correct(doc)

    def test_decode_rows_b_h_1_k_and_b_1_1_k(self):
        for heads in (1, 5, 8):
            keys = 24
            row = causal(press(heads), 1, keys)
            padded = np.full((heads, 1, keys), NEG_INF)
            padded[..., 6:] = causal(press(heads), 1, keys - 6)
            batch = np.stack([row, padded]).astype(np.float32)  # (2, H, 1, K), row 1 left-padded by 6
            doc = self.diagnose(batch)
            self.assert_correct(doc)
            self.assertEqual(doc["batch"]["lengths"], [keys, keys - 6], doc["summary"])
            if heads > 1:  # one head's slope is any max_bias: a scale cannot show
                wrong = np.stack([row, 3 * row]).astype(np.float32)
                doc = self.diagnose(wrong)
                self.assertIn("scaled-bias", doc["findings"], doc["summary"])

    # -- against a named model ---------------------------------------------------------------
    def falcon_bias(self, heads, t):
        """Falcon's effective bias: bf16(bf16(m) * j) over the causal keys, times 1/sqrt(64)."""
        m = np.array(press(heads), dtype=np.float32).astype(np.float64)
        mb = np.asarray(ref.bf16_round(m))
        j = np.arange(t, dtype=np.float64)
        alibi = np.asarray(ref.bf16_round(mb[:, None, None] * j[None, None, :])) * np.ones((1, t, 1))
        allowed = (np.arange(t)[None, :] <= np.arange(t)[:, None])[None]
        return np.where(allowed, (alibi.astype(np.float32) * np.float32(1 / 8)), NEG_INF).astype(np.float32)

    def test_preset_tells_a_falcon_port_without_its_scale(self):
        correct = self.falcon_bias(32, 24)
        doc = self.diagnose(correct, "falcon.npy", "--preset", "falcon-rw-1b")
        self.assertEqual([f["code"] for f in doc["findings_detail"] if not f["informational"]], [], doc["summary"])
        self.assertIn("Falcon-RW-1B", doc["summary"])
        port = causal(press(32), 24).astype(np.float32)  # textbook ALiBi: Falcon's scale forgotten
        doc = self.diagnose(port, "port.npy", "--preset", "falcon-rw-1b")
        f = self.detail(doc, "not-this-model")
        self.assertIn("1/sqrt(64)", f["evidence"])
        self.assertTrue(f["changes_attention"])
        self.assertIn("modeling_falcon.py", f["evidence"])

    def test_preset_bloom_and_mpt(self):
        t = 20
        m = press(16).astype(np.float32)
        allowed = (np.arange(t)[None, :] <= np.arange(t)[:, None])[None]
        bloom = np.where(allowed, m[:, None, None] * np.arange(t, dtype=np.float32)[None, None, :], NEG_INF)
        doc = self.diagnose(bloom.astype(np.float32), "bloom.npy", "--preset", "bloom-560m")
        self.assertEqual([f["code"] for f in doc["findings_detail"] if not f["informational"]], [], doc["summary"])
        # Textbook causal for BLOOM: another form, a constant per row: not-this-model, harmless.
        doc = self.diagnose(causal(press(16), t).astype(np.float32), "c.npy", "--preset", "bloom-560m")
        f = self.detail(doc, "not-this-model")
        self.assertFalse(f["changes_attention"], f)
        # MPT with max_bias 4 instead of its 8.
        doc = self.diagnose(causal(press(32, 4.0), t).astype(np.float32), "mpt.npy", "--preset", "mpt-7b")
        self.assertTrue(self.detail(doc, "not-this-model")["changes_attention"])

    # -- correct tensors stay correct ---------------------------------------------------------
    def test_correct_tensors_have_no_finding(self):
        for heads in (1, 3, 5, 8, 12, 16):
            self.assert_correct(self.diagnose(causal(press(heads), 24).astype(np.float32)))
            self.assert_correct(self.diagnose(causal(press(heads), 2, 30).astype(np.float32)))


if __name__ == "__main__":
    cli.main()
