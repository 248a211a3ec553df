// The attention stages view: one query row of the selected head through the four steps of ALiBi
// attention (content logits, + bias, masked, softmax), as four plots side by side, from the
// core's attentionStages. Stages 2 and 3 hide the keys that hold the mask value (drawn, -1e9 would
// flatten the ALiBi slope); each plot says how many keys it hides. The per-head statistics table
// sits beneath (the Explorer's layout), as in the Qt explorer.
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <alibi/explore/progress_text.hpp>
#include <alibi/explore/stages.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

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
void drawStage(int n, const StagesResult& result, const Session& /*session*/, ImVec2 size, std::int64_t marked) {
    const AttentionStages& stages = result.stages;
    const std::vector<double>* rows[4] = {&stages.content, &stages.withBias, &stages.masked, &stages.probabilities};
    const std::vector<double>& values = *rows[n];
    // Every panel spans the same keys (up to the query where the mode masks); -inf is not drawn.
    const explore::StageKeySpan span = explore::stageKeySpan(result.request.attention, result.request.query);
    const std::size_t shown =
        static_cast<std::size_t>(std::min<std::int64_t>(span.last + 1, static_cast<std::int64_t>(values.size())));
    Series series;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t j = 0; j < shown; ++j) {
        const double v = std::isfinite(values[j]) ? values[j] : std::numeric_limits<double>::quiet_NaN();
        series.x.push_back(static_cast<double>(j));
        series.y.push_back(v);
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (!(lo <= hi)) lo = hi = 0.0;
    if (n == 3) lo = 0.0;
    // Bars stand on zero: the range holds it, else the value at an end of the range (llm-foundry's
    // largest logit, -2 with all logits negative) would get a bar of no height.
    if (shown <= 64) {
        lo = std::min(lo, 0.0);
        hi = std::max(hi, 0.0);
    }
    if (hi - lo < 1e-12) {
        lo -= 0.5;
        hi += 0.5;
    }
    PlotAxes axes;
    axes.title = kStagePlots[n].title;
    axes.xLabel = "key j";
    axes.yLabel = kStagePlots[n].yLabel;
    axes.xMin = -0.5;
    axes.xMax = static_cast<double>(std::max<std::size_t>(shown, 1)) - 0.5;
    axes.yMin = lo;
    axes.yMax = hi;
    PlotCanvas canvas(axes, size);
    const ImU32 color = IM_COL32(88, 166, 255, 255);
    if (shown <= 64) {
        // Few keys: one bar per key, from zero (or the axis) to the value.
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const double base = std::clamp(0.0, lo, hi);
        for (std::size_t j = 0; j < shown; ++j) {
            if (!std::isfinite(series.y[j])) continue;
            const ImVec2 a = canvas.toScreen(static_cast<double>(j) - 0.35, base);
            const ImVec2 b = canvas.toScreen(static_cast<double>(j) + 0.35, series.y[j]);
            draw->AddRectFilled(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                                ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)),
                                static_cast<std::int64_t>(j) == marked ? kLessonColor : color);
        }
    } else {
        canvas.drawSeries(series, color, 1.5f);
    }
    if (marked >= 0 && marked < static_cast<std::int64_t>(shown)) {
        // The column frame shows the key even where its bar is zero or masked (as in the Qt explorer).
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const double half = shown <= 64 ? 0.5 : 0.0;
        const ImVec2 a = canvas.toScreen(static_cast<double>(marked) - half, hi);
        const ImVec2 b = canvas.toScreen(static_cast<double>(marked) + half, lo);
        const float grow = std::max(0.0f, (8.0f - std::abs(b.x - a.x)) / 2);
        const ImVec2 c0(std::min(a.x, b.x) - grow, std::min(a.y, b.y)),
            c1(std::max(a.x, b.x) + grow, std::max(a.y, b.y));
        draw->AddRect(c0, c1, IM_COL32(0, 0, 0, 160), 0.0f, 0, 5.0f);
        draw->AddRect(c0, c1, kLessonColor, 0.0f, 0, 3.0f);
    }
    const std::string note = explore::stageNote(result.request.attention, result.request.query, n, values);
    ImGui::TextDisabled("%s", note.empty() ? " " : note.c_str());
    (void)result;
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
    ImGui::SameLine();
    ImGui::TextWrapped(
        "Query row i = %lld of head %d (m = %s). Softmax turns the biased, masked logits into "
        "probabilities; the temperature %s divides the logits first.",
        static_cast<long long>(result->request.query), result->request.head, valueText(result->slope).c_str(),
        valueText(result->request.attention.content.temperature).c_str());
    if (!result->error.empty()) {
        coreErrorText(result->error);
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    // Four plots in a row when there is room, else two by two; a shallow panel (1280x720 with a
    // lesson strip) keeps one row, or two rows would leave each plot a few pixels high.
    const float em = ImGui::GetFontSize();
    const bool shallow = avail.y < 24.0f * em;
    const int columns = avail.x >= 4 * 16.0f * em || (shallow && avail.x >= 4 * 10.0f * em) ? 4 : 2;
    const int rows = 4 / columns;
    const ImVec2 size((avail.x - spacing * static_cast<float>(columns - 1)) / static_cast<float>(columns),
                      std::max(80.0f, (avail.y - rows * line) / static_cast<float>(rows) - spacing));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const LessonMark& mark = state.lessonMark;
    const std::int64_t marked =
        mark.cellHead >= 0 && mark.cellHead == result->request.head && mark.query == result->request.query ? mark.key
                                                                                                           : -1;
    for (int n = 0; n < 4; ++n) {
        if (n % columns != 0) ImGui::SameLine();
        ImGui::BeginGroup();
        drawStage(n, *result, state.session, size, marked);
        ImGui::EndGroup();
    }
    if (model.stagesPending)
        drawStaleMark(origin, ImVec2(origin.x + avail.x, origin.y + rows * (size.y + line)), model.detailsProgress,
                      model.detailsSecondsLeft);
}

}  // namespace alibi::imgui
