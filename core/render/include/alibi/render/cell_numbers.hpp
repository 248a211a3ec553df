// How big a head detail's numbers print in its square cells, one rule for both explorers (issue
// 23: Qt fitted a line to 0.6 of the cell and left 3 px beside the widest number, ImGui a line
// and 3 px tall and 2 px plus 0.3 em beside it, so the two zoomed to different cell sizes for one
// lesson). A font's advances and line height grow in proportion to its size, so the metrics are
// measured once, at any size, and scaled.
#pragma once

#include <alibi/render/format.hpp>

#include <functional>
#include <span>
#include <string_view>

namespace alibi {

// A font's metrics at one size, in the caller's units: `size` in points or pixels, the widths
// and the line height in pixels.
struct NumberFont {
    double size = 0;
    double lineHeight = 0;
    std::function<double(std::string_view)> width;
};

// A number's line takes at most this share of the cell's height...
inline constexpr double kNumberLineShare = 0.75;
// ...and leaves this share of a line's height free beside it, half on each side (the grid line
// between cells is not enough: "-1.000-0.875" read as one number).
inline constexpr double kNumberSideGap = 0.3;

// The room across a cell for a number's text when a line is `lineHeight` pixels tall: what
// cellNumberTexts is given.
[[nodiscard]] double numberRoom(double cell, double lineHeight);

// The largest size at which every number of the head, at its most exact decimals (cellNumberTexts
// with unlimited room), fits a `cell`-pixel square by the rule above; in `font.size`'s units.
// 0 when the head has no number to print (every cell masked) or `cell` is not positive.
[[nodiscard]] double numberSizeForCell(std::span<const double> values, bool probability, const NumberFont& font,
                                       double cell);

// The smallest square cell, in pixels, in which every number of the head prints at `size` (in
// font.size's units) at its most exact decimals: the inverse of numberSizeForCell. 0 when the
// head has no number to print.
[[nodiscard]] double cellForNumbers(std::span<const double> values, bool probability, const NumberFont& font,
                                    double size);

}  // namespace alibi
