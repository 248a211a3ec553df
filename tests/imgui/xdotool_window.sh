# The shared part of the ImGui xdotool tests (sourced: `. xdotool_window.sh PROGRAM ASSETS`):
# starts an X server of its own, runs alibi-explorer-imgui in it with every frame made 300 ms slow
# (ALIBI_SLOW_FRAME_MS; a test may set slow_ms first, 0 for normal frames, and explorer_args for
# more options, e.g. --presentation) and the first lesson open, and waits for its window at lesson
# step 1.
# Defines `title` (the window's title, which carries the lesson's step counter), `wait_title TEXT`
# and `focus`. Exits 77 (skipped) without DISPLAY or xdotool.
#
# The keys go to whichever window has the X input focus, and every GLFW window takes the focus
# when it opens: on the display the whole suite shares, an explorer starting in a parallel test
# would receive the presses. So the test starts an X server of its own when Xvfb is installed
# (-displayfd: the server picks a free display and names it once it accepts connections), with
# the usual key repeat (660 ms delay, 25 a second; a test may rely on a key held less than that
# not repeating).
set -u
program=$1
assets=$2
command -v xdotool >/dev/null || { echo "xdotool is not installed (scripts/deps test)"; exit 77; }
log=$(mktemp)
server=""
pid=""
cleanup() {
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  rm -f "$log" "$log.display"
}
trap cleanup EXIT
if command -v Xvfb >/dev/null; then
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -ardelay 660 -arinterval 40 3>"$log.display" 2>/dev/null &
  server=$!
  for _ in $(seq 1 300); do
    [ -s "$log.display" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$log.display" ] || { echo "FAIL: Xvfb did not start"; exit 1; }
  DISPLAY=:$(head -n 1 "$log.display")
  export DISPLAY
fi
[ -n "${DISPLAY:-}" ] || { echo "no DISPLAY"; exit 77; }
# shellcheck disable=SC2086 # explorer_args: several options
ALIBI_DATA_DIR=$assets XDG_DATA_HOME=/nonexistent XDG_CONFIG_HOME=$(mktemp -d) ALIBI_SLOW_FRAME_MS=${slow_ms:-300} \
  "$program" --width 1280 --height 720 ${explorer_args:-} --lesson alibi-in-five-steps >"$log" 2>&1 &
pid=$!
window=""
for _ in $(seq 1 600); do
  window=$(xdotool search --name "lesson step" 2>/dev/null | head -n 1)
  [ -n "$window" ] && break
  kill -0 "$pid" 2>/dev/null || break  # the explorer ended: its log says why
  sleep 0.1
done
[ -n "$window" ] || { echo "FAIL: no explorer window"; cat "$log"; exit 1; }
title() { xdotool getwindowname "$window"; }
wait_title() {  # waits (up to 60 s) for the title to contain $1
  for _ in $(seq 1 600); do
    case "$(title)" in *"$1"*) return 0 ;; esac
    sleep 0.1
  done
  echo "FAIL: title '$(title)' never showed '$1'"
  return 1
}
wait_title "lesson step 1 /" || exit 1
# Keys go through XTEST to the focused window, as a keyboard's would (no window manager needed).
focus() { xdotool windowfocus --sync "$window" 2>/dev/null || xdotool windowfocus "$window"; }
