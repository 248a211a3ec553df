// The curves panel: slope per head (log2 axis), bias vs distance and attention vs distance for
// every head, drawn with ImDrawList from the series the core computed (slopeSeries,
// biasDistanceSeries, attentionDistanceSeries). The hovered head is drawn on top, thick, in every
// plot; hovering a plot's slope points picks a head too.
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"

#include <alibi/explore/batch_view.hpp>

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// Draws every head faded, then the highlighted head on top.
void drawFamily(const PlotCanvas& canvas, const std::vector<Series>& series, int highlight, const LessonMark& lesson) {
    const int heads = static_cast<int>(series.size());
    const float alpha = heads > 64 ? 0.35f : heads > 16 ? 0.55f : 0.85f;
    // Many faded lines need no anti-aliasing, and without it each segment costs half the vertices.
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImDrawListFlags flags = draw->Flags;
    if (heads > 32) draw->Flags &= ~ImDrawListFlags_AntiAliasedLines;
    for (int h = 0; h < heads; ++h) {
        if (h != highlight) canvas.drawSeries(series[h], headColor(h, heads, alpha), 1.0f);
    }
    draw->Flags = flags;
    // A lesson's heads: thick, in their own colours, over the rest.
    for (int h : lesson.heads)
        if (h >= 0 && h < heads && h != highlight) canvas.drawSeries(series[h], headColor(h, heads), 4.5f);
    if (highlight >= 0 && highlight < heads) canvas.drawSeries(series[highlight], kHighlightColor, 2.5f);
}

}  // namespace

