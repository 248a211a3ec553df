// The progress text of every front end; see progress_text.hpp.
#include <alibi/explore/progress_text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::explore {

double secondsLeft(double elapsedSeconds, double fraction) {
    if (!(fraction >= 0.02) || fraction >= 1 || !(elapsedSeconds >= 0.5)) return -1;
    return elapsedSeconds * (1 - fraction) / fraction;
}

std::string progressText(ProgressPhase phase, double fraction, double secondsLeft) {
    std::string text;
    switch (phase) {
        case ProgressPhase::Computing:
            text = "Computing...";
            break;
        case ProgressPhase::Updating:
            text = "updating...";
            break;
        case ProgressPhase::Refining:
            text = "preview, refining...";
            break;
    }
    if (fraction >= 0 && fraction < 1) text += fmt::format(" {} %", std::lround(std::floor(fraction * 100)));
    if (secondsLeft >= 0) text += fmt::format(", about {} s left", std::max(1L, std::lround(secondsLeft)));
    return text;
}

}  // namespace alibi::explore
