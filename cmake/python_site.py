#!/usr/bin/env python3
"""Prints where, relative to PREFIX, the alibi_explorer package installs so that this
interpreter finds it (used at install time by python/CMakeLists.txt and by scripts/install).

  /usr                        lib/python3/dist-packages   (Debian's packages, any 3.x)
  the user base (~/.local)    lib/python3.X/site-packages (the user site)
  /usr/local on Debian        lib/python3.X/dist-packages
  anything else               the interpreter's purelib for that prefix (lib/python3.X/site-packages)
Usage: python_site.py PREFIX
"""
import os
import site
import sys
import sysconfig


def relative_site(prefix):
    prefix = os.path.normpath(prefix)
    schemes = sysconfig.get_scheme_names()
    if prefix == "/usr" and "deb_system" in schemes:
        return "lib/python3/dist-packages"
    user_base = os.path.normpath(site.getuserbase())
    if prefix == user_base:
        return os.path.relpath(site.getusersitepackages(), user_base)
    scheme = "posix_local" if prefix == "/usr/local" and "posix_local" in schemes else "posix_prefix"
    base = "/usr" if scheme == "posix_local" else prefix  # posix_local adds the "local/" itself
    path = sysconfig.get_path("purelib", scheme, vars={"base": base, "platbase": base})
    root = "/usr/local" if scheme == "posix_local" else prefix
    return os.path.relpath(path, root)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python_site.py PREFIX")
    print(relative_site(sys.argv[1]))
