"""Shared fixtures of the alibi_explorer tests: the built `alibi` CLI (ALIBI_CLI) and a runner.

ctest sets PYTHONPATH to the build tree's package, ALIBI_CLI to the built CLI and
ALIBI_SOURCE_DIR to the repository; run by hand the same way:
    PYTHONPATH=build/python ALIBI_CLI=build/app/cli/alibi ALIBI_SOURCE_DIR=. python3 -m pytest python/tests
"""
import os
import pathlib
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("ALIBI_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("set ALIBI_CLI to the built `alibi` program (ctest does)")

    def run(*args):
        result = subprocess.run([path, *map(str, args)], capture_output=True, timeout=300)
        assert result.returncode == 0, result.stderr.decode()
        return result.stdout.decode()

    return run


@pytest.fixture(scope="session")
def source_dir():
    return pathlib.Path(os.environ.get("ALIBI_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
