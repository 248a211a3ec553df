"""Batches (--lengths, --padding, --documents, --window, --prefix, --positions), presets,
--from-config and the small gaps of issue 11, checked through the `alibi` binary.

Usage: test_batches.py --alibi PATH/TO/alibi [unittest arguments]

Expected batch tensors are built here directly in NumPy from the definitions (BLOOM's positions
(cumsum(mask) - 1) * mask, llm-foundry's sequence_id block mask, a window band, a bidirectional
prefix), never from the program.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness as cli  # noqa: E402
import test_arith as arith  # noqa: E402  (the framework slope emulations)


def expected_batch(slopes, t, lengths=None, padding="right", documents=(), window=0, prefix=0,
                   positions="mask", mode="causal", mask=-1e9):
    """(B, H, T, T) float32 tensor from the definitions; slopes are float32 (a profile's)."""
    lengths = lengths or [t]
    out = np.empty((len(lengths), len(slopes), t, t), np.float32)
    for b, length in enumerate(lengths):
        real = np.zeros(t, bool)
        if padding == "left":
            real[t - length:] = True
        else:
            real[:length] = True
        attention_mask = real.astype(np.int64)
        if positions == "naive":
            pos = np.arange(t)
        else:
            pos = (np.cumsum(attention_mask) - 1) * attention_mask
        doc = np.full(t, -1)
        if documents:
            ids = np.concatenate([np.full(d, k) for k, d in enumerate(documents)])
            ids = np.concatenate([ids, np.full(max(0, length - len(ids)), len(documents))])[:length]
            doc[real] = ids
            if positions == "document":
                starts = np.concatenate([[0], np.cumsum(documents)])  # the extra document starts at the sum
                pos = pos.copy()
                pos[real] = np.arange(length) - starts[ids]
        else:
            doc[real] = 0
        i = np.arange(t)[:, None]
        j = np.arange(t)[None, :]
        allowed = np.broadcast_to(real[None, :], (t, t)).copy()  # padding keys are masked, padding queries are not
        if documents:
            allowed &= doc[:, None] == doc[None, :]
        in_prefix = (i < prefix) & (j < prefix)
        if mode in ("causal", "bloom", "mpt"):
            allowed &= (j <= i) | in_prefix
        if window:
            allowed &= np.abs(i - j) < window
        d = pos[:, None] - pos[None, :]
        if mode == "bloom":
            n = np.broadcast_to(pos[None, :], (t, t))
        else:
            n = -np.abs(d)
        value = np.float32(slopes)[:, None, None] * n.astype(np.float32)[None, :, :]
        out[b] = np.where(allowed[None], value + np.float32(0.0), np.float32(mask))
    return out


class CliCase(cli.CliCase):
    TMP_PREFIX = "alibi-batch-"

    def same(self, got, want, msg=""):
        self.assertEqual(got.shape, want.shape, msg)
        self.assertTrue(np.array_equal(got.view(np.uint32), want.view(np.uint32)),
                        f"{msg}: first difference at {np.argwhere(got.view(np.uint32) != want.view(np.uint32))[:3]}")


class BatchTests(CliCase):
    POW2 = np.array([2.0 ** -(h + 1) for h in range(8)], np.float32)

    def test_padded_left_and_right_every_position_rule(self):
        for padding in ("left", "right"):
            for positions in ("mask", "naive"):
                for mode in ("causal", "bloom"):
                    got = self.bias("--heads", 8, "--seq", 7, "--lengths", "7,4,1", "--padding", padding,
                                    "--positions", positions, "--mode", mode)
                    want = expected_batch(self.POW2, 7, [7, 4, 1], padding, positions=positions, mode=mode)
                    self.same(got, want, f"{padding} {positions} {mode}")

    def test_left_padding_positions_differ_only_with_naive(self):
        masked = self.bias("--heads", 8, "--seq", 6, "--lengths", "6,3", "--padding", "left", "--mode", "bloom")
        naive = self.bias("--heads", 8, "--seq", 6, "--lengths", "6,3", "--padding", "left", "--mode", "bloom",
                          "--positions", "naive")
        self.same(masked[0], naive[0], "a full row is the same either way")
        self.assertFalse(np.array_equal(masked[1], naive[1]))
        self.assertEqual(masked[1, 0, 5, 3], 0.0)  # the first real token sits at position 0

    def test_packed_documents_window_prefix(self):
        cases = [dict(documents=(3, 5)), dict(window=3), dict(prefix=4), dict(documents=(2, 2, 4), window=2),
                 dict(documents=(3, 5), positions="document")]
        for case in cases:
            args = ["--heads", 8, "--seq", 8, "--mode", "causal"]
            if "documents" in case:
                args += ["--documents", ",".join(map(str, case["documents"]))]
            if "window" in case:
                args += ["--window", case["window"]]
            if "prefix" in case:
                args += ["--prefix", case["prefix"]]
            if "positions" in case:
                args += ["--positions", case["positions"]]
            got = self.bias(*args)
            want = expected_batch(self.POW2, 8, **case)
            self.same(got, want, str(case))

    def test_profiles_in_batches(self):
        slopes = arith.llm_foundry_slopes(12)
        got = self.bias("--heads", 12, "--seq", 9, "--lengths", "9,6", "--padding", "left", "--arith", "llm-foundry",
                        "--mode", "causal")
        self.same(got, expected_batch(slopes, 9, [9, 6], "left"), "llm-foundry batch")
        slopes = arith.hf_slopes(12)
        got = self.bias("--heads", 12, "--seq", 9, "--lengths", "9,6", "--padding", "left", "--arith", "hf-bloom",
                        "--mode", "bloom", "--mask", "-inf")
        self.same(got, expected_batch(slopes, 9, [9, 6], "left", mode="bloom", mask=-np.inf), "BLOOM batch")

    def test_bhqk_layout_and_metadata(self):
        out = os.path.join(self.tmp, "b.safetensors")
        self.ok("bias", "--heads", 2, "--seq", 4, "--layout", "bhqk", "-o", out)
        with open(out, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(n))
        self.assertEqual(header["bias"]["shape"], [1, 2, 4, 4])
        self.assertEqual(header["__metadata__"]["layout"], "bhqk")

    def test_session_batch_section(self):
        path = os.path.join(self.tmp, "s.alibi.json")
        with open(path, "w") as f:
            json.dump({"version": 1, "bias": {"heads": 8, "queries": 6, "arith": "ggml"},
                       "batch": {"lengths": [6, 2], "padding": "left", "positions": "naive"}}, f)
        got = self.bias("--config", path)
        self.same(got, expected_batch(self.POW2, 6, [6, 2], "left", positions="naive"), "session batch")
        with open(path, "w") as f:
            json.dump({"version": 1, "batch": {"lengths": [99]}}, f)
        r = cli.run("bias", "--config", path, "-o", os.path.join(self.tmp, "x.npy"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("batch", r.stderr.decode())

    def test_bad_batches(self):
        self.usage_error("bias", "--seq", 4, "--lengths", "5", "-o", "x.npy", mentions=["--lengths"])
        self.usage_error("bias", "--seq", 4, "--lengths", "2,x", "-o", "x.npy", mentions=["--lengths"])
        self.usage_error("bias", "--seq", 4, "--documents", "3,3", "-o", "x.npy", mentions=["--documents"])
        self.usage_error("bias", "--seq", 4, "--keys", 8, "--lengths", "2", "-o", "x.npy", mentions=["--keys"])
        self.usage_error("bias", "--seq", 4, "--padding", "middle", "--lengths", "2", "-o", "x.npy",
                         mentions=["--padding"])
        self.usage_error("bias", "--seq", 4, "--positions", "document", "-o", os.path.join(self.tmp, "x.npy"), mentions=["--documents"])


class BatchDiagnoseTests(CliCase):
    def diagnose(self, *args):
        out = os.path.join(self.tmp, "b.npy")
        self.ok("bias", *args, "-o", out)
        return json.loads(self.ok("diagnose", out, "--format", "json").stdout)

    def test_left_padding_position_bug(self):
        doc = self.diagnose("--preset", "bloom-560m", "--seq", 8, "--lengths", "8,5,3", "--padding", "left",
                            "--mask", "min", "--positions", "naive")
        self.assertEqual(doc["batch"]["lengths"], [8, 5, 3])
        self.assertEqual(doc["batch"]["padding"], "left")
        self.assertEqual(doc["batch"]["positions"], "naive")
        self.assertIn("left-padding-positions", doc["findings"])
        self.assertEqual(doc["arith"], "hf-bloom")
        doc = self.diagnose("--preset", "bloom-560m", "--seq", 8, "--lengths", "8,5,3", "--padding", "left",
                            "--mask", "min")
        self.assertEqual(doc["batch"]["positions"], "mask")
        self.assertNotIn("left-padding-positions", doc["findings"])

    def test_window_and_documents(self):
        doc = self.diagnose("--heads", 4, "--seq", 12, "--lengths", "12,9", "--documents", "5,7", "--window", 3,
                            "--arith", "llm-foundry")
        self.assertEqual(doc["batch"]["documents"], [5, 7])
        self.assertEqual(doc["batch"]["window"], 3)
        self.assertIn("sliding-window", doc["findings"])
        self.assertIn("packed-documents", doc["findings"])
        self.assertIsNotNone(doc["match"])

    def test_prefix_lm(self):
        doc = self.diagnose("--heads", 4, "--seq", 10, "--lengths", "10,7", "--prefix", 4)
        self.assertEqual(doc["batch"]["prefix"], 4)
        self.assertIn("prefix-lm", doc["findings"])
        self.assertIsNotNone(doc["match"])
        # One sequence with a prefix is (1, H, T, T): still read as a batch, since a plain bias has no prefix.
        doc = self.diagnose("--heads", 4, "--seq", 10, "--prefix", 6, "--mask", "-inf")
        self.assertEqual(doc["shape"], [1, 4, 10, 10])
        self.assertEqual(doc["batch"]["prefix"], 6)
        self.assertIsNotNone(doc["match"])
        # Without a prefix the field is 0 and the finding absent.
        doc = self.diagnose("--heads", 4, "--seq", 10, "--lengths", "10,7")
        self.assertEqual(doc["batch"]["prefix"], 0)
        self.assertNotIn("prefix-lm", doc["findings"])


class PresetTests(CliCase):
    def test_preset_on_every_command(self):
        doc = json.loads(self.ok("slopes", "--preset", "bloom-176b", "--dtype", "f64", "--format", "json").stdout)
        self.assertEqual(doc["shape"], [112])
        self.assertEqual(doc["params"]["arith"], "hf-bloom")
        self.assertEqual(doc["data"], list(arith.hf_slopes(112).astype(np.float64)))
        for cmd in (["bias", "-o", os.path.join(self.tmp, "b.npy")], ["attention", "-o", os.path.join(self.tmp, "a.npy")],
                    ["stats", "--format", "json"], ["render", "--what", "slopes", "-o", os.path.join(self.tmp, "s.svg")]):
            self.ok(cmd[0], "--preset", "mpt-7b-storywriter", "--seq", 8, *cmd[1:])
        got = self.bias("--preset", "mpt-7b-storywriter", "--seq", 4)
        self.assertEqual(got.shape, (32, 4, 4))
        self.usage_error("slopes", "--preset", "gpt-2", mentions=["bloom-176b"])

    def test_from_config(self):
        path = os.path.join(self.tmp, "config.json")
        with open(path, "w") as f:
            json.dump({"model_type": "bloom", "n_head": 16, "seq_length": 2048}, f)
        doc = json.loads(self.ok("slopes", "--from-config", path, "--dtype", "f64", "--format", "json").stdout)
        self.assertEqual(doc["shape"], [16])
        self.assertEqual(doc["params"]["arith"], "hf-bloom")
        with open(path, "w") as f:
            json.dump({"model_type": "mpt", "max_seq_len": 2048, "attn_config": {"alibi": True}}, f)
        self.usage_error("slopes", "--from-config", path, mentions=["n_heads"])


class GapTests(CliCase):
    def test_q_greater_than_k_warns(self):
        r = self.ok("bias", "--seq", 8, "--keys", 4, "-o", os.path.join(self.tmp, "b.npy"))
        self.assertIn("warning", r.stderr.decode())
        r = self.ok("bias", "--seq", 4, "--keys", 8, "-o", os.path.join(self.tmp, "b.npy"))
        self.assertNotIn("warning", r.stderr.decode())

    def test_diagnose_slope_vector_and_mask_null(self):
        out = os.path.join(self.tmp, "s.npy")
        self.ok("slopes", "--heads", 12, "--arith", "hf-bloom", "-o", out)
        doc = json.loads(self.ok("diagnose", out, "--format", "json").stdout)
        self.assertTrue(doc["slope_vector"])
        self.assertEqual(doc["match"]["scheme"], "press")
        self.assertIsNone(doc["match"]["mask"])
        self.assertEqual(doc["arith"], "hf-bloom")
        out = os.path.join(self.tmp, "b.npy")
        self.ok("bias", "--heads", 4, "--seq", 6, "--mode", "symmetric", "-o", out)
        doc = json.loads(self.ok("diagnose", out, "--format", "json").stdout)
        self.assertIsNone(doc["match"]["mask"])  # nothing is masked in a symmetric bias

    def test_diagnose_names_the_profile(self):
        out = os.path.join(self.tmp, "b.npy")
        self.ok("bias", "--heads", 40, "--seq", 16, "--mode", "mpt", "--arith", "llm-foundry", "-o", out)
        doc = json.loads(self.ok("diagnose", out, "--format", "json").stdout)
        self.assertEqual(doc["arith"], "llm-foundry")
        self.assertTrue(doc["arith_distances"]["llm-foundry"]["identical"])
        self.assertIn("llm-foundry's build_alibi_bias", doc["summary"])


if __name__ == "__main__":
    cli.main()
