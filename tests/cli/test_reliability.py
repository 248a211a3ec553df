"""Reliability tests of the `alibi` command line (issue 16): one test per defect found by attacking
the CLI as a hostile user would, each reproducing the defect as it was reported and asserting the
new behaviour.

Usage: test_reliability.py --alibi PATH/TO/alibi [unittest arguments, e.g. a TestCase class name]
"""

import json
import os
import signal
import struct
import subprocess
import sys
import time
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness as cli  # noqa: E402

NOBODY = 65534


class ReliabilityCase(cli.CliCase):
    TMP_PREFIX = "alibi-rel-"

    def setUp(self):
        super().setUp()
        os.chmod(self.tmp, 0o755)  # so `nobody` can reach files inside

    def write(self, name, content, mode="wb"):
        with open(self.path(name), mode) as f:
            f.write(content)
        return self.path(name)

    def refused(self, r, status=2, mentions=()):
        err = r.stderr.decode("utf-8", "strict")  # never raw non-UTF-8 bytes
        self.assertEqual(r.returncode, status, f"expected exit {status}, got {r.returncode}: {err[:2000]}")
        self.assertTrue(err.startswith("alibi: "), err[:2000])
        for word in mentions:
            self.assertIn(word, err)
        return err


# 1. A session nested 100,000 levels deep crashed (stack overflow in the JSON serializer).
class DeepNestingTests(ReliabilityCase):
    def test_deep_session_values_are_refused_not_crashed_on(self):
        for depth in (100_000, 50_000, 65):
            with self.subTest(depth=depth):
                cfg = self.write("d.alibi.json", '{"version":1,"bias":{"heads":' + "[" * depth + "]" * depth + "}}",
                                 "w")
                err = self.refused(cli.run("bias", "--config", cfg, "-o", self.path("o.npy")), mentions=["nested"])
                self.assertLess(len(err), 1000)
                self.assertFalse(os.path.exists(self.path("o.npy")))

    def test_deep_top_level_list_is_refused(self):
        cfg = self.write("d.alibi.json", "[" * 100_000 + "]" * 100_000, "w")
        self.refused(cli.run("bias", "--config", cfg, "-o", self.path("o.npy")), mentions=["nested"])

    def test_moderate_nesting_is_reported_as_a_wrong_type(self):
        cfg = self.write("d.alibi.json", '{"version":1,"bias":{"heads":' + "[" * 30 + "]" * 30 + "}}", "w")
        err = self.refused(cli.run("bias", "--config", cfg, "-o", self.path("o.npy")), mentions=["bias.heads"])
        self.assertLess(len(err), 1000)


