#!/usr/bin/env bash
# The two explorers' command lines, which need no display: --version prints the version, a bad
# argument exits 2 with a message naming the closest option, --help shows the shared options
# (FILE, --lesson, --attention, --zoom) within the terminal's width and hides the developer runs,
# and --man-page writes a man page with every section.
# Usage: test_explorer_args.sh VERSION PROGRAM...
set -euo pipefail
version=$1
shift
fail() { echo "FAIL: $*" >&2; exit 1; }
for program in "$@"; do
  name=$(basename "$program")
  out=$("$program" --version) || fail "$name --version failed"
  [[ $(head -n1 <<<"$out") == "$name $version" ]] || fail "$name --version printed '$out'"
  set +e
  err=$("$program" --zoomm 2 2>&1 >/dev/null); status=$?
  set -e
  [ $status -eq 2 ] || fail "$name --zoomm exited $status, not 2"
  grep -q -- "did you mean --zoom?" <<<"$err" || fail "$name --zoomm: '$err'"
  set +e
  "$program" a.alibi.json b.alibi.json >/dev/null 2>&1; status=$?
  set -e
  [ $status -eq 2 ] || fail "$name with two files exited $status, not 2"
  help=$(COLUMNS=80 "$program" --help)
  for option in FILE --lesson --attention --zoom --version; do
    grep -q -- "$option" <<<"$help" || fail "$name --help does not show $option"
  done
  for hidden in --storm --bench-frames --length --session; do
    grep -q -- "$hidden" <<<"$help" && fail "$name --help shows the developer option $hidden"
  done
  widest=$(awk '{ if (length($0) > w) w = length($0) } END { print w }' <<<"$help")
  [ "$widest" -le 80 ] || fail "$name --help is $widest columns wide at COLUMNS=80"
  page=$("$program" --man-page)
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS '"EXIT STATUS"' ENVIRONMENT FILES; do
    grep -q "^\.SH $section" <<<"$page" || fail "$name's man page has no $section section"
  done
done
echo "explorer arguments test passed"