void drawCurvesPanel(AppState& state, const Model& model) {
    const CurvesResult* curves = model.curves.get();
    if (curves == nullptr) {
        ImGui::TextDisabled("Computing the curves...");
        return;
    }
    if (!curves->error.empty()) {
        coreErrorText(curves->error);
        return;
    }
    if (const std::string note = explore::batchScopeNote(state.session.batch, state.session.batchRow); !note.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", note.c_str());
        ImGui::PopTextWrapPos();
    }
    // What is drawn (the pending change's curves replace it when they arrive, dimmed until then).
    const std::int64_t row = curves->request.queryRow;
    ImGui::TextDisabled("query row %s   bias up to distance %lld", row < 0 ? "last" : fmt::format("{}", row).c_str(),
                        static_cast<long long>(curves->maxDistance));

    const float spacing = ImGui::GetStyle().ItemSpacing.y;
    const int highlight = state.hoveredHead;
    // Each head's label (the core's, as the Qt legend uses) in its curve's colour.
    const auto legendOf = [&](const std::vector<Series>& series) {
        std::vector<LegendEntry> entries;
        const int heads = static_cast<int>(series.size());
        for (int h = 0; h < heads; ++h) {
            const bool lesson = lessonMarks(state.lessonMark, h);
            entries.push_back({series[static_cast<std::size_t>(h)].label,
                               h == highlight ? kHighlightColor : headColor(h, heads), lesson || h == highlight});
        }
        return entries;
    };
    const std::vector<LegendEntry> biasLegend = legendOf(curves->bias);
    const std::vector<LegendEntry> attentionLegend = legendOf(curves->attention);
    // Each plot at least tall enough for its title, its axes' labels and a few ticks, and the two
    // with a legend for its rows (up to the view's height; more heads list fewer entries): when
    // the three do not fit (a lesson open in presentation mode), they scroll in a child window.
    const float room = ImGui::GetContentRegionAvail().y;
    const float width = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
    const float base = std::max({120.0f, ImGui::GetTextLineHeight() * 8.0f, (room - 2.0f * spacing) / 3.0f});
    const float cap = std::max(base, room);
    float slopeHeight = base;
    const float biasHeight = std::max(base, plotHeightForLegend(biasLegend, width, cap));
    float attentionHeight = std::max(base, plotHeightForLegend(attentionLegend, width, cap));
    float total = slopeHeight + biasHeight + attentionHeight + 2.0f * spacing;
    const bool scroll = total > room + 0.5f;
    // A step about attention against distance (what = attention) shows that plot first when the
    // plots scroll, so the plot the step talks about is in view (lesson 1 step 6).
    const bool attentionFirst = scroll && state.session.what == RenderWhat::Attention;
    // When they scroll during a lesson, the first plot (the one the step cites: attention, else
    // the slopes) takes the whole visible height: readable (an 85 px attention plot had one y
    // tick), and the next starts below the fold rather than half shown with its axis label and
    // legend cut.
    const bool inLesson = state.lessonOpen;
    if (scroll && inLesson) {
        float& first = attentionFirst ? attentionHeight : slopeHeight;
        total += std::max(first, room) - first;
        first = std::max(first, room);
    }
    if (scroll) ImGui::BeginChild("curve plots", ImVec2(0, 0), false);
    // Once per lesson step shown, the plots start at the top (where the plot the step's quantity
    // names is, attention first when the step is about it); then the user scrolls.
    if (scroll && state.lessonStep != 0 && state.curvesScrolledFor != state.lessonStep) {
        ImGui::SetScrollY(0.0f);
        state.curvesScrolledFor = state.lessonStep;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 origin = ImGui::GetCursorScreenPos();

    const auto attentionPlot = [&] {
        PlotAxes axes = kindAxes(PlotKind::AttentionDistance, curves->attentionRange);
        axes.title = "attention vs distance";
        axes.xLabel = "distance i - j";
        axes.yLabel = "probability";
        axes.legend = attentionLegend;
        axes.cited = inLesson && attentionFirst;
        PlotCanvas canvas(axes, ImVec2(avail.x, attentionHeight));
        state.curvesAttentionShown = lastItemShown();
        drawFamily(canvas, curves->attention, highlight, state.lessonMark);
    };
    if (attentionFirst) attentionPlot();

    // Slopes: one bar per head in head order (press order is deliberately unsorted), as Qt and
    // the figures draw them (the core's PlotKind::Slopes).
    {
        const ImVec2 size(avail.x, slopeHeight);
        PlotAxes axes = kindAxes(PlotKind::Slopes, curves->slopeRange);
        axes.title = "slope per head";
        axes.xLabel = "head";
        axes.yLabel = "m (log2)";
        axes.cited = inLesson && scroll && !attentionFirst;
        PlotCanvas canvas(axes, size);
        for (const Series& s : curves->slopes) {
            const int heads = static_cast<int>(s.x.size());
            canvas.drawBars(s, [&](std::size_t i) {
                const int head = static_cast<int>(std::lround(s.x[i]));
                return head == highlight                     ? kHighlightColor
                       : lessonMarks(state.lessonMark, head) ? kLessonColor
                                                             : headColor(head, heads);
            });
        }
        if (canvas.hovered() && !curves->slopes.empty()) {
            const int heads = static_cast<int>(curves->slopes.front().x.size());
            const int head = static_cast<int>(std::lround(canvas.mouseX()));
            for (const Series& s : curves->slopes) {
                for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
                    if (head < 0 || head >= heads || std::lround(s.x[i]) != head) continue;
                    state.nextHoveredHead = head;
                    ImGui::SetTooltip("head %d: m = %.6g", head, s.y[i]);
                }
            }
        }
    }
    {
        PlotAxes axes = kindAxes(PlotKind::BiasDistance, curves->biasRange);
        axes.title = "bias vs distance";
        axes.xLabel = "distance i - j";
        axes.yLabel = "bias";
        axes.legend = biasLegend;
        PlotCanvas canvas(axes, ImVec2(avail.x, biasHeight));
        drawFamily(canvas, curves->bias, highlight, state.lessonMark);
    }
    if (!attentionFirst) attentionPlot();
    if (model.curvesPending) drawStaleMark(origin, ImVec2(origin.x + avail.x, origin.y + total), 0.0f);
    if (scroll) ImGui::EndChild();
}

}  // namespace alibi::imgui
