// Scrolling a table to a lesson step's marked rows once per step (marked_rows.hpp).
#include "marked_rows.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// Frames a table keeps scrolling for one step: one is enough once the table has its size (its
// first frame in a view may lay out before the room is known); then it gives up, never fighting
// the user.
constexpr int kMaxScrollFrames = 6;

}  // namespace

bool scrollingToMarkedRows(const MarkedRows& rows, std::uint64_t step) {
    return step != 0 && rows.shownFor != step;
}

void beginMarkedRows(MarkedRows& rows) {
    rows.rows.clear();
    rows.firstIndex = -1;
}

void noteMarkedRow(MarkedRows& rows, int index) {
    const ImGuiTable* table = ImGui::GetCurrentTable();
    if (table == nullptr) return;
    const float top = table->RowPosY1;
    if (index >= 0 && rows.firstIndex < 0) {
        rows.firstIndex = index;
        rows.firstTop = top;
    } else if (index > rows.firstIndex && rows.firstIndex >= 0) {
        rows.rowPitch = (top - rows.firstTop) / static_cast<float>(index - rows.firstIndex);
    }
    rows.rows.push_back({top, top + ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y});
}

void scrollToMarkedRows(MarkedRows& rows, std::uint64_t step) {
    const ImGuiTable* table = ImGui::GetCurrentTable();
    if (table == nullptr) return;
    // The header row stays at the top (frozen while scrolled): the rows show below it.
    rows.headerHeight = ImGui::TableGetHeaderRowHeight();
    rows.visible = {table->InnerClipRect.Min.y + rows.headerHeight, table->InnerClipRect.Max.y};
    if (!scrollingToMarkedRows(rows, step) || rows.rows.empty()) return;
    if (rows.tryingFor != step) {
        rows.tryingFor = step;
        rows.tries = 0;
    }
    float top = rows.rows.front().top, bottom = rows.rows.front().bottom;
    for (const MarkedRows::Span& r : rows.rows) {
        top = std::min(top, r.top);
        bottom = std::max(bottom, r.bottom);
    }
    const float room = rows.visible.bottom - rows.visible.top;
    if (room < 1.0f) return;  // not laid out yet
    constexpr float slack = 1.0f;
    const bool inView = bottom - top <= room ? top >= rows.visible.top - slack && bottom <= rows.visible.bottom + slack
                                             : std::abs(top - rows.visible.top) <= slack;
    if (inView || ++rows.tries > kMaxScrollFrames) {
        rows.shownFor = step;
        return;
    }
    // The first marked row at the top of the visible rows (the rest under it, as many as fit).
    ImGui::SetScrollY(std::clamp(ImGui::GetScrollY() + (top - rows.visible.top), 0.0f, ImGui::GetScrollMaxY()));
}

}  // namespace alibi::imgui
