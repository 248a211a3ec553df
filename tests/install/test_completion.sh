#!/usr/bin/env bash
# The generated completion scripts: bash loads its own without error and completes
# `alibi b` to `alibi bias` and `alibi bias --he` to `--heads`; zsh and fish check their
# script's syntax when they are installed.
# Usage: test_completion.sh COMPLETION_DIR
set -euo pipefail
dir=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$dir/alibi" ] || fail "no bash completion script in $dir"

complete_words() {  # the words bash offers for the command line "$@" (last word being completed)
  bash --norc --noprofile -c '
    set -e
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _alibi
    printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/alibi" "$@"
}

bash --norc --noprofile -c "source '$dir/alibi' && complete -p alibi" >/dev/null || fail "the bash script does not load"
got=$(complete_words alibi b)
[ "$got" = "bias" ] || fail "alibi b completes to '$got', not bias"
got=$(complete_words alibi bias --he)
grep -qx -- "--heads" <<<"$got" || fail "alibi bias --he offers '$got', without --heads"
grep -qx -- "--what" <<<"$(complete_words alibi bias --)" && fail "bias offers render's --what"
grep -qx -- "--what" <<<"$(complete_words alibi render --wh)" || fail "render does not offer --what"

if command -v zsh >/dev/null; then zsh -n "$dir/_alibi" || fail "zsh script: syntax error"; fi
if command -v fish >/dev/null; then fish --no-execute "$dir/alibi.fish" || fail "fish script: syntax error"; fi
echo "completion test passed"
