#pragma once
// What the explorers call their views: one table for the Qt tabs, the ImGui tabs and menus, and
// the file names of what a view exports, so a lesson that says "open Attention stages" finds a
// tab of that name in either explorer (they said "Slopes & curves" / "Curves", "Model" / "Model
// run", "Extrapolation" / "Extrap.").

#include <array>
#include <functional>
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

// How the row of view tabs fits its room: whole titles, brief names, or brief names in a
// smaller font, never behind scroll arrows (both explorers: 1280x720 in presentation mode).
struct TabRowFit {
    bool brief = false;
    double scale = 1;  // of the interface's font
    bool operator==(const TabRowFit&) const = default;
};
// The whole titles at full size where they fit `room`; else the brief names; else the brief
// names at the largest scale of 0.95, 0.90, ... down to `smallest` that fits (`smallest` where
// none does). `rowWidth(brief, scale)` is the row's width as the front end lays it out.
[[nodiscard]] TabRowFit fitTabRow(double room, double smallest,
                                  const std::function<double(bool brief, double scale)>& rowWidth);

}  // namespace alibi::explore
