#!/bin/sh
# Issue 16: alibi-explorer without a display. --help and --version print and exit 0; opening a
# window exits 1 with a message naming DISPLAY and the offscreen platform (not Qt's abort, 134).
set -u
exe="$1"
out=$("$exe" --help 2>&1) || { echo "--help failed: $out"; exit 1; }
echo "$out" | grep -q -- "--screenshot" || { echo "--help printed no usage: $out"; exit 1; }
out=$("$exe" --version 2>&1) || { echo "--version failed: $out"; exit 1; }
echo "$out" | grep -q "0.1.0" || { echo "--version printed no version: $out"; exit 1; }
out=$("$exe" 2>&1)
status=$?
[ "$status" -eq 1 ] || { echo "expected exit 1 without a display, got $status: $out"; exit 1; }
echo "$out" | grep -q DISPLAY || { echo "the message does not name DISPLAY: $out"; exit 1; }
echo "$out" | grep -q offscreen || { echo "the message does not name the offscreen platform: $out"; exit 1; }
# Issue 25: DISPLAY set to a server that is not there: exit 1 with a message, not Qt's abort.
out=$(DISPLAY=:87 WAYLAND_DISPLAY= QT_QPA_PLATFORM=xcb "$exe" 2>&1)
status=$?
[ "$status" -eq 1 ] || { echo "expected exit 1 with an unreachable DISPLAY, got $status: $out"; exit 1; }
echo "$out" | grep -q "DISPLAY=:87" || { echo "the message does not name the display: $out"; exit 1; }
echo "ok"
