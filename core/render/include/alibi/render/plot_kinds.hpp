// The curve plots every front end draws, and their axes: one description for the figures and
// both explorers' plots, so one curve gets one picture (issue 23: ImGui drew attention vs
// distance on a log distance axis and the slopes as joined points, where Qt and the figures
// drew a linear axis and bars). With plotRanges (plot_ranges.hpp) it fixes what the axes span.
#pragma once

#include <alibi/render/plot.hpp>

namespace alibi {

enum class PlotKind {
    Slopes,             // slope per head: bars on a log2 axis
    SlopeSchemes,       // the slope schemes side by side: lines on a log2 axis
    BiasDistance,       // bias vs distance, every head: linear
    AttentionDistance,  // attention vs distance at a query row: probabilities from 0
    Extrapolation,      // attention vs distance as T grows: a log2(1 + d) axis, probabilities from 0
    StagePanel,         // one stage of a query row by key: bars
    FitProfile,         // a fitted head's share of attention by distance: from 0
    MapsRow,            // a query row of attention maps by key: probabilities from 0
};

// A style with only the axes of `kind` set (logY2, logX1p, bars, yFromZero); the caller adds its
// title, labels, size and caption.
[[nodiscard]] PlotStyle plotAxes(PlotKind kind);

}  // namespace alibi
