// The three curve plots of the explorers' curves view (slopes per head, bias vs distance,
// attention vs distance) as data plus style: what renderCurvesSvg and the Curves view figure draw.
#pragma once

#include <alibi/figure/figure.hpp>
#include <alibi/render/plot.hpp>

#include <vector>

namespace alibi::detail {

struct CurvesPlot {
    std::vector<Series> series;
    PlotStyle style;  // title, axes, highlight, and the formula line as caption
};

[[nodiscard]] Result<CurvesPlot> curvesPlot(const CurvesParams& params, const ProgressFn& progress = {});

}  // namespace alibi::detail
