// The extrapolation view: how the selected head's attention (last query row) changes as T grows
// from the training length L to 16 L, the head at T = L, and a table of the attention mass beyond
// distance L per head and length, all from the explore layer's computeExtrapolation.
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "marked_rows.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <imgui_internal.h>

#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace alibi::imgui {

namespace {

// `thick`: the head is one a lesson step points at, drawn thick as the curves view draws it.
// `cited`: the step cites the plot (the layout test wants it readable).
void drawCurves(const explore::ExtrapolationSnapshot& e, ImVec2 size, bool thick, bool cited) {
    PlotAxes axes = kindAxes(PlotKind::Extrapolation, e.curves);
    const std::string title = fmt::format("head {}: attention vs distance as T grows", e.head);
    axes.title = title.c_str();
    axes.xLabel = explore::kExtrapolationDistanceAxis;
    axes.yLabel = "probability";
    axes.cited = cited;
    // The lengths' legend right of the plot, one entry a row (a row of entries under the plot
    // took a line of its height).
    const int count = static_cast<int>(e.curves.size());
    for (int n = 0; n < count; ++n) axes.legend.push_back({e.curves[n].label, headColor(n, std::max(count, 2)), true});
    PlotCanvas canvas(axes, ImVec2(size.x, std::max(size.y, 16.0f)));
    // Lengths whose curves are the same line (a steep head's at every T) are dashed in turn.
    std::vector<ImU32> colors;
    for (int n = 0; n < count; ++n) colors.push_back(headColor(n, std::max(count, 2)));
    canvas.drawSeriesInTurn(e.curves, colors, thick ? 4.5f : 1.5f);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    // The training length L: a dark dashed line, labelled at the top.
    if (const double L = static_cast<double>(e.trainLength); L > 0 && L <= axes.xMax) {
        const ImVec2 top = canvas.toScreen(L, axes.yMax), bottom = canvas.toScreen(L, axes.yMin);
        const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
        for (float y = top.y; y < bottom.y; y += 8.0f)
            draw->AddLine(ImVec2(top.x, y), ImVec2(top.x, std::min(y + 4.0f, bottom.y)), ink, 1.5f);
        const std::string label = fmt::format("L = {}", e.trainLength);
        draw->AddText(ImVec2(top.x + 4.0f, top.y + 2.0f), ink, label.c_str());
    }
}

// A length's column of the mass table: "T = 1024" under the caption saying what the numbers are
// (the header "beyond L at T = 1024" made the table wider than the view with the Parameters panel
// open, and the T = 1024 column a lesson step quotes scrolled off, the s39 review's F10).
std::string massHeader(std::int64_t t) {
    return fmt::format("T = {}", t);
}
constexpr const char* kMassCaption = "Attention mass beyond distance L, per head, at each length T:";

// The mass table's columns as drawMassTable sizes them (their widest texts, cell padding, borders).
float massTableWidth(const explore::ExtrapolationSnapshot& e) {
    const float pad = 2.0f * ImGui::GetStyle().CellPadding.x + 1.0f;
    const auto column = [pad](const std::string& label, const char* widest) {
        return std::max(ImGui::CalcTextSize(label.c_str()).x, ImGui::CalcTextSize(widest).x) + pad;
    };
    float width = column("head", "0000") + column("slope m", "1/65536") + 1.0f;
    for (std::int64_t t : e.lengths) width += column(massHeader(t), "100.00%");
    return width;
}

void drawMassTable(AppState& state, const ExtrapolationResult& result) {
    const LessonMark& mark = state.lessonMark;
    const explore::ExtrapolationSnapshot& e = result.snapshot;
    const int columns = 2 + static_cast<int>(e.lengths.size());
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
    // A whole number of rows in the room (a half row cut at the scroll edge read as a row of
    // numbers cut off): the header, the rows' pitch (as measured last frame, estimated before), a
    // sideways scroll bar when the columns are wider than the view, the borders.
    ImGui::TextDisabled("%s", kMassCaption);
    const ImVec2 room = ImGui::GetContentRegionAvail();
    const float row = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y + 1.0f;
    static float measuredPitch = 0.0f, measuredHeader = 0.0f;  // last frame's (the style's, not the data's)
    const float pitch = measuredPitch > 0.0f ? measuredPitch : row + 1.0f;
    const float header = measuredHeader > 0.0f ? measuredHeader : row + 1.0f;
    const float scrollBar = massTableWidth(e) > room.x ? ImGui::GetStyle().ScrollbarSize : 0.0f;
    const float whole = std::floor((room.y - header - scrollBar - 2.0f) / pitch);
    // Every row when they fit (the table as tall as they are: filling the room left a part row
    // of empty space under them), else the whole rows that fit.
    const float all = static_cast<float>(e.massBeyond.size());
    const float height = whole >= all    ? header + all * pitch + scrollBar + 1.0f  // the bottom border
                         : whole >= 1.0f ? header + whole * pitch + scrollBar + 2.0f
                                         : 0.0f;
    if (!ImGui::BeginTable("mass beyond L", columns, flags, ImVec2(0.0f, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    // Widths from the header texts: fitted to the contents, the columns were sized while the
    // table was still empty and stayed a few pixels wide.
    const auto fixedColumn = [](const char* label, const char* widest) {
        const float width = std::max(ImGui::CalcTextSize(label).x, ImGui::CalcTextSize(widest).x);
        ImGui::TableSetupColumn(label, ImGuiTableColumnFlags_WidthFixed, width);
    };
    fixedColumn("head", "0000");
    fixedColumn("slope m", "1/65536");
    std::vector<std::string> headers;
    for (std::int64_t t : e.lengths) headers.push_back(massHeader(t));
    for (const std::string& h : headers) fixedColumn(h.c_str(), "100.00%");
    ImGui::TableHeadersRow();
    beginMarkedRows(state.extrapolationRows);
    float firstRowTop = 0.0f;
    for (std::size_t h = 0; h < e.massBeyond.size(); ++h) {
        ImGui::TableNextRow();
        if (const ImGuiTable* table = ImGui::GetCurrentTable(); table != nullptr && h < 2) {
            if (h == 0) {
                firstRowTop = table->RowPosY1;
                measuredHeader = table->RowPosY1 + ImGui::GetScrollY() - table->OuterRect.Min.y;
            } else {
                measuredPitch = table->RowPosY1 - firstRowTop;
            }
        }
        if (lessonMarks(mark, static_cast<int>(h))) {
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, kLessonRowColor);
            noteMarkedRow(state.extrapolationRows, static_cast<int>(h));
        } else if (static_cast<int>(h) == e.head)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(255, 96, 64, 60));
        ImGui::TableNextColumn();
        ImGui::Text("%zu", h);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(h < result.slopes.size() ? alibi::formatSlope(result.slopes[h]).c_str() : "");
        for (double mass : e.massBeyond[h]) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(alibi::formatPercent(mass).c_str());
        }
    }
    // The step's heads in view once per step shown (the text names them), then the user scrolls.
    scrollToMarkedRows(state.extrapolationRows, state.lessonStep);
    const MarkedRows& rows = state.extrapolationRows;
    for (std::size_t i = 0; i < rows.rows.size(); ++i)
        noteMarkedTableRow("mass beyond L", static_cast<int>(i), rows.rows[i].top, rows.rows[i].bottom,
                           rows.visible.top, rows.visible.bottom);
    ImGui::EndTable();
}

}  // namespace

