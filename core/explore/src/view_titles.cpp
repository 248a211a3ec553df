#include "alibi/explore/view_titles.hpp"

#include <cmath>

namespace alibi::explore {

TabTitle tabTitle(ExplorerTab tab) {
    switch (tab) {
        case ExplorerTab::Grid:
            return {"Head grid", "Grid", "head-grid"};
        case ExplorerTab::Detail:
            return {"Head detail", "Detail", "head-detail"};
        case ExplorerTab::Curves:
            return {"Slopes & curves", "Curves", "curves"};
        case ExplorerTab::Stages:
            return {"Attention stages", "Stages", "stages"};
        case ExplorerTab::Compare:
            return {"Compare", "Compare", "compare"};
        case ExplorerTab::Extrapolation:
            return {"Extrapolation", "Extrap.", "extrapolation"};
        case ExplorerTab::Diagnose:
            return {"Diagnose", "Diagnose", "diagnose"};
        case ExplorerTab::PositionSchemes:
            return {"Position schemes", "Schemes", "position-schemes"};
        case ExplorerTab::Maps:
            return {"Attention maps", "Maps", "attention-maps"};
        case ExplorerTab::Fit:
            return {"Head fit", "Fit", "head-fit"};
        case ExplorerTab::Model:
            return {"Model run", "Model", "model-run"};
    }
    return {"Head grid", "Grid", "head-grid"};
}

TabRowFit fitTabRow(double room, double smallest, const std::function<double(bool, double)>& rowWidth) {
    if (rowWidth(false, 1) <= room) return {false, 1};
    if (rowWidth(true, 1) <= room) return {true, 1};
    // Steps of 5 % (in whole hundredths, so 0.6 is 0.6): a font size the eye can tell apart.
    for (int percent = 95; percent >= static_cast<int>(std::ceil(smallest * 100 - 1e-9)); percent -= 5)
        if (rowWidth(true, percent / 100.0) <= room) return {true, percent / 100.0};
    return {true, smallest};
}

}  // namespace alibi::explore
