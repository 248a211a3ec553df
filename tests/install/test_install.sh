#!/usr/bin/env bash
# Install test: `cmake --install` of the build tree into a temporary prefix, then use what was
# installed as a user would: the installed `alibi --version`, the installed Python module
# imported with that prefix on its path (and only that copy), the desktop entry through
# desktop-file-validate, the man pages, and the shared data beside the programs.
# Usage: test_install.sh BUILD_DIR PYTHON
set -euo pipefail
build=$1
python=$2
prefix=$(mktemp -d /tmp/alibi-install-test.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null

version=$("$prefix/bin/alibi" --version)
echo "installed: $version"
[[ $version == "alibi "* ]] || fail "alibi --version printed '$version'"
# Every program the build made is installed, with a compressed man page generated from its option table.
for built in "$build/app/cli/alibi" "$build/app/qt/alibi-explorer" "$build/app/imgui/alibi-explorer-imgui"; do
  [ -x "$built" ] || continue
  program=$(basename "$built")
  [ -x "$prefix/bin/$program" ] || fail "$program is not installed"
  [ -s "$prefix/share/man/man1/$program.1.gz" ] || fail "no man page for $program"
  # Read whole, then searched: `zcat | grep -q` fails under pipefail when grep stops early (SIGPIPE).
  page=$(zcat "$prefix/share/man/man1/$program.1.gz")
  grep -q '^\.SH "EXIT STATUS"' <<<"$page" || fail "$program.1 has no EXIT STATUS section"
done
page=$(zcat "$prefix/share/man/man1/alibi.1.gz")
grep -qF -- '\-\-heads' <<<"$page" || fail "alibi.1 does not document --heads"
[ -s "$prefix/share/bash-completion/completions/alibi" ] || fail "no bash completion installed"
[ -s "$prefix/share/zsh/vendor-completions/_alibi" ] || fail "no zsh completion installed"
[ -s "$prefix/share/fish/vendor_completions.d/alibi.fish" ] || fail "no fish completion installed"

source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
site=$(sed -n 's/^ALIBI_PYTHON_INSTALL_DIR:STRING=//p' "$build/CMakeCache.txt")
[ -n "$site" ] || site=$("$python" "$source_dir/cmake/python_site.py" "$prefix")
if grep -q '^ALIBI_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  [ -f "$prefix/$site/alibi_explorer/__init__.py" ] || fail "the module is not in $prefix/$site"
# Only the installed copy is on the path: PYTHONPATH is the prefix alone, and / is the working folder.
(cd / && env -u PYTHONPATH PYTHONPATH="$prefix/$site" "$python" -c "
import alibi_explorer as ax, sys
assert ax.__file__.startswith('$prefix/'), ax.__file__
b = ax.bias(heads=4, seq=8)
assert b.shape == (4, 8, 8) and ax.diagnose(b).match['scheme'] == 'press'
print('imported', ax.__file__, ax.__version__)
") || fail "the installed module does not import"
fi

desktop="$prefix/share/applications/alibi-explorer.desktop"
if [ -e "$build/app/qt/alibi-explorer" ]; then
[ -f "$desktop" ] || fail "no desktop file"
desktop-file-validate "$desktop" || fail "desktop-file-validate rejected $desktop"
grep -qx 'MimeType=application/x-alibi-session+json;' "$desktop" || fail "the desktop entry claims other file types"
mime="$prefix/share/mime/packages/alibi-explorer.xml"
[ -f "$mime" ] || fail "no shared-mime-info file"
if command -v update-mime-database >/dev/null; then
  # Build a MIME database from the installed file alone and ask it what a session is.
  mkdir -p "$prefix/mimedb/packages" && cp "$mime" "$prefix/mimedb/packages/"
  update-mime-database "$prefix/mimedb" || fail "update-mime-database rejected $mime"
  grep -q "application/x-alibi-session+json:\*\.alibi\.json" "$prefix/mimedb/globs2" || fail "*.alibi.json is not a session"
fi
metainfo=$(ls "$prefix"/share/metainfo/*.metainfo.xml)
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$metainfo" || fail "appstreamcli rejected $metainfo"
fi
exec_name=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ -x "$prefix/bin/$exec_name" ] || [ ! -e "$build/app/qt" ] || fail "the desktop file runs '$exec_name', which is not installed"
[ -f "$prefix/share/icons/hicolor/scalable/apps/alibi-explorer.svg" ] || fail "no icon"
fi

[ -n "$(ls "$prefix/share/alibi-explorer/presets/"*.json)" ] || fail "no presets installed"
[ -n "$(ls "$prefix/share/alibi-explorer/sessions/"*.alibi.json)" ] || fail "no example sessions installed"
[ -n "$(ls "$prefix/share/alibi-explorer/lessons/"*.lesson.json)" ] || fail "no lessons installed"
[ -f "$prefix/share/alibi-explorer/attention/trained-like-4x8x64.npy" ] || fail "no example attention maps installed (the lesson 'Reading a real model' opens them)"
# The installed CLI reads an installed example session.
"$prefix/bin/alibi" slopes --config "$prefix/share/alibi-explorer/sessions/mpt-7b.alibi.json" >/dev/null \
  || fail "the installed alibi cannot read the installed sessions"
echo "install test passed ($prefix)"
