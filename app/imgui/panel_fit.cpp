// The head fit view (issue 12): fit every layer's heads (all query rows or a range) on a worker
// with progress and cancel, then a sortable layer x head table of the core's per-head fit (m*, its
// interval, KL, the configured slope, sink, diagonal, entropy, mean and 90% distance: the
// columns of explore/attention_maps_view.hpp, the Qt explorer's too) and its
// export as CSV or JSON through the core's writers (the bytes `alibi fit --format csv|json`
// writes). Selecting a row shows that head in the attention maps view.
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "marked_rows.hpp"
#include "panels.hpp"
#include "view_common.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>

namespace alibi::imgui {

namespace {

// The core's verdict roles in this explorer's palette (the verdict itself is fitVerdict's).
ImVec4 verdictColor(FitVerdictRole role) {
    switch (role) {
        case FitVerdictRole::Agrees:
            return {0.45f, 0.85f, 0.45f, 1.0f};
        case FitVerdictRole::Differs:
            return {1.0f, 0.65f, 0.3f, 1.0f};
        case FitVerdictRole::Unlike:
            return {1.0f, 0.4f, 0.4f, 1.0f};
        default:
            return ImGui::GetStyleColorVec4(ImGuiCol_Text);
    }
}

void drawFitControls(AppState& state, const Model& model, const AttentionMaps& maps) {
    MapsState& s = state.maps;
    const MapsModel& m = model.maps;
    ImGui::BeginDisabled(m.fitRunning);
    // "Fit rows", every row or FIRST "to" LAST, the last included as the core's caption beside the
    // table says ("... query rows 0 to 63"): the field read 64, the request's exclusive end
    // (issue 27). Qt's fields say the same in the same words.
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Fit rows");
    ImGui::SameLine();
    if (ImGui::RadioButton("all query rows", s.fitAllRows)) s.fitAllRows = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("##some-rows", !s.fitAllRows)) s.fitAllRows = false;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("these rows (alibi fit --rows FIRST:LAST+1)");
    ImGui::SameLine();
    ImGui::BeginDisabled(s.fitAllRows);
    const std::int64_t queries = std::min<std::int64_t>(maps.queries(), 1 << 30);
    int first = static_cast<int>(s.fitFirst), last = static_cast<int>(fitLastRowIncluded(s));
    const float field = ImGui::GetFontSize() * 7.0f;
    ImGui::SetNextItemWidth(field);
    bool edited = ImGui::InputInt("##fit-first", &first, 1, 8);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Fit on query rows from this one…");
    ImGui::SameLine();
    ImGui::TextUnformatted("to");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    edited = ImGui::InputInt("##fit-last", &last, 1, 8) || edited;
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("…up to and including this one");
    if (edited) setFitRows(s, first, last, queries);
    ImGui::EndDisabled();
    sameLineIfFits(buttonWidth("Fit every layer"));
    if (ImGui::Button("Fit every layer")) s.runFit = true;
    ImGui::EndDisabled();
    if (m.fitRunning) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) s.cancelFit = true;
        ImGui::SameLine();
        ImGui::ProgressBar(m.fitProgress, ImVec2(ImGui::GetFontSize() * 10.0f, 0));
    }
    ImGui::TextDisabled("ALiBi prior: %s", m.priorNote.c_str());

    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    ImGui::InputText("##fit-export", &s.exportPath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    ImGui::SameLine();
    ImGui::BeginDisabled(m.fit == nullptr);
    if (ImGui::Button("Export CSV")) s.exportCsv = true;
    ImGui::SameLine();
    if (ImGui::Button("Export JSON")) s.exportJson = true;
    ImGui::EndDisabled();
    // Beside the buttons where it fits, else under them, wrapped: with the Parameters panel open
    // in presentation mode it ran past the window's edge ("... alibi fi", the s39 review's F9).
    const char* hint = "the same bytes as alibi fit FILE --format csv|json";
    sameLineIfFits(ImGui::CalcTextSize(hint).x);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    textWrappedAtSpaces(hint);
    ImGui::PopStyleColor();
}