# 2. `alibi diagnose FIFO` blocked forever; the first Ctrl-C was swallowed.
class NonRegularInputTests(ReliabilityCase):
    def test_fifo_input_is_refused_before_opening(self):
        fifo = self.path("f")
        os.mkfifo(fifo)
        err = self.refused(cli.run("diagnose", fifo, timeout=20), mentions=["FIFO", fifo])
        self.assertEqual(err.count(fifo), 1, "the path is printed once")

    def test_fifo_session_is_refused_before_opening(self):
        fifo = self.path("s.alibi.json")
        os.mkfifo(fifo)
        self.refused(cli.run("bias", "--config", fifo, "-o", self.path("o.npy"), timeout=20), mentions=["--config"])

    def test_device_input_is_refused(self):
        self.refused(cli.run("diagnose", "/dev/zero", timeout=20), mentions=["character device"])

    def test_first_sigint_ends_a_wait_for_a_fifo_reader(self):
        fifo = self.path("out")
        os.mkfifo(fifo)
        p = subprocess.Popen([cli.ALIBI, "bias", "--heads", "2", "--seq", "8", "--format", "npy", "-o", fifo],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertTrue(cli.wait_until_catching_sigint(p), "the CLI ended before it could be interrupted")
        time.sleep(0.2)  # now it waits for a reader
        self.assertIsNone(p.poll(), "still waiting for a reader")
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("one SIGINT did not end the wait for a FIFO reader")
        self.assertEqual(p.returncode, 130, err.decode())
        self.assertIn("cancelled", err.decode())


# 3. An output equal to an input replaced it.
class OutputIsInputTests(ReliabilityCase):
    def test_diagnose_refuses_to_overwrite_its_tensor(self):
        src = self.write("in.npy", cli.npy_bytes(np.zeros((2, 4, 4), np.float32)))
        before = open(src, "rb").read()
        os.symlink(src, self.path("link.npy"))
        os.link(src, self.path("hard.npy"))
        for out in (src, self.path("link.npy"), self.path("hard.npy"), os.path.join(self.tmp, ".", "in.npy")):
            with self.subTest(out=out):
                self.refused(cli.run("diagnose", src, "--format", "json", "-o", out), mentions=["input"])
                self.assertEqual(open(src, "rb").read(), before)

    def test_bias_refuses_to_overwrite_its_session(self):
        cfg = self.write("s.alibi.json", json.dumps({"version": 1, "bias": {"heads": 2, "queries": 4}}), "w")
        before = open(cfg).read()
        self.refused(cli.run("bias", "--config", cfg, "--format", "json", "-o", cfg), mentions=["input"])
        self.assertEqual(open(cfg).read(), before)


# 4. SIGKILL during a large export left a 1.3-1.6 GB temporary file behind.
class KilledExportTests(ReliabilityCase):
    def test_sigkill_leaves_nothing_new_in_the_folder(self):
        out_dir = self.path("out")
        os.mkdir(out_dir)
        self.write("out/keep.txt", b"x")
        before = sorted(os.listdir(out_dir))
        p = subprocess.Popen([cli.ALIBI, "bias", "--heads", "16", "--seq", "8192", "-o", os.path.join(out_dir, "big.npy")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Wait until the export has really written data (the process's disk writes grow).
        deadline = time.time() + 30
        written = 0
        while time.time() < deadline and p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/io") as f:
                    written = int(next(l for l in f if l.startswith("wchar:")).split()[1])
            except (OSError, StopIteration):
                pass
            if written > 64 << 20:
                break
            time.sleep(0.05)
        self.assertIsNone(p.poll(), "the export finished before it could be killed; make it larger")
        self.assertGreater(written, 64 << 20)
        p.kill()
        p.wait()
        self.assertEqual(sorted(os.listdir(out_dir)), before)


# 5. Damaged safetensors were read as data.
class SafetensorsStrictTests(ReliabilityCase):
    def setUp(self):
        super().setUp()
        self.a = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3) - 9
        self.b = np.ones((1, 3, 3), np.float16)

    def diagnose(self, content, *extra):
        return cli.run("diagnose", self.write("t.safetensors", content), *extra)

    def test_a_valid_file_is_read(self):
        r = self.diagnose(cli.safetensors_bytes([("bias", self.a, None)]))
        self.assertEqual(r.returncode, 0, r.stderr.decode())

    def test_header_length_lowered_by_one_is_refused(self):
        self.refused(self.diagnose(cli.safetensors_bytes([("bias", self.a, None)], header_delta=-1)),
                     mentions=["follow the last tensor"])

    def test_trailing_bytes_are_refused(self):
        self.refused(self.diagnose(cli.safetensors_bytes([("bias", self.a, None)], trailing=b"\0")),
                     mentions=["1 bytes follow"])

    def test_a_gap_between_tensors_is_refused(self):
        content = cli.safetensors_bytes([("bias", self.a, None), ("other", self.b, self.a.nbytes + 8)])
        self.refused(self.diagnose(content), mentions=["8 unexplained bytes", "'other'"])

    def test_overlapping_tensors_are_refused(self):
        content = cli.safetensors_bytes([("bias", self.a, None), ("other", self.b, 4)], trailing=b"")
        # Make the data area exactly cover both claims so only the overlap is wrong.
        self.refused(self.diagnose(content), mentions=["overlap"])

    def test_unknown_dtype_is_refused(self):
        text = json.dumps({"bias": {"dtype": "F33", "shape": [1], "data_offsets": [0, 4]}}).encode()
        self.refused(self.diagnose(struct.pack("<Q", len(text)) + text + b"\0" * 4), mentions=["F33"])

    def test_tensor_flag_chooses_among_several(self):
        content = cli.safetensors_bytes([("first", self.a, None), ("second", self.b.astype(np.float32), None)])
        err = self.refused(self.diagnose(content), mentions=["--tensor"])
        self.assertIn("'first'", err)
        r = self.diagnose(content, "--tensor", "second", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(json.loads(r.stdout)["shape"], [1, 3, 3])
        self.refused(self.diagnose(content, "--tensor", "third"), mentions=["'third'", "'first'", "'second'"])


# 6. Writes the user could not make with a shell redirect.
@unittest.skipUnless(os.geteuid() == 0, "needs root to act as two users")
class ReplacementTests(ReliabilityCase):
    def bias(self, out, user=None):
        return cli.run("bias", "--heads", "2", "--seq", "4", "-o", out, user=user)

    def test_read_only_file_is_not_replaced_by_an_unprivileged_user(self):
        out = self.write("ro.npy", b"old")
        os.chown(self.tmp, NOBODY, NOBODY)
        os.chown(out, NOBODY, NOBODY)
        os.chmod(out, 0o444)
        self.refused(self.bias(out, user=NOBODY), status=1, mentions=["read-only", out])
        self.assertEqual(open(out, "rb").read(), b"old")
        # The shell agrees.
        sh = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sh", "-c",
                             f"echo x > '{out}'"], capture_output=True)
        self.assertNotEqual(sh.returncode, 0)

    def test_symlink_planted_in_a_sticky_folder_is_not_followed(self):
        shared = self.path("shared")
        os.mkdir(shared)
        os.chmod(shared, 0o1777)
        secret = self.write("secret", b"root only")
        os.chmod(secret, 0o600)
        link = os.path.join(shared, "out.npy")
        os.symlink(secret, link)
        os.lchown(link, NOBODY, NOBODY)
        self.refused(self.bias(link), status=1, mentions=["protected_symlinks"])
        self.assertEqual(open(secret, "rb").read(), b"root only")
        self.assertTrue(os.path.islink(link))

    def test_own_symlink_in_a_sticky_folder_is_followed(self):
        shared = self.path("shared")
        os.mkdir(shared)
        os.chmod(shared, 0o1777)
        target = self.write("target.npy", b"old")
        link = os.path.join(shared, "out.npy")
        os.symlink(target, link)
        r = self.bias(link)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(np.load(target).shape, (2, 4, 4))

    def test_dangling_symlink_creates_its_target_and_stays_a_link(self):
        link = self.path("link.npy")
        target = self.path("created.npy")
        os.symlink("created.npy", link)
        r = self.bias(link)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertTrue(os.path.islink(link))
        self.assertEqual(np.load(target).shape, (2, 4, 4))

    def test_replacing_keeps_owner_group_and_mode(self):
        out = self.write("theirs.npy", b"old")
        os.chown(out, NOBODY, NOBODY)
        os.chmod(out, 0o640)
        r = self.bias(out)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        st = os.stat(out)
        self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o7777), (NOBODY, NOBODY, 0o640))
        r = cli.run("diagnose", out, user=NOBODY)
        self.assertEqual(r.returncode, 0, "its owner can still read it: " + r.stderr.decode())


