// The words every front end shows while a view is being computed (issue 26): both explorers'
// marks over a view and `alibi render`'s progress line print the same text for the same
// progress, so a user reads one kind of estimate everywhere.
#pragma once

#include <string>

namespace alibi::explore {

enum class ProgressPhase {
    Computing,  // nothing of the view is shown yet
    Updating,   // an older picture stays on screen, dimmed
    Refining,   // a first picture (a preview) is shown while the exact one is computed
};

// Seconds left at the rate so far: elapsed x (1 - fraction) / fraction; -1 (no estimate yet)
// below 2 % done or half a second elapsed, and once done.
[[nodiscard]] double secondsLeft(double elapsedSeconds, double fraction);

// "Computing... 42 %, about 17 s left", "updating... 42 %", "preview, refining... 42 %, about
// 3 s left". `fraction` outside [0, 1) leaves out the percentage (unknown, or done), a negative
// `secondsLeft` the estimate (which is never shown below 1 s).
[[nodiscard]] std::string progressText(ProgressPhase phase, double fraction, double secondsLeft = -1);

}  // namespace alibi::explore
