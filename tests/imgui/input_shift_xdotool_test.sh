#!/bin/sh
# A key's modifiers are never lost (issue 27, the s34 review: Shift+Right on T stepped by 1 in 4 of
# 16 trials): xdotool's shift+KEY sends Shift down, KEY down, Shift up, KEY up, and when the first
# three landed in one frame the key was seen without Shift. alibi-explorer-imgui runs in a real X
# window with every frame made 300 ms slow (ALIBI_SLOW_FRAME_MS), so all four land in one frame,
# a lesson open. Page Down steps the lesson only without modifiers: shift+Next, sent eight times,
# must leave the lesson at step 1 (a lost Shift would step it); a plain Next then steps it to 2.
# Four are sent quickly (xdotool's 12 ms --delay), four with 250 ms between the events (--delay
# 500): Page Down is then held 500 ms, over a frame's poll, as a loaded machine delivered it in the
# s35 flake. ImGui's own repeat counted that hold in frame time (300 ms, past its 275 ms repeat
# delay) and stepped the lesson without Shift; a key now repeats only by the X server's repeats,
# which start after its autorepeat delay (660 ms on the test's own server: xdotool_window.sh).
. "$(dirname "$0")/xdotool_window.sh"
for delay in 12 12 12 12 500 500 500 500; do
  focus
  xdotool key --delay "$delay" shift+Next
  sleep 0.8
done
sleep 1
case "$(title)" in
  *"lesson step 1 /"*) ;;
  *) echo "FAIL: shift+Page Down stepped the lesson (Shift was lost): '$(title)'"; exit 1 ;;
esac
focus
xdotool key Next
wait_title "lesson step 2 /" || exit 1
echo "ok: eight shift+Page Down kept their Shift (step 1), Page Down then moved to step 2"