# 7. Numbers that are not probabilities; limits that differ between the CLI and sessions.
class ParameterLimitTests(ReliabilityCase):
    def test_tiny_temperature_is_refused_everywhere(self):
        for t in ("1e-320", "5e-324", "0", "1e300"):
            with self.subTest(temperature=t):
                self.refused(cli.run("attention", "--heads", "2", "--seq", "8", "--content", "qk", "--temperature", t,
                                 "-o", self.path("t.npy")), mentions=["--temperature", "1e-06"])
                cfg = self.write("s.alibi.json", '{"version":1,"attention":{"temperature":%s}}' % t, "w")
                self.refused(cli.run("attention", "--config", cfg, "-o", self.path("t.npy")),
                             mentions=["attention.temperature"])
        self.assertFalse(os.path.exists(self.path("t.npy")))

    def test_extreme_values_within_the_limits_give_probabilities(self):
        out = self.path("t.npy")
        r = cli.run("attention", "--heads", "2", "--seq", "8", "--content", "qk", "--sigma", "1e6", "--temperature", "1e-6",
                "--mode", "symmetric", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        p = np.load(out)
        self.assertTrue(np.all(np.isfinite(p)))
        np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-5)

    def test_sigma_and_slopes_share_the_session_limits(self):
        self.refused(cli.run("attention", "--heads", "2", "--seq", "8", "--content", "qk", "--sigma", "1e300",
                         "-o", self.path("t.npy")), mentions=["--sigma"])
        self.refused(cli.run("bias", "--slopes", "1e300,1", "--seq", "8", "-o", self.path("t.npy")), mentions=["--slopes"])


