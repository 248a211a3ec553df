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
            style.yFromZero = true;  // probabilities and shares, whose floor is 0
            break;
        case PlotKind::Extrapolation:
            style.logX1p = true;  // distance 0, the largest value, stays on the axis
            style.yFromZero = true;
            break;
        case PlotKind::StagePanel:
            style.bars = true;
            break;
    }
    return style;
}

}  // namespace alibi
