// The curve plots every front end draws, and their axes: one description for the figures and
// both explorers' plots, so one curve gets one picture (issue 23: ImGui drew attention vs
// distance on a log distance axis and the slopes as joined points, where Qt and the figures
// drew a linear axis and bars). With plotRanges (plot_ranges.hpp) it fixes what the axes span.
#pragma once

#include <alibi/render/plot.hpp>

#include <cstddef>

namespace alibi {

enum class PlotKind {
    Slopes,             // slope per head: bars on a log2 axis
    SlopeSchemes,       // the slope schemes side by side: lines on a log2 axis
    BiasDistance,       // bias vs distance, every head: linear
    AttentionDistance,  // attention vs distance at a query row: probabilities from 0
    Extrapolation,      // attention vs distance as T grows: a log2(1 + d) axis, probabilities from 0
    FitProfile,         // a fitted head's share of attention by distance: from 0
    MapsRow,            // a query row of attention maps by key: probabilities from 0
    LiveLoss,           // a checkpoint's loss per position, A vs B: nats from 0
    LiveChange,         // a checkpoint's attention change per head, a line a layer: from 0
};

// A style with only the axes of `kind` set (logY2, logX1p, bars, categorical, yFromZero); the
// caller adds its title, labels, size and caption.
[[nodiscard]] PlotStyle plotAxes(PlotKind kind);

// One of the four stages of a query row (0 content, 1 + bias, 2 masked / temperature, 3 softmax)
// over `keys` keys: a bar a key up to kStageBarKeys keys, a line past them (bars narrower than a
// pixel say nothing); the softmax from 0. Both explorers and the figure (each had the rule, the
// figure drew bars at any length).
inline constexpr std::size_t kStageBarKeys = 64;
[[nodiscard]] PlotStyle stagePanelAxes(int stage, std::size_t keys);

}  // namespace alibi