void drawExtrapolationView(AppState& state, const Model& model) {
    Session& session = state.session;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    std::int64_t length = session.trainLength;
    // Typed as a whole: applied on Enter or when the field loses focus.
    if (ImGui::InputScalar("training length L (0: T)", ImGuiDataType_S64, &length, nullptr, nullptr, "%lld",
                           ImGuiInputTextFlags_EnterReturnsTrue) ||
        ImGui::IsItemDeactivatedAfterEdit())
        session.trainLength = std::clamp<std::int64_t>(length, 0, kMaxLength);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    int head = detailHead(session);
    if (ImGui::SliderInt("head##extrapolation", &head, 0, session.attention.bias.slopes.heads - 1, "%d",
                         ImGuiSliderFlags_AlwaysClamp))
        session.head = head;

    const ExtrapolationResult* result = model.extrapolation.get();
    if (result == nullptr) {
        ImGui::TextDisabled("Computing the extrapolation curves...");
        return;
    }
    const explore::ExtrapolationSnapshot& e = result->snapshot;
    if (!e.error.empty()) {
        coreErrorText(e.error);
        return;
    }
    const std::vector<int>& marked = state.lessonMark.heads;
    const std::string about = fmt::format(
        "Last query row at each length, T = L = {} to {}. The table gives the attention mass beyond distance L.",
        e.trainLength, e.lengths.empty() ? e.trainLength : e.lengths.back());
    if (state.lessonOpen) {
        // A lesson step says what the view shows (lesson 3 cites the plot, then the table's rows):
        // the lines go to the plot and the table, the sentence to a tooltip on the controls' line
        // (with the Parameters panel open at 1280x720 the cited plot was 99 px tall under it).
        ImGui::SameLine();
        ImGui::TextDisabled("(?)");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", about.c_str());
    } else {
        textWrappedAtSpaces(about);
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // The plots take 60 % of the height, less where the table needs more for the rows a lesson
    // step marks (its header, the marked rows and the rows between them, a scroll bar): they all
    // show when the step is shown.
    float upper = std::floor(avail.y * 0.6f);
    const float row = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y + 1.0f;
    // A lesson step marking one head at most talks about its curves (lesson 3 steps 1 to 3): the
    // plot gets a readable height, the table at least its header and the marked row.
    const bool citesPlot = state.lessonOpen && marked.size() <= 1;
    // The table's caption line above it.
    const float caption = ImGui::GetTextLineHeightWithSpacing();
    if (citesPlot) {
        // The table keeps its caption, header and one whole row (the marked one scrolled to), a
        // sideways scroll bar if it needs one (the s39 review: the row under the scroll bar).
        const float scrollBar = massTableWidth(e) > avail.x ? ImGui::GetStyle().ScrollbarSize : 0.0f;
        const MarkedRows& rows = state.extrapolationRows;
        const float pitch = rows.rowPitch > 0.0f ? rows.rowPitch : row + 1.0f;
        const float header = rows.headerHeight > 0.0f ? rows.headerHeight + 1.0f : row + 1.0f;
        const float table = caption + header + pitch + scrollBar + ImGui::GetStyle().ItemSpacing.y + 2.0f;
        upper = std::max(upper, std::min(plotHeightForFrame(kMinCitedPlotHeight), avail.y - table));
    } else if (!marked.empty()) {
        const auto [lo, hi] = std::minmax_element(marked.begin(), marked.end());
        // A sideways scroll bar only when the columns are wider than the view.
        const float scrollBar = massTableWidth(e) > avail.x ? ImGui::GetStyle().ScrollbarSize : 0.0f;
        // The rows' pitch and the header's height as measured last frame (estimated before).
        const MarkedRows& rows = state.extrapolationRows;
        const float pitch = rows.rowPitch > 0.0f ? rows.rowPitch : row + 1.0f;
        const float header = rows.headerHeight > 0.0f ? rows.headerHeight + 1.0f : row + 1.0f;
        const float table = caption + header + pitch * static_cast<float>(*hi - *lo + 1) + scrollBar +
                            ImGui::GetStyle().ItemSpacing.y + 2.0f;  // the gap above, the borders
        // The rest goes to the plots (lesson 3 steps 4 and 5 speak of the table "under the plots":
        // both show, the plot as tall as the marked rows leave it).
        upper = std::floor(std::max(avail.y - table, avail.y * 0.35f));
    }
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight();
    // A step citing the plot in a short view (1280x720 with the Parameters panel open: 129 px for
    // the plot) leaves the head at T = L out, which no step cites: the plot takes the width, its
    // title and axis name share a line, and it gets the height the layout check wants.
    if (citesPlot && upper < plotHeightForFrame(kMinCitedPlotHeight) + line) {
        drawCurves(e, ImVec2(avail.x, upper), lessonMarks(state.lessonMark, e.head), true);
        if (model.extrapolationPending) drawStaleMark(origin, ImVec2(origin.x + avail.x, origin.y + upper), 0.0f);
        drawMassTable(state, *result);
        return;
    }
    // The head at T = L (left) with its colour bar (the core's, as Qt's: the map's range), the
    // curves (right).
    const float side0 = std::max(16.0f, std::min(upper - ImGui::GetTextLineHeightWithSpacing(), avail.x * 0.38f));
    alibi::ColorBar bar = alibi::heatmapColorBar(e.headAtL, e.headAtLParams, -1, colorBarTicks(side0 - 3.4f * line));
    const float barWidth = colorBarWidth(bar);
    const float side = std::max(16.0f, std::min(side0, avail.x * 0.38f - barWidth));
    ImGui::BeginGroup();
    ImGui::TextDisabled("head %d at T = L", e.head);
    // Shown at the room it has (nearest-neighbour texture: cells stay crisp squares).
    const ImVec2 imageSize(side, side);
    const ImVec2 imageOrigin = ImGui::GetCursorScreenPos();
    if (model.extrapolationTexture != nullptr) {
        ImGui::Image(model.extrapolationTexture, imageSize);
    } else {
        ImGui::Dummy(imageSize);
    }
    drawColorBarBeside(model.extrapolationBarTexture, imageOrigin, imageSize, bar);
    ImGui::SameLine(0.0f, 0.0f);
    ImGui::Dummy(ImVec2(barWidth, side));  // the bar's room
    ImGui::EndGroup();
    state.extrapolationBar = std::move(bar);
    ImGui::SameLine();
    drawCurves(e, ImVec2(ImGui::GetContentRegionAvail().x, upper), lessonMarks(state.lessonMark, e.head), citesPlot);
    if (model.extrapolationPending) drawStaleMark(origin, ImVec2(origin.x + avail.x, origin.y + upper), 0.0f);
    drawMassTable(state, *result);
}

}  // namespace alibi::imgui
