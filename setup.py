"""Builds the alibi_explorer extension (_core) with CMake for pip and python3 -m build.

pyproject.toml holds the metadata; this file only adds the CMake step: configure the core and
the module alone (no GUIs, tests or benchmarks) for the running interpreter, build the
`alibi_python` target, and put its _core*.so where setuptools packs the extension.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(\s*\w+\s+VERSION\s+([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        # Beside build/ (./scripts/build), at the same depth and with the same flags, so ccache
        # shares the core's objects between the two; the extension is stripped when packed.
        build_dir = ROOT / "build-pip"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DALIBI_BUILD_QT=OFF", "-DALIBI_BUILD_IMGUI=OFF", "-DALIBI_BUILD_TESTS=OFF",
            "-DALIBI_BUILD_BENCH=OFF", "-DALIBI_BUILD_PYTHON=ON",
        ]
        if _has("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        if _has("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "alibi_python", "-j", jobs], check=True)
        built = sorted((build_dir / "python" / "alibi_explorer").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"CMake built no _core*.so in {build_dir / 'python' / 'alibi_explorer'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built[-1]), str(target))
        if _has("strip"):
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)


def _has(program):
    return any((Path(d) / program).is_file() for d in os.environ.get("PATH", "").split(os.pathsep) if d)


setup(
    version=project_version(),
    ext_modules=[Extension("alibi_explorer._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is CMake's build tree (./scripts/build).
    options={"build": {"build_base": "build-python"}},
)
