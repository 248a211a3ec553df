// The per-head statistics panel: the core's computeStats result (slope, half-life, and entropy,
// mean distance, 50% and 90% mass distances at the chosen row and averaged over rows) as a
// sortable table. Hovering a row highlights that head in every panel.
#include "lesson_panel.hpp"
#include "panels.hpp"

#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/progress_text.hpp>

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace alibi::imgui {

namespace {

enum Column {
    kHead,
    kSlope,
    kHalfLife,
    kEntropy,
    kMeanDistance,
    kDistance50,
    kDistance90,
    kMeanEntropy,
    kMeanMeanDistance,
    kColumnCount
};

double columnValue(const HeadStats& s, int column) {
    switch (column) {
        case kHead:
            return s.head;
        case kSlope:
            return s.slope;
        case kHalfLife:
            return s.halfLife;
        case kEntropy:
            return s.row.entropy;
        case kMeanDistance:
            return s.row.meanDistance;
        case kDistance50:
            return s.row.distance50;
        case kDistance90:
            return s.row.distance90;
        case kMeanEntropy:
            return s.mean.entropy;
        case kMeanMeanDistance:
            return s.mean.meanDistance;
        default:
            return 0.0;
    }
}

void sortRows(AppState& state, const std::vector<HeadStats>& heads) {
    state.statsOrder.resize(heads.size());
    std::iota(state.statsOrder.begin(), state.statsOrder.end(), 0);
    const int column = state.statsSortColumn;
    const bool ascending = state.statsSortAscending;
    std::stable_sort(state.statsOrder.begin(), state.statsOrder.end(), [&](int a, int b) {
        const double x = columnValue(heads[a], column);
        const double y = columnValue(heads[b], column);
        return ascending ? x < y : x > y;
    });
}

// The averages cost rows x H x K softmax terms; the user trades their precision for speed.
void drawRowsControl(AppState& state) {
    // At the right of the header's line when it fits there, else on a line of its own (a long
    // header at a presentation font would run under the slider).
    const float room = ImGui::GetFontSize() * 6.0f + ImGui::GetStyle().ItemInnerSpacing.x +
                       ImGui::CalcTextSize("rows averaged").x + ImGui::GetStyle().FramePadding.x;
    const float at = ImGui::GetWindowContentRegionMax().x - room;
    if (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetStyle().ItemSpacing.x <= at)
        ImGui::SameLine(at);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    // 0: the core's choice (statsRowsToAverage), as many rows as keep the statistics quick.
    const std::int64_t lo = 0;
    const std::int64_t hi = 1024;
    ImGui::SliderScalar("rows averaged", ImGuiDataType_S64, &state.statsMaxRows, &lo, &hi,
                        state.statsMaxRows == 0 ? "auto" : "%lld",
                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
}

}  // namespace

void drawStatsPanel(AppState& state, const Model& model) {
    const StatsOutcome* outcome = model.stats.get();
    if (outcome == nullptr) {
        ImGui::TextDisabled("%s", explore::progressText(explore::ProgressPhase::Computing,
                                                        model.detailsProgress > 0 ? model.detailsProgress : -1.0,
                                                        model.detailsSecondsLeft)
                                      .c_str());
        drawRowsControl(state);
        return;
    }
    if (!outcome->error.empty()) {
        coreErrorText(outcome->error);
        drawRowsControl(state);
        return;
    }
    const StatsResult& stats = outcome->stats;
    if (const std::string note = explore::batchScopeNote(state.session.batch, state.session.batchRow); !note.empty())
        ImGui::TextDisabled("%s", note.c_str());
    ImGui::Text("row %lld; means over %lld rows; %.1f ms in the core", static_cast<long long>(stats.queryRow),
                static_cast<long long>(stats.rowsAveraged), outcome->coreMs);
    if (model.statsPending) {
        ImGui::SameLine();
        ImGui::TextDisabled("  %s", explore::progressText(explore::ProgressPhase::Updating,
                                                          model.detailsProgress > 0 ? model.detailsProgress : -1.0,
                                                          model.detailsSecondsLeft)
                                        .c_str());
    }
    drawRowsControl(state);

    // Narrow windows (1280x720, a large zoom) scroll the table sideways instead of squeezing
    // every column until its numbers are cut; the head column stays in view.
    const bool narrow = ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 52.0f;
    const ImGuiTableFlags flags =
        ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
        ImGuiTableFlags_Resizable |
        (narrow ? ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit : ImGuiTableFlags_SizingStretchProp);
    // The two layouts are two tables: widths from one must not carry over to the other.
    // Whole rows: the header and as many rows as fit, and the sideways scroll bar (its last row was
    // cut in half by the view's bottom at 1280x720; the table scrolls by rows).
    const float rowPitch = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
    const float scrollBar = narrow ? ImGui::GetStyle().ScrollbarSize : 0.0f;
    const float rows = std::floor((ImGui::GetContentRegionAvail().y - scrollBar) / rowPitch);
    const ImVec2 tableSize(0.0f, std::max(2.0f, rows) * rowPitch + scrollBar);
    if (!ImGui::BeginTable(narrow ? "stats narrow" : "stats", kColumnCount, flags, tableSize)) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("head", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_WidthFixed,
                            ImGui::CalcTextSize("head 0000").x, kHead);
    // Narrow: each column as wide as its header or its widest number ("%.6g" of a slope), so
    // nothing is cut; the table scrolls sideways instead.
    const float number = ImGui::CalcTextSize("0.00390625").x;
    const auto column = [&](const char* name, float weight, int id) {
        if (narrow)
            ImGui::TableSetupColumn(name, ImGuiTableColumnFlags_WidthFixed,
                                    std::max(number, ImGui::CalcTextSize(name).x + ImGui::GetFontSize()), id);
        else
            ImGui::TableSetupColumn(name, 0, weight, id);
    };
    column("slope m", 1.0f, kSlope);
    column("half-life", 1.0f, kHalfLife);
    column("entropy", 1.0f, kEntropy);
    column("mean d", 1.0f, kMeanDistance);
    column("d50%", 1.0f, kDistance50);
    column("d90%", 1.0f, kDistance90);
    column("avg entropy", 1.1f, kMeanEntropy);
    column("avg mean d", 1.1f, kMeanMeanDistance);
    ImGui::TableHeadersRow();

    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs != nullptr && specs->SpecsCount > 0) {
        state.statsSortColumn = static_cast<int>(specs->Specs[0].ColumnUserID);
        state.statsSortAscending = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
        specs->SpecsDirty = false;
    }
    sortRows(state, stats.heads);

    const int heads = static_cast<int>(stats.heads.size());
    ImGuiListClipper clipper;
    clipper.Begin(heads);
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const HeadStats& s = stats.heads[state.statsOrder[r]];
            ImGui::TableNextRow();
            if (s.head == state.hoveredHead)
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(255, 96, 64, 70));
            else if (lessonMarks(state.lessonMark, s.head))
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, kLessonRowColor);
            ImGui::TableNextColumn();
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const float line = ImGui::GetTextLineHeight();
            ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + 8, p.y + line - 3),
                                                      headColor(s.head, heads));
            ImGui::SetCursorScreenPos(ImVec2(p.x + 12, p.y));
            ImGui::Text("%d", s.head);
            ImGui::TableNextColumn();
            ImGui::Text("%.6g", s.slope);
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", s.halfLife);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", s.row.entropy);
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", s.row.meanDistance);
            ImGui::TableNextColumn();
            ImGui::Text("%.0f", s.row.distance50);
            ImGui::TableNextColumn();
            ImGui::Text("%.0f", s.row.distance90);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", s.mean.entropy);
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", s.mean.meanDistance);
            // Whole-row hover: the row's rectangle spans from the first cell to the last.
            const float rowTop = p.y;
            const float rowBottom = p.y + line + ImGui::GetStyle().CellPadding.y;
            const ImVec2 mouse = ImGui::GetIO().MousePos;
            if (ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && mouse.y >= rowTop && mouse.y < rowBottom)
                state.nextHoveredHead = s.head;
        }
    }
    ImGui::EndTable();
}

}  // namespace alibi::imgui
