// The slope-schemes figure (`alibi render --what slope-schemes`, Python's what="slope-schemes"):
// the slope of each head under every scheme (press, geometric, linear, and the custom slopes when
// there is one per head) for the same H and max_bias, on a log2 axis.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/plot.hpp>

#include <utility>
#include <vector>

namespace alibi {

[[nodiscard]] Result<std::pair<std::vector<Series>, PlotStyle>> slopeSchemesPlot(const SlopeParams& slopes, int width,
                                                                                 int height);

}  // namespace alibi
