#!/bin/sh
# Input is never dropped (issue 27), end to end: alibi-explorer-imgui runs in a real X window with
# every frame made 300 ms slow, a lesson open (xdotool_window.sh); xdotool sends Page Down three
# times, then two Page Up presses 30 ms apart (both inside one slow frame). The window title
# carries the lesson's step counter: it must read step 2 at the end (1 + 3 - 2), not step 3.
. "$(dirname "$0")/xdotool_window.sh"
for step in 2 3 4; do
  focus
  xdotool key Next
  wait_title "lesson step $step /" || exit 1
done
# Two presses 30 ms apart: both land inside one 300 ms frame.
focus
xdotool key --delay 30 Prior Prior
wait_title "lesson step 2 /" || exit 1
sleep 1.5  # a dropped or doubled press would show by now
case "$(title)" in
  *"lesson step 2 /"*) echo "ok: two Page Up presses 30 ms apart moved two steps ($(title))" ;;
  *) echo "FAIL: title '$(title)'"; exit 1 ;;
esac
