#pragma once
// What the explorers call their views: one table for the Qt tabs, the ImGui tabs and menus, and
// the file names of what a view exports, so a lesson that says "open Attention stages" finds a
// tab of that name in either explorer (they said "Slopes & curves" / "Curves", "Model" / "Model
// run", "Extrapolation" / "Extrap.").

#include <array>
#include <string_view>

namespace alibi::explore {

// Every view of the explorers, in tab order. The Qt explorer shows Fit inside Maps.
enum class ExplorerTab {
    Grid,
    Detail,
    Curves,
    Stages,
    Compare,
    Extrapolation,
    Diagnose,
    PositionSchemes,
    Maps,
    Fit,
    Model
};

inline constexpr std::array kExplorerTabs{
    ExplorerTab::Grid,    ExplorerTab::Detail,        ExplorerTab::Curves,   ExplorerTab::Stages,
    ExplorerTab::Compare, ExplorerTab::Extrapolation, ExplorerTab::Diagnose, ExplorerTab::PositionSchemes,
    ExplorerTab::Maps,    ExplorerTab::Fit,           ExplorerTab::Model,
};

struct TabTitle {
    std::string_view full;   // "Attention stages"
    std::string_view brief;  // "Stages": where the full titles do not fit one row of tabs
    std::string_view slug;   // "stages": file names of the view's exports
};

[[nodiscard]] TabTitle tabTitle(ExplorerTab tab);

}  // namespace alibi::explore
