// The attention stages view: one query row of the selected head through the four steps of ALiBi
// attention (content logits, + bias, masked, softmax), as four plots side by side, from the
// core's attentionStages. Stages 2 and 3 hide the keys that hold the mask value (drawn, -1e9 would
// flatten the ALiBi slope); each plot says how many keys it hides. The per-head statistics table
// sits beneath (the Explorer's layout), as in the Qt explorer.
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <alibi/explore/progress_text.hpp>
#include <alibi/explore/stages.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/plot_ranges.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace alibi::imgui {

namespace {

struct StagePlot {
    const char* title;
    const char* yLabel;
};
constexpr StagePlot kStagePlots[4] = {{"1 - content logits", "logit"},
                                      {"2 - + ALiBi bias", "logit + bias"},
                                      {"3 - masked", "masked logit"},
                                      {"4 - softmax", "probability"}};

// `marked`: the key a lesson step points at (its bar orange, its column framed); -1: none.
const std::vector<double>& stageValues(const AttentionStages& stages, int n) {
    const std::vector<double>* rows[4] = {&stages.content, &stages.withBias, &stages.masked, &stages.probabilities};
    return *rows[n];
}

// The core's note under stage `n` ("3 masked keys not drawn"), a space when it has none.
std::string stageNote(const StagesResult& result, int n) {
    const std::string note =
        explore::stageNote(result.request.attention, result.request.query, n, stageValues(result.stages, n));
    return note.empty() ? std::string(" ") : note;
}

// The narrowest a stage plot gets: its key axis' tick labels ("10" and "15" of 16 keys) a
// quarter em apart at least (at 150 px they read "1015", the s39 review's F12).
float minStageWidth() {
    return ImGui::GetFontSize() * 12.0f;
}

// Where the four plots go in `avail`: four in a row or two by two, whichever gives each plot's
// data area the more room (its height against half its width: bars are read by their height),
// each at least minStageWidth wide and kMinPlotHeight tall (the s39 review: 25 px tall panels
// with their ticks on each other, F4; the 4th panel off the window's right edge, F14). When
// neither fits, the plots keep their least height and the view scrolls.
struct StageGrid {
    int columns = 4;
    ImVec2 size;
    float noteHeight = 0;
};
// Whether stage `note` fits on its plot's x label line, left of "key j" (PlotCanvas writes the
// label right-aligned on the line under the tick labels; its left is free): then it takes no line
// of its own (at 1280x720 with the Parameters panel a line under each row of plots was the room
// two rows needed).
bool noteOnAxisLine(const std::string& note, float width) {
    const float em = ImGui::GetFontSize();
    return ImGui::CalcTextSize(note.c_str()).x + em + ImGui::CalcTextSize("key j").x + 4.0f <=
           width - std::max(10.0f, em * 0.7f);
}

StageGrid stageGrid(ImVec2 avail, const std::array<std::string, 4>& notes) {
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float spacingY = ImGui::GetStyle().ItemSpacing.y;
    // The plot's margins, and a line more where a plot puts its y axis' label on a line of its own
    // (a title and its label wider than the plot, as PlotCanvas decides).
    const auto overhead = [](float width) {
        float widest = 0;
        for (const StagePlot& p : kStagePlots)
            widest = std::max(
                widest, 4.0f + ImGui::CalcTextSize(p.title).x + ImGui::GetFontSize() + ImGui::CalcTextSize(p.yLabel).x);
        const float margin = std::max(10.0f, ImGui::GetFontSize() * 0.7f);  // PlotCanvas' right margin
        return plotHeightForFrame(0.0f) + (widest > width - margin ? ImGui::GetTextLineHeight() : 0.0f);
    };
    StageGrid best;
    float bestScore = -1e9f;
    bool bestFits = false;
    for (const int columns : {4, 2}) {
        const int rows = 4 / columns;
        StageGrid g;
        g.columns = columns;
        g.size.x = std::floor((avail.x - spacing * static_cast<float>(columns - 1)) / static_cast<float>(columns));
        for (const std::string& note : notes)
            if (!noteOnAxisLine(note, g.size.x))
                g.noteHeight =
                    std::max(g.noteHeight, ImGui::CalcTextSize(note.c_str(), nullptr, false, g.size.x).y + spacingY);
        g.size.y =
            std::floor((avail.y - static_cast<float>(rows) * (g.noteHeight + spacingY)) / static_cast<float>(rows));
        const float frame = g.size.y - overhead(g.size.x);
        const float dataWidth = g.size.x - ImGui::GetFontSize() * 5.0f;
        const bool fits = g.size.x >= minStageWidth() && frame >= kMinPlotHeight;
        const float score = std::min(frame, dataWidth * 0.5f);
        if ((fits && !bestFits) || (fits == bestFits && score > bestScore)) {
            best = g;
            bestScore = score;
            bestFits = fits;
        }
    }
    if (!bestFits) {
        // Nothing fits: two by two at the least readable height (the view scrolls to the rest).
        best.columns = avail.x >= 4.0f * minStageWidth() + 3.0f * spacing ? 4 : 2;
        best.size.x =
            std::floor((avail.x - spacing * static_cast<float>(best.columns - 1)) / static_cast<float>(best.columns));
        best.size.y = std::max(best.size.y, kMinPlotHeight + overhead(best.size.x));
    }
    return best;
}

void drawStage(int n, const StagesResult& result, ImVec2 size, std::int64_t marked, const std::string& note) {
    const AttentionStages& stages = result.stages;
    const std::vector<double>& values = stageValues(stages, n);
    // Every panel spans the same keys (up to the query where the mode masks); -inf is not drawn.
    const explore::StageKeySpan span = explore::stageKeySpan(result.request.attention, result.request.query);
    const std::size_t shown =
        static_cast<std::size_t>(std::min<std::int64_t>(span.last + 1, static_cast<std::int64_t>(values.size())));
    Series series;
    for (std::size_t j = 0; j < shown; ++j) {
        series.x.push_back(static_cast<double>(j));
        series.y.push_back(std::isfinite(values[j]) ? values[j] : std::numeric_limits<double>::quiet_NaN());
    }
    // The core's axes for a stage (bars up to 64 keys, standing on 0; the softmax from 0), as
    // Qt and the figure draw it.
    const PlotStyle style = stagePanelAxes(n, shown);
    PlotAxes axes = styleAxes(style, plotRanges({series}, style));
    axes.title = kStagePlots[n].title;
    axes.xLabel = "key j";
    axes.yLabel = kStagePlots[n].yLabel;
    const double lo = axes.yMin, hi = axes.yMax;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    PlotCanvas canvas(axes, size);
    const ImU32 color = IM_COL32(88, 166, 255, 255);
    if (style.bars) {
        // Few keys: one bar per key, from zero (or the axis) to the value.
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const double base = std::clamp(0.0, lo, hi);
        for (std::size_t j = 0; j < shown; ++j) {
            if (!std::isfinite(series.y[j])) continue;
            const ImVec2 a = canvas.toScreen(static_cast<double>(j) - 0.35, base);
            const ImVec2 b = canvas.toScreen(static_cast<double>(j) + 0.35, series.y[j]);
            // Whole pixels from the base, a value off the base 1 px at least: a bar half a pixel
            // tall was drawn or not by where the plot sat (lesson 4's softmax panel, "exactly what
            // it was" in steps 1 to 3, lost keys 0 and 1, p = 0.0018 and 0.0014, in step 1 only:
            // the s40 review's L5).
            const float baseY = std::round(a.y);
            float length = std::round(std::abs(b.y - a.y));
            if (series.y[j] != base && length < 1.0f) length = 1.0f;
            const float endY = b.y < a.y ? baseY - length : baseY + length;
            draw->AddRectFilled(ImVec2(std::min(a.x, b.x), std::min(baseY, endY)),
                                ImVec2(std::max(a.x, b.x), std::max(baseY, endY)),
                                static_cast<std::int64_t>(j) == marked ? kLessonColor : color);
        }
    } else {
        canvas.drawSeries(series, color, 1.5f);
    }
    if (marked >= 0 && marked < static_cast<std::int64_t>(shown)) {
        // The column frame shows the key even where its bar is zero or masked (as in the Qt explorer).
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const double half = style.bars ? 0.5 : 0.0;
        const ImVec2 a = canvas.toScreen(static_cast<double>(marked) - half, hi);
        const ImVec2 b = canvas.toScreen(static_cast<double>(marked) + half, lo);
        const float grow = std::max(0.0f, (8.0f - std::abs(b.x - a.x)) / 2);
        const ImVec2 c0(std::min(a.x, b.x) - grow, std::min(a.y, b.y)),
            c1(std::max(a.x, b.x) + grow, std::max(a.y, b.y));
        draw->AddRect(c0, c1, IM_COL32(0, 0, 0, 160), 0.0f, 0, 5.0f);
        draw->AddRect(c0, c1, kLessonColor, 0.0f, 0, 3.0f);
    }
    if (noteOnAxisLine(note, size.x)) {
        // On the x label's line (PlotCanvas: the frame's bottom margin is two lines and 4 px, the
        // label's line the second), at the left.
        const float line = ImGui::GetTextLineHeight();
        const float bottomMargin = std::max(34.0f, line * 2.0f + 4.0f);
        ImGui::GetWindowDrawList()->AddText(ImVec2(origin.x + 4.0f, origin.y + size.y - bottomMargin + line + 2.0f),
                                            ImGui::GetColorU32(ImGuiCol_TextDisabled), note.c_str());
        return;
    }
    // Wrapped at the plot's width: a note wider than its plot pushed the next plot right.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
    ImGui::TextUnformatted(note.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

}  // namespace

void drawStagesView(AppState& state, const Model& model) {
    const int heads = state.session.attention.bias.slopes.heads;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    int head = detailHead(state.session);
    if (ImGui::SliderInt("head##stages", &head, 0, heads - 1, "%d", ImGuiSliderFlags_AlwaysClamp))
        state.session.head = head;
    const StagesResult* result = model.stages.get();
    if (result == nullptr) {
        ImGui::TextDisabled("%s", explore::progressText(explore::ProgressPhase::Computing,
                                                        model.detailsProgress > 0 ? model.detailsProgress : -1.0,
                                                        model.detailsSecondsLeft)
                                      .c_str());
        return;
    }
    const std::string about = fmt::format(
        "Query row i = {} of head {} (m = {}). Softmax turns the biased, masked logits into probabilities; the "
        "temperature {} divides the logits first.",
        result->request.query, result->request.head, valueText(result->slope),
        valueText(result->request.attention.content.temperature));
    ImGui::SameLine();
    if (state.lessonOpen) {
        // Under a lesson strip the plots need the height (the step's text says what they show):
        // the row and slope on the slider's line, the sentence in a tooltip.
        ImGui::TextDisabled("query i = %lld, m = %s (?)", static_cast<long long>(result->request.query),
                            valueText(result->slope).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", about.c_str());
    } else {
        textWrappedAtSpaces(about);
    }
    if (!result->error.empty()) {
        coreErrorText(result->error);
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    std::array<std::string, 4> notes;
    for (int n = 0; n < 4; ++n) notes[static_cast<std::size_t>(n)] = stageNote(*result, n);
    const StageGrid grid = stageGrid(avail, notes);
    const int columns = grid.columns;
    const int rows = 4 / columns;
    const ImVec2 size = grid.size;
    const float line = grid.noteHeight + ImGui::GetStyle().ItemSpacing.y;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const LessonMark& mark = state.lessonMark;
    const std::int64_t marked =
        mark.cellHead >= 0 && mark.cellHead == result->request.head && mark.query == result->request.query ? mark.key
                                                                                                           : -1;
    for (int n = 0; n < 4; ++n) {
        if (n % columns != 0) ImGui::SameLine();
        ImGui::BeginGroup();
        drawStage(n, *result, size, marked, notes[static_cast<std::size_t>(n)]);
        ImGui::EndGroup();
    }
    if (model.stagesPending)
        drawStaleMark(origin, ImVec2(origin.x + avail.x, origin.y + rows * (size.y + line)), model.detailsProgress,
                      model.detailsSecondsLeft);
}

}  // namespace alibi::imgui
