// The data ranges a plot's axes span, one rule for the figures and both explorers' plots (issue
// 23: the figures framed a curve at its exact extremes, Qt's plots padded 5 % either side, ImGui's
// 4 %, so one curve had three y axes).
#pragma once

#include <alibi/render/plot.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace alibi {

// Axis units: y as log2(y) on a logY2 axis, x as log2(1 + x) on a logX1p axis.
struct PlotRanges {
    double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
    bool operator==(const PlotRanges&) const = default;
};

// Whether the point is drawn at all: finite, y > 0 on a logY2 axis, x >= 0 on a logX1p axis.
[[nodiscard]] bool plotDrawable(const PlotStyle& style, double x, double y);
// x in axis units (log2(1 + x) on a logX1p axis).
[[nodiscard]] double plotAxisX(const PlotStyle& style, double x);

// The spans of the drawable points of `series`, as style.logY2, logX1p, bars and yFromZero want
// them: a single value widened half a unit either side; bars and categories padded half a unit
// along x, bars
// standing on 0 (on a log axis, a quarter octave below the smallest); yFromZero down to 0 with 4 %
// above a peak; a log axis out to whole octaves; room above (and below) bars. Nothing drawable:
// [0, 1] x [0, 1].
// `xWindow` (axis units; a plot zoomed along x) keeps x within it, clipped to the data's, and
// spans y over the points inside only.
[[nodiscard]] PlotRanges plotRanges(const std::vector<Series>& series, const PlotStyle& style,
                                    std::optional<std::pair<double, double>> xWindow = std::nullopt);

}  // namespace alibi
