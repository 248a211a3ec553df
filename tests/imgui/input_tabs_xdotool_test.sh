#!/bin/sh
# A quick second click on a tab is never dropped (issue 27, the s35 review's N2): in lesson 1 in
# presentation mode at 1280x720, a click on Extrap. and one on Detail 40 ms later ended on
# Extrap.; with 300 ms frames even 200 ms apart. The cause: ImGui 1.86's tabs are "allow overlap"
# items, which ignore a press unless the previous frame hovered nothing or that same tab; with the
# cursor's move onto the second tab and the press in one frame, the previous frame had hovered the
# first tab. Usage: input_tabs_xdotool_test.sh PROGRAM ASSETS SLOW_MS (0: normal frames).
# The tabs' places are those of the short titles at 1280x720 in presentation mode (Grid at x 40,
# Detail 108, Curves 188, Stages 273, Extrap. 464; y 54): the first check below makes sure.
slow_ms=$3
explorer_args=--presentation
. "$(dirname "$0")/xdotool_window.sh"
# Ends on the view named $1 (the window title carries it) and stays there.
ends_on() {
  wait_title " - $1 - " || exit 1
  sleep 1.5  # a late or doubled click would show by now
  case "$(title)" in
    *" - $1 - "*) echo "ok: $2 ($(title))" ;;
    *) echo "FAIL: $2: title '$(title)'"; exit 1 ;;
  esac
}
# One slow click first (the places are right).
focus
xdotool mousemove 273 54 click 1
ends_on "Attention stages" "one click on Stages"
focus
xdotool mousemove 464 54 click 1 sleep 0.03 mousemove 108 54 click 1
ends_on "Head detail" "Extrap., then Detail 30 ms later"
focus
xdotool mousemove 273 54 click 1 sleep 0.03 mousemove 40 54 click 1 sleep 0.03 mousemove 188 54 click 1
ends_on "Slopes & curves" "Stages, Grid, Curves 30 ms apart"
focus
xdotool mousemove 464 54 click 1 sleep 0.2 mousemove 108 54 click 1
ends_on "Head detail" "Extrap., then Detail 200 ms later"
