"""What the CLI test files share: the `alibi` binary under test (--alibi PATH), running it, a
test case with a scratch directory and the checks on exit status and stderr every file makes,
and the bytes of the input files the tests write (.npy, .safetensors) or read (PNG size).

Expected values never come from here: they come from alibi_reference.py (REFERENCES.md in NumPy)
or from each test's own emulation. Import the module (`import cli_harness as cli`) and read
`cli.ALIBI` when it is needed, since main() sets it after the import.
"""

import io
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

ALIBI = None  # the binary under test, set by main() from --alibi


def run(*args, stdin=None, timeout=300, user=None, **kw):
    """`alibi ARGS` with stdout and stderr captured; as `user` (a uid) when given."""
    cmd = [ALIBI, *map(str, args)]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, **kw)


class CliCase(unittest.TestCase):
    """A scratch directory per test, and the usual checks of one `alibi` run."""

    TMP_PREFIX = "alibi-cli-"

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix=self.TMP_PREFIX)
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def ok(self, *args, **kw):
        """Exit status 0, or the failure with alibi's stderr."""
        r = run(*args, **kw)
        self.assertEqual(r.returncode, 0, f"alibi {' '.join(map(str, args))} failed:\n{r.stderr.decode()}")
        return r

    def usage_error(self, *args, mentions=()):
        """Exit status 2 with a message on stderr naming every string in `mentions`."""
        r = run(*args)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, f"alibi {' '.join(map(str, args))}: expected exit 2, got "
                                          f"{r.returncode}\nstderr: {err}")
        for word in mentions:
            self.assertIn(word, err, f"alibi {' '.join(map(str, args))}: message should mention {word!r}")
        self.assertNotIn("Traceback", err)
        return err

    def bias(self, *args):
        """`alibi bias ARGS` written to a scratch .npy, read back."""
        out = self.path("b.npy")
        self.ok("bias", *args, "-o", out)
        return np.load(out)


def wait_until_catching_sigint(proc, timeout=300):
    """Waits until `proc` has installed its SIGINT handler (the SigCgt mask of /proc/PID/status),
    so that a SIGINT sent next is the program's to handle; a slow start (a sanitizer build, a
    busy machine) would otherwise let the default action kill it first. Returns False if the
    process ended or the (hang-guard) timeout passed."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return False
        if caught & (1 << (signal.SIGINT - 1)):
            return True
        time.sleep(0.002)
    return False


def npy_bytes(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def safetensors_bytes(tensors, header_delta=0, trailing=b"", pad=True, metadata=None):
    """A .safetensors file from [(name, array, begin_or_None)], written as the reference does,
    with a __metadata__ of strings when given; header_delta, trailing and pad=False make the
    hostile variants."""
    header, data, offset = {}, b"", 0
    if metadata:
        header["__metadata__"] = dict(metadata)
    for name, array, begin in tensors:
        raw = np.ascontiguousarray(array).tobytes()
        begin = offset if begin is None else begin
        data = data.ljust(begin, b"\0") + raw if begin >= len(data) else data
        header[name] = {"dtype": {"float32": "F32", "float16": "F16", "float64": "F64"}[str(array.dtype)],
                        "shape": list(array.shape), "data_offsets": [begin, begin + len(raw)]}
        offset = begin + len(raw)
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text) + header_delta) + text + data + trailing


def png_size(path):
    """(width, height) from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        blob = f.read(33)
    assert blob[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    length, kind = struct.unpack(">I4s", blob[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", blob[16:24])


def main():
    """`python3 test_x.py --alibi PATH [unittest args]`: sets ALIBI and runs the tests."""
    global ALIBI
    argv = sys.argv[:]
    if "--alibi" not in argv or argv.index("--alibi") + 1 >= len(argv):
        sys.exit(f"usage: {os.path.basename(argv[0])} --alibi PATH [unittest args]")
    i = argv.index("--alibi")
    ALIBI = os.path.abspath(argv[i + 1])
    del argv[i:i + 2]
    unittest.main(module="__main__", argv=argv, verbosity=2)
