#!/bin/sh
# A key's modifiers are never lost (issue 27, the s34 review: Shift+Right on T stepped by 1 in 4 of
# 16 trials): xdotool's shift+KEY sends Shift down, KEY down, Shift up, KEY up, and when the first
# three landed in one frame the key was seen without Shift. alibi-explorer-imgui runs in a real X
# window with every frame made 300 ms slow (ALIBI_SLOW_FRAME_MS), so all four land in one frame,
# a lesson open. Page Down steps the lesson only without modifiers: shift+Next, sent four times,
# must leave the lesson at step 1 (a lost Shift would step it); a plain Next then steps it to 2.
. "$(dirname "$0")/xdotool_window.sh"
for _ in 1 2 3 4; do
  focus
  xdotool key shift+Next
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
echo "ok: four shift+Page Down kept their Shift (step 1), Page Down then moved to step 2"