void drawTable(AppState& state, const FitTableResult& fit) {
    MapsState& s = state.maps;
    using explore::FitColumn;
    constexpr int columns = explore::kFitColumnCount;
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                      ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                      ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
    s.headerRects.assign(columns, MapsRect{});
    // Cells padded a sixth of an em, not ImGui's 4 px at the zoom: seven columns' padding let the
    // vertical scroll bar cut the last compared header to "configured n" at 1280x720 with the
    // Parameters panel (the s40 review's F3).
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(std::max(2.0f, std::round(ImGui::GetFontSize() / 6.0f)),
                                                          ImGui::GetStyle().CellPadding.y));
    const bool open = ImGui::BeginTable("fit-table", columns, flags, ImGui::GetContentRegionAvail());
    ImGui::PopStyleVar();
    if (!open) return;
    ImGui::TableSetupScrollFreeze(2, 1);
    for (int c = 0; c < columns; ++c) {
        const auto column = static_cast<FitColumn>(c);
        const std::string title(explore::fitColumnTitle(column));
        // Widths from the header and the widest text the column holds (ImGui's own fit left these
        // fixed columns a few pixels wide in a scrolling table, as in the extrapolation view); the
        // texts shown, not the widest a column could hold, so the columns a lesson step compares
        // (m* against the configured m) are in view with the Parameters panel open (F9).
        float widest = 0;
        for (const HeadFit& h : fit.fits) {
            const std::string text =
                column == FitColumn::Verdict && h.rows > 0 ? fitVerdict(h).text : explore::fitCellText(h, column);
            widest = std::max(widest, ImGui::CalcTextSize(text.c_str()).x);
        }
        // The header's room for its sort arrow: ImGui's own (0.65 em and a frame's padding, its
        // TableHeader), 2 px spare; 1.2 em each took seven columns 30 px more than the arrows need.
        const float arrow = std::floor(ImGui::GetFontSize() * 0.65f + ImGui::GetStyle().FramePadding.x) + 2.0f;
        const float width = std::max(ImGui::CalcTextSize(title.c_str()).x + arrow, widest);
        ImGui::TableSetupColumn(
            title.c_str(), ImGuiTableColumnFlags_WidthFixed | (c == 0 ? ImGuiTableColumnFlags_DefaultSort : 0), width);
    }
    // Headers one by one, so each can explain itself and tell tests where it is.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < columns; ++c) {
        if (!ImGui::TableSetColumnIndex(c)) continue;
        ImGui::TableHeader(ImGui::TableGetColumnName(c));
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        s.headerRects[static_cast<std::size_t>(c)] = MapsRect{a.x, a.y, b.x - a.x, b.y - a.y};
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", std::string(explore::fitColumnToolTip(static_cast<FitColumn>(c))).c_str());
    }
    // A step marking the table's rows compares these columns (lesson 5 step 2: the verdicts, m*
    // against the configured m): the last one's title in view without scrolling sideways (the
    // header's rect starts at its cell's edge, its title a cell padding further).
    if (state.lessonOpen && s.lessonLayer >= 0 && !s.lessonMark.heads.empty()) {
        const std::string title(explore::fitColumnTitle(FitColumn::ConfiguredSlope));
        const MapsRect& header = s.headerRects[static_cast<std::size_t>(FitColumn::ConfiguredSlope)];
        noteCitedColumn("fit table", title,
                        header.x + ImGui::GetCurrentTable()->CellPaddingX + ImGui::CalcTextSize(title.c_str()).x,
                        ImGui::GetCurrentWindow()->InnerClipRect.Max.x);
    }
    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
        specs != nullptr && (specs->SpecsDirty || s.tableOrder.size() != fit.fits.size())) {
        if (specs->SpecsCount > 0) {
            s.sortColumn = specs->Specs[0].ColumnIndex;
            s.sortAscending = specs->Specs[0].SortDirection != ImGuiSortDirection_Descending;
        }
        s.tableOrder = explore::sortFits(fit.fits, static_cast<FitColumn>(s.sortColumn), s.sortAscending);
        specs->SpecsDirty = false;
    }
    // A lesson step's heads, on the layer it shows, in the lesson orange, scrolled into view once
    // per step shown (the clipper then submits them all, so their places are known).
    const auto marked = [&s](const HeadFit& h) {
        return s.lessonLayer >= 0 && h.layerIndex == s.lessonLayer && s.lessonMark.marksHead(h.head);
    };
    beginMarkedRows(s.lessonRows);
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(s.tableOrder.size()));
    if (scrollingToMarkedRows(s.lessonRows, state.lessonStep)) {
        int first = -1, last = -1;
        for (int r = 0; r < static_cast<int>(s.tableOrder.size()); ++r) {
            if (!marked(fit.fits[static_cast<std::size_t>(s.tableOrder[static_cast<std::size_t>(r)])])) continue;
            if (first < 0) first = r;
            last = r;
        }
        if (first >= 0) clipper.ForceDisplayRangeByIndices(first, last + 1);
    }
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const int index = s.tableOrder[static_cast<std::size_t>(r)];
            const HeadFit& h = fit.fits[static_cast<std::size_t>(index)];
            ImGui::TableNextRow();
            if (marked(h)) {
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, kLessonRowColor);
                noteMarkedRow(s.lessonRows);
            }
            ImGui::PushID(index);
            for (int c = 0; c < columns; ++c) {
                ImGui::TableSetColumnIndex(c);
                const auto column = static_cast<FitColumn>(c);
                const std::string text = explore::fitCellText(h, column);
                if (c == 0) {
                    // The row is one selectable: a click shows the head in the maps view.
                    if (ImGui::Selectable(
                            text.c_str(), s.selectedRow == index,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
                        s.selectedRow = index;
                        s.layer = h.layerIndex;
                        s.head = h.head;
                        s.overview = false;
                        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
                            state.view = View::Maps;
                            s.side = MapsSide::Distance;
                        }
                    }
                    if (ImGui::IsItemHovered())
                        ImGui::SetTooltip("click: this head in the maps view; double-click: go there");
                } else if (column == FitColumn::Verdict && h.rows > 0) {
                    const FitVerdict verdict = fitVerdict(h);
                    ImGui::TextColored(verdictColor(verdict.role), "%s", verdict.text.c_str());
                    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", verdict.reason.c_str());
                } else {
                    ImGui::TextUnformatted(text.c_str());
                }
            }
            ImGui::PopID();
        }
    }
    scrollToMarkedRows(s.lessonRows, state.lessonStep);
    ImGui::EndTable();
}

}  // namespace

void drawFitView(AppState& state, const Model& model) {
    const MapsOpenResult* file = model.maps.file.get();
    if (file == nullptr) {
        ImGui::TextWrapped(
            "No attention maps are open: open a file in the Attention maps view (or Help > Open "
            "example attention maps), then fit every head here.");
        return;
    }
    const AttentionMaps& maps = *file->maps;
    drawFitControls(state, model, maps);
    const FitTableResult* fit = model.maps.fit.get();
    if (fit == nullptr) {
        ImGui::TextDisabled(model.maps.fitRunning ? "fitting %d layers x %d heads..."
                                                  : "Fit every layer to fill the table (%d layers x %d heads).",
                            maps.layers(), maps.heads());
        return;
    }
    const std::string source = model.maps.configured.empty() ? std::string() : std::string("the session");
    // Wrapped (at spaces): one line ran off the view's edge with the Parameters panel open.
    textWrappedAtSpaces(
        explore::fitSummaryLine(fit->fits.size(), fit->request.first, fit->request.last, maps.queries(), source));
    drawTable(state, *fit);
}

}  // namespace alibi::imgui