# 8. Messages that echoed the whole bad value, advice that did not apply, inconsistent statuses.
class MessageTests(ReliabilityCase):
    def test_huge_string_is_quoted_as_a_short_excerpt(self):
        cfg = self.write("s.alibi.json", '{"version":1,"bias":{"scheme":"' + "x" * (15 << 20) + '"}}', "w")
        err = self.refused(cli.run("bias", "--config", cfg, "-o", self.path("o.npy")), mentions=["bias.scheme"])
        self.assertLess(len(err), 1000)
        self.assertEqual(err.count(cfg), 1, "the path is printed once")

    def test_non_utf8_bytes_never_reach_the_terminal(self):
        cfg = self.write("s.alibi.json", b'{"version":1,"bias":{"scheme":"\xff\xfe\x1b[31m"}}')
        self.refused(cli.run("bias", "--config", cfg, "-o", self.path("o.npy")))  # decodes as strict UTF-8
        bad = self.write("b.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 70) +
                         b"{'descr': '\xff\x1b[2J', 'fortran_order': False, 'shape': (2,), }".ljust(69) + b"\n")
        err = self.refused(cli.run("diagnose", bad))
        self.assertNotIn("\x1b", err)

    def test_a_shape_of_many_dimensions_is_refused_briefly(self):
        dims = "(" + "1, " * 100_001 + ")"
        header = ("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims).encode()
        header = header.ljust(len(header) + (-(len(header) + 11) % 64)) + b"\n"
        bad = self.write("b.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header + b"\0" * 4)
        err = self.refused(cli.run("diagnose", bad), mentions=["dimensions"])
        self.assertLess(len(err), 1000)

    def test_escaped_descr_is_refused_as_numpy_would(self):
        header = b"{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,), }"
        header = header.ljust(len(header) + (-(len(header) + 11) % 64)) + b"\n"
        bad = self.write("e.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 4)
        self.refused(cli.run("diagnose", bad), mentions=["backslash"])

    def test_over_budget_diagnose_suggests_max_memory_not_streaming(self):
        src = self.write("big.npy", cli.npy_bytes(np.zeros((2, 64, 64), np.float32)))
        err = self.refused(cli.run("diagnose", src, "--max-memory", "1K"), mentions=["--max-memory"])
        self.assertNotIn("alibi bias", err)

    def test_long_names_and_paths_are_usage_errors(self):
        self.refused(cli.run("bias", "--heads", "2", "--seq", "4", "-o", self.path("n" * 300 + ".npy")),
                     mentions=["255"])
        self.refused(cli.run("bias", "--heads", "2", "--seq", "4", "-o", "/tmp/" + "d/" * 3000 + "x.npy"),
                     mentions=["path"])


# Issue 25, the command line's side. A file truncated while `alibi fit` reads it (np.save over it)
# was "Bus error" (exit 135): it is now exit 1, "the file changed on disk; reopen it".
class ChangedFileTests(ReliabilityCase):
    def test_truncated_while_fitting_is_exit_1_with_the_message(self):
        t = 512
        row = np.tril(np.ones((t, t), np.float32)) / np.arange(1, t + 1, dtype=np.float32)[:, None]
        path = self.path("t.npy")
        np.save(path, np.broadcast_to(row, (4, 16, t, t)))
        p = subprocess.Popen([cli.ALIBI, "fit", path, "--similarity", "map"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        # Truncate once the file is open and being read (the process has read some MiB of it).
        deadline = time.time() + 60
        opened = False
        while time.time() < deadline and p.poll() is None and not opened:
            try:
                links = [os.readlink(f"/proc/{p.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{p.pid}/fd")]
                with open(f"/proc/{p.pid}/io") as f:
                    read = int(next(line for line in f if line.startswith("rchar:")).split()[1])
                opened = path in links and read > (4 << 20)
            except (OSError, StopIteration):
                pass
            if not opened:
                time.sleep(0.002)
        self.assertTrue(opened, "the fit ended before the file could be truncated; make it larger")
        os.truncate(path, 4096)
        out, err = p.communicate(timeout=300)
        err = err.decode()
        self.assertEqual(p.returncode, 1, err[-2000:])
        self.assertIn("changed on disk", err)
        self.assertIn("reopen it", err)

    def test_truncated_before_open_is_a_clean_refusal(self):
        path = self.path("t.npy")
        np.save(path, np.ones((2, 4, 4), np.float32) / 4)
        os.truncate(path, 100)
        self.refused(cli.run("fit", path), status=2, mentions=[path])


def hostile_safetensors(tensors, keys, value_bytes):
    """`tensors` F32 (1, 2, 2) tensors "layers.N" of causal rows after `keys` metadata entries."""
    meta = ",".join(f'"{k}":"{"m" * value_bytes}"' for k in range(keys))
    entries = "".join(f',"layers.{n}":{{"dtype":"F32","shape":[1,2,2],"data_offsets":[{16 * n},{16 * n + 16}]}}'
                      for n in range(tensors))
    text = ('{"__metadata__":{' + meta + "}" + entries + "}").encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + np.tile(np.array([1, 0, 0.5, 0.5], np.float32), tensors).tobytes()


# A sanitizer build (tests/cli/CMakeLists.txt sets this): AddressSanitizer reserves terabytes of
# shadow address space at start-up, so under an address-space limit it dies before main.
SANITIZED = os.environ.get("ALIBI_SANITIZED") == "1"
NEEDS_PLAIN_BUILD = unittest.skipIf(SANITIZED, "an address-space limit stops AddressSanitizer before main")


def limit_address_space(megabytes):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return limit


# A few-MB safetensors file made `alibi fit` pass 6 GB and ignore Ctrl-C, and under ulimit -v say
# "out of memory; lower --max-memory"; the smaller defects of the issue with it.
class HostileHeaderTests(ReliabilityCase):
    @NEEDS_PLAIN_BUILD
    def test_many_tensors_and_big_metadata_fit_in_bounded_memory(self):
        path = self.write("h.safetensors", hostile_safetensors(2000, 1, 8 << 20))
        r = subprocess.run([cli.ALIBI, "fit", path, "--format", "json"], capture_output=True, timeout=300,
                           preexec_fn=limit_address_space(1024))
        self.assertEqual(r.returncode, 0, r.stderr.decode()[-2000:])
        self.assertEqual(len(json.loads(r.stdout)["heads"]), 2000)

    def test_one_ctrl_c_stops_the_read_of_a_large_header(self):
        # `alibi fit` on such a file ignored Ctrl-C. A legal file with an 84 MB header (two
        # million metadata entries): once the process has the file open it is reading its header,
        # and one SIGINT ends it with 130, "cancelled".
        path = self.write("big.safetensors", hostile_safetensors(4, 2_000_000, 30))
        p = subprocess.Popen([cli.ALIBI, "fit", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def has_it_open():
            try:
                return any(os.readlink(f"/proc/{p.pid}/fd/{fd}") == path for fd in os.listdir(f"/proc/{p.pid}/fd"))
            except OSError:
                return False

        deadline = time.monotonic() + 300  # a hang guard only
        while p.poll() is None and not has_it_open() and time.monotonic() < deadline:
            time.sleep(0.002)
        self.assertIsNone(p.poll(), "the fit ended before it was interrupted")
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("one SIGINT did not stop the header read")
        self.assertEqual(p.returncode, 130, err.decode()[-2000:])
        self.assertIn("cancelled", err.decode())

    def test_metadata_over_its_budget_names_the_metadata_not_max_memory(self):
        path = self.write("k.safetensors", hostile_safetensors(4000, 300_000, 1))
        err = self.refused(cli.run("diagnose", path, "--tensor", "layers.0"), mentions=["__metadata__"])
        self.assertNotIn("--max-memory", err)

    def test_4097_layers_are_refused_for_their_layers(self):
        path = self.write("l.safetensors", hostile_safetensors(4097, 0, 0))
        err = self.refused(cli.run("fit", path), mentions=["4097 layer tensors"])
        self.assertNotIn("shape (1, 2, 2) is beyond", err)

    def test_tensor_name_on_an_npy_is_refused(self):
        path = self.path("a.npy")
        np.save(path, np.ones((2, 4, 4), np.float32) / 4)
        self.refused(cli.run("fit", path, "--tensor", "x"), mentions=["'x'", ".npy"])

    def test_huge_layer_number_is_quoted_as_given(self):
        path = self.path("a.npy")
        np.save(path, np.ones((2, 2, 4, 4), np.float32) / 4)
        err = self.refused(cli.run("fit", path, "--layer", "99999999999"), mentions=["no layer 99999999999"])
        self.assertNotIn("layer -1", err)

    @NEEDS_PLAIN_BUILD
    def test_low_address_space_is_a_clear_message_or_a_result(self):
        # ulimit -v 30 MB said "internal error: Resource temporarily unavailable" (a thread that
        # could not start): now the work runs on fewer threads, or the message says what to do.
        # Since the tokenizer (issue 29) links ICU, whose data library alone maps 30 MB, the
        # loader needs about 45 MB before main() runs: the smallest limit is just above that,
        # still too small for the worker threads' stacks.
        for megabytes in (56, 64, 300):
            with self.subTest(megabytes=megabytes):
                r = subprocess.run([cli.ALIBI, "bias", "--heads", "8", "--seq", "256", "-o", self.path("b.npy")],
                                   capture_output=True, timeout=120, preexec_fn=limit_address_space(megabytes))
                err = r.stderr.decode()
                self.assertNotIn("internal error", err)
                self.assertIn(r.returncode, (0, 1, 2), err)
                if r.returncode != 0:
                    self.assertTrue(err.startswith("alibi: "), err)


if __name__ == "__main__":
    cli.main()
