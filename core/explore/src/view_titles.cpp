#include "alibi/explore/view_titles.hpp"

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

}  // namespace alibi::explore
