"""The command-line conventions of issue 28: `alibi help [COMMAND]`, an unknown command or flag
named with the closest one, --quiet, binary formats to a pipe (never a terminal), typed JSON
params, `render --what` naming every view, --help wrapped to the terminal, the man page and the
completion scripts generated from the option table.

Expected values come from the formulas (press slopes for H = 2: 1/16, 1/256) or from the
issue's wording, never from the program.
"""

import io
import json
import os
import pty
import re
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness as cli  # noqa: E402

VIEWS = ["bias", "attention", "slopes", "distance", "attention-distance", "schemes", "slope-schemes", "stages",
         "extrapolation", "compare", "overview", "similarity", "fit", "row"]
COMMANDS = ["slopes", "bias", "attention", "stats", "render", "diagnose", "fit"]


class ConventionTests(cli.CliCase):
    def test_help_command(self):
        top = self.ok("help").stdout.decode()
        for command in COMMANDS:
            self.assertIn(command, top)
        text = self.ok("help", "bias").stdout.decode()
        self.assertIn("--heads", text)
        self.assertIn("--seq", text)
        self.usage_error("help", "bogus", mentions=["bogus", "slopes"])

    def test_unknown_command_lists_commands(self):
        r = cli.run("bogus")
        self.assertEqual(r.returncode, 2)
        err = r.stderr.decode()
        self.assertIn("unknown command 'bogus'", err)
        for command in COMMANDS:
            self.assertIn(command, err)
        self.assertIn("did you mean 'bias'?", cli.run("bais").stderr.decode())

    def test_did_you_mean(self):
        self.usage_error("bias", "--hedas", 3, "-o", self.path("b.npy"), mentions=["--hedas", "did you mean --heads?"])
        self.usage_error("render", "--wat", "bias", mentions=["did you mean --what?"])

    def test_quiet(self):
        # The warning for --seq > --keys goes to stderr unless --quiet.
        loud = self.ok("bias", "--heads", 2, "--seq", 4, "--keys", 2, "--format", "csv", "-o", "-")
        self.assertIn(b"warning", loud.stderr)
        for args in (["--quiet", "bias"], ["bias", "--quiet"], ["-q", "bias"]):
            quiet = self.ok(*args, "--heads", 2, "--seq", 4, "--keys", 2, "--format", "csv", "-o", "-")
            self.assertEqual(quiet.stderr, b"", args)
            self.assertEqual(quiet.stdout, loud.stdout)

    def test_binary_to_a_pipe(self):
        r = self.ok("bias", "--heads", 2, "--seq", 4, "--format", "npy", "-o", "-")
        got = np.load(io.BytesIO(r.stdout))
        self.assertEqual(got.shape, (2, 4, 4))
        # Press slopes for H = 2: 2^-4 and 2^-8; the causal bias of row 3, key 0 is -3 m.
        self.assertEqual(float(got[0, 3, 0]), -3 / 16)
        self.assertEqual(float(got[1, 3, 0]), -3 / 256)
        st = self.ok("slopes", "--heads", 2, "--format", "npy", "-o", "-").stdout
        np.testing.assert_array_equal(np.load(io.BytesIO(st)), np.array([1 / 16, 1 / 256], dtype=np.float32))

    def test_binary_refused_on_a_terminal(self):
        leader, follower = pty.openpty()
        try:
            r = subprocess.run([cli.ALIBI, "bias", "--heads", "2", "--seq", "4", "--format", "npy", "-o", "-"],
                               stdout=follower, stderr=subprocess.PIPE, timeout=60)
        finally:
            os.close(follower)
            os.close(leader)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"terminal", r.stderr)

    def test_json_params_are_typed(self):
        doc = json.loads(self.ok("bias", "--heads", 2, "--seq", 3, "--format", "json", "-o", "-").stdout)
        params = doc["params"]
        self.assertEqual(params["heads"], 2)
        self.assertIsInstance(params["heads"], int)
        self.assertEqual(params["scheme"], "press")
        doc = json.loads(self.ok("slopes", "--heads", 4, "--max-bias", 8, "--format", "json").stdout)
        self.assertEqual(doc["params"]["heads"], 4)
        self.assertEqual(doc["params"]["max_bias"], 8)

    def test_render_what_lists_every_view(self):
        r = cli.run("render", "--heads", 2, "--seq", 4, "--what", "nope", "-o", self.path("x.png"))
        self.assertEqual(r.returncode, 2)
        err = r.stderr.decode()
        for view in VIEWS:
            self.assertIn(view, err)

    def test_help_wraps_to_the_terminal(self):
        for columns in (60, 80, 120):
            env = dict(os.environ, COLUMNS=str(columns))
            for args in (["--help"], ["bias", "--help"], ["render", "--help"]):
                text = cli.run(*args, env=env).stdout.decode()
                widest = max(len(line) for line in text.splitlines())
                self.assertLessEqual(widest, columns, f"alibi {' '.join(args)} at {columns} columns")

    def test_no_references_outside_the_repository(self):
        self.assertNotIn("REFERENCES.md", cli.run("bias", "--help").stdout.decode())

    def test_man_page(self):
        page = self.ok("--man-page").stdout.decode()
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", '"EXIT STATUS"', "ENVIRONMENT", "FILES"):
            self.assertIn(f".SH {section}", page)
        self.assertIn("ALIBI_DATA_DIR", page)
        self.assertIn("\\-\\-heads", page)
        try:
            rendered = subprocess.run(["man", "-l", "-"], input=page.encode(), capture_output=True, timeout=60,
                                      env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
        except FileNotFoundError:
            self.skipTest("man is not installed")
        text = re.sub(".\x08", "", rendered.stdout.decode())  # man's overstrike (bold, underline)
        self.assertIn("EXIT STATUS", text)
        too_wide = [line for line in text.splitlines() if len(line) > 80]
        self.assertEqual(too_wide, [], "man page lines wider than 80 columns")

    def test_completion(self):
        bash = self.ok("completion", "bash").stdout.decode()
        self.assertIn("complete -F _alibi alibi", bash)
        self.assertIn("--heads", bash)
        self.assertIn("#compdef alibi", self.ok("completion", "zsh").stdout.decode())
        self.assertIn("complete -c alibi", self.ok("completion", "fish").stdout.decode())
        self.usage_error("completion", "tcsh", mentions=["bash", "zsh", "fish"])


if __name__ == "__main__":
    cli.main()
