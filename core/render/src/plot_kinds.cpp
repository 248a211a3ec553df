// See plot_kinds.hpp.
#include <alibi/render/plot_kinds.hpp>

namespace alibi {

PlotStyle plotAxes(PlotKind kind) {
    PlotStyle style;
    switch (kind) {
        case PlotKind::Slopes:
            style.logY2 = true;
            style.bars = true;  // one bar per head, ticks 1/2, 1/4, ...
            break;
        case PlotKind::SlopeSchemes:
            style.logY2 = true;
            break;
        case PlotKind::BiasDistance:
            break;
        case PlotKind::AttentionDistance:
        case PlotKind::FitProfile:
        case PlotKind::MapsRow:
        case PlotKind::LiveLoss:
            style.yFromZero = true;  // probabilities, shares and losses, whose floor is 0
            break;
        case PlotKind::LiveChange:
            // A total variation, whose floor is 0, per head: a line a layer over the same heads
            // (bars would stand on each other).
            style.yFromZero = true;
            style.categorical = true;
            break;
        case PlotKind::Extrapolation:
            style.logX1p = true;  // distance 0, the largest value, stays on the axis
            style.yFromZero = true;
            break;
    }
    return style;
}

PlotStyle stagePanelAxes(int stage, std::size_t keys) {
    PlotStyle style;
    style.bars = keys <= kStageBarKeys;
    style.yFromZero = stage == 3;  // probabilities
    return style;
}

}  // namespace alibi
