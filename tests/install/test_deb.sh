#!/usr/bin/env bash
# The Debian package, as `apt install ./alibi-explorer_*.deb` would use it:
#   1. build it from the build tree (cpack) and run lintian: no error and no warning;
#   2. its Depends (computed by dpkg-shlibdeps) against every shared library every ELF file in
#      it links: each library's package must be named (or be pulled in by one that is);
#   3. unpack it into a temporary root and run what it holds: the programs, the man pages, the
#      module imported from / with only that copy on the path;
#   4. as root, on a machine where it is not installed yet: install it with dpkg, import the
#      module from / (byte-compiled by postinst), remove it, and find no file of it left
#      (no __pycache__ either).
# Usage: test_deb.sh BUILD_DIR
set -euo pipefail
build=$1
python=${ALIBI_PYTHON:-/usr/bin/python3}
work=$(mktemp -d /tmp/alibi-deb-test.XXXXXX)
installed_here=0
cleanup() {
  if [ "$installed_here" = 1 ]; then dpkg --purge alibi-explorer >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. Build and lint.
cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/out/alibi-explorer_*.deb)
echo "built $(basename "$deb")"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'
if command -v lintian >/dev/null; then
  # lintian refuses to run as root unless told it may.
  lintian --allow-root --fail-on error,warning --display-info "$deb" || fail "lintian reports errors or warnings (above)"
else
  fail "lintian is not installed (./scripts/deps test installs it)"
fi

# 2. Depends against what each binary links.
depends=$(dpkg-deb --field "$deb" Depends)
echo "Depends: $depends"
root="$work/root"
dpkg-deb -x "$deb" "$root"
declare -A named=()
for item in $(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*)//; s/:any//; s/ //g'); do named[$item]=1; done
# A library counts as declared when its package, or a package that depends on it, is named.
declared() {
  local pkg=$1
  [ -n "${named[$pkg]:-}" ] && return 0
  local dep
  for dep in "${!named[@]}"; do
    grep -q "Depends: $pkg$" <<<"$(apt-cache depends --installed "$dep" 2>/dev/null)" && return 0
  done
  return 1
}
checked=0
while IFS= read -r file; do
  file -b "$file" | grep -q '^ELF' || continue
  for lib in $(objdump -p "$file" | awk '/NEEDED/ {print $2}'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')
    [ -n "$path" ] || fail "$(basename "$file") links $lib, which this machine cannot find"
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n1 | cut -d: -f1) || true
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1) || true
    [ -n "$pkg" ] || fail "$lib ($path) belongs to no package"
    declared "$pkg" || fail "$(basename "$file") links $lib from $pkg, which Depends does not name: $depends"
    checked=$((checked + 1))
  done
done < <(find "$root" -type f)
[ "$checked" -gt 0 ] || fail "no ELF file with libraries found in the package"
echo "Depends covers the $checked library links of the package's binaries"
for needed in libsleef3 libpng16-16 python3-numpy fonts-dejavu-core; do
  [ -n "${named[$needed]:-}" ] || fail "Depends does not name $needed"
done

# 3. The unpacked files.
# Every program the build made (the explorers are optional: ALIBI_BUILD_QT, ALIBI_BUILD_IMGUI).
[ -x "$root/usr/bin/alibi" ] || fail "no /usr/bin/alibi"
for program in alibi alibi-explorer alibi-explorer-imgui; do
  if [ ! -e "$root/usr/bin/$program" ]; then
    [ -z "$(find "$build/app" -maxdepth 2 -type f -name "$program")" ] || fail "the build made $program but the package lacks it"
    continue
  fi
  [ -s "$root/usr/share/man/man1/$program.1.gz" ] || fail "no compressed man page for $program"
  version=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/$program" --version) || fail "the unpacked $program does not run"
  [[ ${version%%$'\n'*} == "$program "[0-9]* ]] || fail "the unpacked $program --version printed '$version'"
done
"$root/usr/bin/alibi" slopes --config "$root/usr/share/alibi-explorer/sessions/mpt-7b.alibi.json" >/dev/null \
  || fail "the unpacked alibi cannot read the packaged sessions"
module="$root/usr/lib/python3/dist-packages/alibi_explorer"
[ -f "$module/__init__.py" ] || fail "the module is not in /usr/lib/python3/dist-packages"
find "$root" -name __pycache__ | grep -q . && fail "the package ships __pycache__"
(cd / && env -u PYTHONPATH PYTHONPATH="$root/usr/lib/python3/dist-packages" "$python" -c "
import alibi_explorer as ax
assert ax.__file__.startswith('$root/'), ax.__file__
assert ax.bias(heads=4, seq=8).shape == (4, 8, 8)
") || fail "the unpacked module does not import from /"
zcat "$root/usr/share/doc/alibi-explorer/copyright" >/dev/null 2>&1 || grep -q "License: Expat" "$root/usr/share/doc/alibi-explorer/copyright" \
  || fail "no MIT (Expat) copyright file"

# 4. Install, use and remove on this machine (root only; never over an installed copy).
if [ "$(id -u)" -ne 0 ]; then echo "not root: the package was checked unpacked only"; echo "deb test passed"; exit 0; fi
if dpkg-query -W -f='${Status}' alibi-explorer 2>/dev/null | grep -q "ok installed"; then
  echo "alibi-explorer is installed on this machine already: not installing over it"; echo "deb test passed"; exit 0
fi
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|; s|/$||' | grep -v '^/usr$\|^/usr/share$\|^/usr/bin$\|^/usr/lib$\|^$' >"$work/files"
installed_here=1
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i failed"; }
ls /usr/lib/python3/dist-packages/alibi_explorer/__pycache__/*.pyc >/dev/null 2>&1 || fail "postinst did not byte-compile the module"
(cd / && env -u PYTHONPATH "$python" -c "import alibi_explorer as ax; assert ax.__file__.startswith('/usr/lib/python3/dist-packages/'), ax.__file__; print('imported', ax.__file__)") \
  || fail "the installed module does not import from /"
(cd / && alibi --version >/dev/null && man -w alibi >/dev/null 2>&1) || fail "the installed alibi or its man page is not found"
dpkg --purge alibi-explorer >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge failed"; }
installed_here=0
# Every file of the package is gone, and so is every folder of its own (shared folders such as
# /usr/share/man/man1 stay); the module's folder too, __pycache__ and all.
left=()
while IFS= read -r path; do
  if [ -d "$path" ] && [ ! -L "$path" ]; then
    case "$path" in *alibi*) left+=("$path") ;; esac
  elif [ -e "$path" ] || [ -L "$path" ]; then
    left+=("$path")
  fi
done <"$work/files"
[ ${#left[@]} -eq 0 ] || fail "left behind after removal: ${left[*]}"
echo "installed, imported from /, removed with nothing left"
echo "deb test passed"
