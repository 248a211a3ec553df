// PlotCanvas: axes, ticks and polylines on an ImDrawList; plus the per-head colour every panel uses.
#include "plot_canvas.hpp"

#include "layout_check.hpp"
#include "panels.hpp"

#include <alibi/explore/line_breaks.hpp>
#include <alibi/render/coinciding_curves.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/dashes.hpp>
#include <alibi/render/legend_layout.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/plot_ranges.hpp>
#include <alibi/render/ticks.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// The margins around the plot frame, in lines of the current font (a presentation font is 1.4 to
// 2 times the size): the title line and the top tick label's upper half above the frame, the
// tick labels and the axis label below it, the y tick labels left of it.
float leftMargin() {
    return std::max(58.0f, ImGui::GetFontSize() * 3.9f);
}
float bottomMargin() {
    return std::max(34.0f, ImGui::GetTextLineHeight() * 2.0f + 4.0f);
}
float topMargin() {
    return std::max(20.0f, ImGui::GetTextLineHeight() * 1.6f);
}
float rightMargin() {
    return std::max(10.0f, ImGui::GetFontSize() * 0.7f);
}

// Where a value sits along an axis of `scale`; a log axis puts zero and below at its far end.
double mapValue(AxisScale scale, double v) {
    return axisPosition(scale, scale == AxisScale::Log2 ? std::max(v, 1e-300) : v);
}

// The core's ticks for an axis spanning [m0, m1] in axis units (every plot of every front end
// labels its axes alike: "1/8" on a log2 axis, "-4" ... "4" on a signed distance axis).
std::vector<Tick> ticksBetween(AxisScale scale, double m0, double m1, int target) {
    return alibi::axisTicks(scale, axisValue(scale, m0), axisValue(scale, m1), target);
}

}  // namespace

namespace {

float legendSwatch() {
    return std::ceil(ImGui::GetFontSize() * 1.2f);
}
// The gap between the plotting area and the legend, and between its columns.
float legendGap() {
    return std::ceil(ImGui::GetFontSize() * 0.8f);
}
// The legend's room in a plot `size` big: 45 % of its width, as many lines as its frame is tall;
// the texts measured in ImGui's font.
LegendRoom legendRoom(const std::vector<LegendEntry>& entries, ImVec2 size) {
    LegendRoom room;
    room.width = 0.45f * size.x - legendGap();
    room.rows = static_cast<int>((size.y - topMargin() - bottomMargin()) / ImGui::GetTextLineHeight());
    room.swatch = legendSwatch() + ImGui::GetStyle().ItemInnerSpacing.x + legendGap();
    room.noteWidth = ImGui::CalcTextSize(legendNote(entries.size(), entries.size()).c_str()).x;
    return room;
}

std::vector<LegendEntryWidths> legendWidths(const std::vector<LegendEntry>& entries) {
    std::vector<LegendEntryWidths> widths;
    for (const LegendEntry& e : entries)
        widths.push_back({std::ceil(ImGui::CalcTextSize(e.label.c_str()).x),
                          std::ceil(ImGui::CalcTextSize(briefLegendName(e.label).c_str()).x), e.keep});
    return widths;
}

}  // namespace

LegendLayout legendLayout(const std::vector<LegendEntry>& entries, ImVec2 size) {
    LegendLayout l;
    if (entries.empty()) return l;
    const LegendPlan plan = planLegend(legendWidths(entries), legendRoom(entries, size));
    l.line = ImGui::GetTextLineHeight();
    l.columns = plan.columns;
    l.rows = plan.rows;
    l.columnWidth = static_cast<float>(plan.columnWidth);
    l.shown = plan.shown;
    l.note = plan.note;
    l.brief = plan.brief;
    l.width = legendGap() + static_cast<float>(plan.width());
    return l;
}

float plotHeightForLegend(const std::vector<LegendEntry>& entries, float width, float cap) {
    if (entries.empty()) return 0.0f;
    const int rows = legendRowsForAll(legendWidths(entries), legendRoom(entries, ImVec2(width, 0)));
    const float needed = static_cast<float>(rows) * ImGui::GetTextLineHeight() + topMargin() + bottomMargin() + 1.0f;
    return std::min(needed, cap);
}

float plotHeightForFrame(float frame) {
    return std::ceil(frame + topMargin() + bottomMargin());
}

ImU32 headColor(int head, int heads, float alpha) {
    // The core's ramp for a dark background (the explorer's only theme), as Qt's dark theme draws it.
    const Rgba c = seriesColor(static_cast<std::size_t>(std::max(head, 0)),
                               static_cast<std::size_t>(std::max(heads, 1)), PlotBackground::Dark);
    return IM_COL32(c.r, c.g, c.b, static_cast<int>(alpha * 255.0f));
}

PlotAxes kindAxes(PlotKind kind, const std::vector<Series>& series) {
    return kindAxes(kind, plotRanges(series, plotAxes(kind)));
}

PlotAxes kindAxes(PlotKind kind, const PlotRanges& r) {
    return styleAxes(plotAxes(kind), r);
}

PlotAxes styleAxes(const PlotStyle& style, const PlotRanges& r) {
    PlotAxes axes;
    axes.xKind = style.logX1p ? AxisScale::Log2OnePlus : AxisScale::Linear;
    axes.yKind = style.logY2 ? AxisScale::Log2 : AxisScale::Linear;
    axes.xMin = axisValue(axes.xKind, r.xmin);
    axes.xMax = axisValue(axes.xKind, r.xmax);
    axes.yMin = axisValue(axes.yKind, r.ymin);
    axes.yMax = axisValue(axes.yKind, r.ymax);
    axes.exact = true;
    return axes;
}

PlotCanvas::PlotCanvas(const PlotAxes& axes, ImVec2 size) : m_axes(axes) {
    m_draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const LegendLayout legend = legendLayout(axes.legend, size);
    m_origin = origin;
    m_size = size;
    m_legend = legend;
    const float line = ImGui::GetTextLineHeight();
    // The title (left) and the y axis' label (right) share the line above the frame; where the
    // two would overlap (a narrow plot: the Parameters panel open in presentation mode) the
    // label takes a line of its own under the title.
    const float right = origin.x + size.x - rightMargin() - legend.width;
    const float titleRight = origin.x + 4.0f + ImGui::CalcTextSize(axes.title).x;
    const float yw = ImGui::CalcTextSize(axes.yLabel).x;
    const bool yLabelOwnLine = yw > 0 && titleRight + ImGui::GetFontSize() > right - yw;
    m_min = ImVec2(origin.x + leftMargin(), origin.y + topMargin() + (yLabelOwnLine ? line : 0.0f));
    m_max = ImVec2(origin.x + size.x - rightMargin() - legend.width, origin.y + size.y - bottomMargin());

    m_x0 = mapValue(axes.xKind, axes.xMin);
    m_x1 = mapValue(axes.xKind, axes.xMax);
    m_y0 = mapValue(axes.yKind, axes.yMin);
    m_y1 = mapValue(axes.yKind, axes.yMax);
    if (!(m_x1 > m_x0)) m_x1 = m_x0 + 1.0;
    if (!(m_y1 > m_y0)) {
        m_y0 -= 0.5;
        m_y1 = m_y0 + 1.0;
    }
    // A little headroom so extreme points are not drawn on the frame (the core's spans have
    // their own).
    if (!axes.exact) {
        const double pad = (m_y1 - m_y0) * 0.04;
        m_y0 -= pad;
        m_y1 += pad;
    }
    // As many y ticks as labels a line and a half apart fit (a short plot or a presentation font
    // gets fewer, never overlapping ones).
    // Two at least (the core's rule for every plot axis, render/ticks.hpp), so the top of the
    // axis has a number: a 0.39 peak under a lone "0" could not be read.
    const int yTicks = std::clamp(static_cast<int>((m_max.y - m_min.y) / (line * 1.5f)), 1, 4);
    const std::vector<Tick> yTickValues =
        atLeastTwoTicks(yTicks, [&](int target) { return ticksBetween(axes.yKind, m_y0, m_y1, target); });
    // The frame starts right of the widest y tick label, as the figures' does ("1/131072" at the
    // foot of H = 32's slopes was cut at the plot's left edge).
    float widestY = 0;
    for (const Tick& tick : yTickValues) widestY = std::max(widestY, ImGui::CalcTextSize(tick.label.c_str()).x);
    m_min.x = std::max(m_min.x, origin.x + std::ceil(widestY) + 8.0f);
    m_hovered = ImGui::IsItemHovered() && ImGui::IsMouseHoveringRect(m_min, m_max);

    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border);
    const ImU32 grid = IM_COL32(255, 255, 255, 22);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    m_draw->AddRectFilled(m_min, m_max, IM_COL32(18, 18, 22, 255));
    m_draw->AddText(ImVec2(origin.x + 4.0f, origin.y + 1.0f), text, axes.title);

    // Fewer x ticks on a narrow plot, each label about two of its widths from the next (a side
    // tab's 90 px plot ran "0 5 10 15 20" together); two at least, as on the y axis.
    int xTarget = 5;
    const auto widest = [&](int target) {
        float w = 0;
        for (const Tick& tick : ticksBetween(axes.xKind, m_x0, m_x1, target))
            w = std::max(w, ImGui::CalcTextSize(tick.label.c_str()).x);
        return w;
    };
    while (xTarget > 2 && (m_max.x - m_min.x) < static_cast<float>(xTarget) * widest(xTarget) * 2.0f) --xTarget;
    const std::vector<Tick> xTicks =
        atLeastTwoTicks(xTarget, [&](int target) { return ticksBetween(axes.xKind, m_x0, m_x1, target); });
    for (const Tick& tick : xTicks) {
        const double t = mapValue(axes.xKind, tick.value);
        const float x = static_cast<float>(m_min.x + (t - m_x0) / (m_x1 - m_x0) * (m_max.x - m_min.x));
        m_draw->AddLine(ImVec2(x, m_min.y), ImVec2(x, m_max.y), grid);
        const std::string& label = tick.label;
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        // Not left of the frame: the y axis' lowest label ends there (a "0" under a "0" where
        // both axes start at 0, as the core's spans have them).
        m_draw->AddText(ImVec2(std::clamp(x - w * 0.5f, m_min.x, m_max.x - w), m_max.y + 2.0f), dim, label.c_str());
    }
    for (const Tick& tick : yTickValues) {
        const double t = mapValue(axes.yKind, tick.value);
        const float y = static_cast<float>(m_max.y - (t - m_y0) / (m_y1 - m_y0) * (m_max.y - m_min.y));
        m_draw->AddLine(ImVec2(m_min.x, y), ImVec2(m_max.x, y), grid);
        const std::string& label = tick.label;
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        m_draw->AddText(ImVec2(m_min.x - w - 4.0f, y - line * 0.5f), dim, label.c_str());
    }
    m_draw->AddRect(m_min, m_max, frame);
    notePlot(axes.title, m_min, m_max, static_cast<int>(yTickValues.size()), axes.cited);
    const float xw = ImGui::CalcTextSize(axes.xLabel).x;
    m_draw->AddText(ImVec2(m_max.x - xw, m_max.y + line + 2.0f), dim, axes.xLabel);
    m_draw->AddText(ImVec2(m_max.x - yw, origin.y + 1.0f + (yLabelOwnLine ? line : 0.0f)), dim, axes.yLabel);

    // The legend (the core's plan, render/legend_layout.hpp): a swatch and the whole label per
    // listed entry, column by column.
    const float swatch = legendSwatch();
    const float x0 = m_max.x + legendGap();
    for (std::size_t k = 0; k < legend.shown.size(); ++k) {
        const LegendEntry& e = axes.legend[static_cast<std::size_t>(legend.shown[k])];
        const int column = static_cast<int>(k) / legend.rows;
        const int row = static_cast<int>(k) % legend.rows;
        const float x = x0 + static_cast<float>(column) * legend.columnWidth;
        const float y = m_min.y + static_cast<float>(row) * legend.line;
        const float mid = std::floor(y + legend.line * 0.5f);
        m_draw->AddRectFilled(ImVec2(x, mid - 2.0f), ImVec2(x + swatch, mid + 2.0f), e.color | IM_COL32_A_MASK);
        const std::string label = legend.brief ? briefLegendName(e.label) : e.label;
        m_draw->AddText(ImVec2(x + swatch + ImGui::GetStyle().ItemInnerSpacing.x, y), text, label.c_str());
    }
    if (legend.note) {
        const std::string note = legendNote(legend.shown.size(), axes.legend.size());
        const float x = x0 + static_cast<float>(legend.columns - 1) * legend.columnWidth;
        const float y = m_min.y + static_cast<float>(legend.rows - 1) * legend.line;
        m_draw->AddText(ImVec2(x, y), dim, note.c_str());
    }
}

double PlotCanvas::mapX(double x) const {
    return mapValue(m_axes.xKind, x);
}
double PlotCanvas::mapY(double y) const {
    return mapValue(m_axes.yKind, y);
}

ImVec2 PlotCanvas::toScreen(double x, double y) const {
    const double fx = (mapX(x) - m_x0) / (m_x1 - m_x0);
    double fy = (mapY(y) - m_y0) / (m_y1 - m_y0);
    fy = std::clamp(fy, -0.02, 1.02);  // a -inf bias (masked) stays at the bottom edge
    return ImVec2(static_cast<float>(m_min.x + fx * (m_max.x - m_min.x)),
                  static_cast<float>(m_max.y - fy * (m_max.y - m_min.y)));
}

double PlotCanvas::mouseX() const {
    const double f = (ImGui::GetIO().MousePos.x - m_min.x) / (m_max.x - m_min.x);
    return axisValue(m_axes.xKind, m_x0 + f * (m_x1 - m_x0));
}

void PlotCanvas::drawSeries(const Series& series, ImU32 color, float thickness) const {
    m_points.clear();
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(series.x[i]) || std::isnan(series.y[i])) continue;
        m_points.push_back(toScreen(series.x[i], series.y[i]));
    }
    if (m_points.size() == 1) m_draw->AddCircleFilled(m_points[0], thickness + 1.0f, color);
    if (m_points.size() < 2) return;
    m_draw->PushClipRect(m_min, m_max, true);
    strokePolyline(color, thickness);
    m_draw->PopClipRect();
}

std::vector<std::string> PlotCanvas::drawSeriesInTurn(const std::vector<Series>& series,
                                                      const std::vector<ImU32>& colors, float thickness) const {
    // The y span in axis units, as drawn (log2 on a log axis), for the core's "same line".
    const CurveAxes axes{m_y0, m_y1, m_axes.yKind == AxisScale::Log2, m_axes.xKind == AxisScale::Log2OnePlus};
    const std::vector<CurveTurn> turns = coincidingCurves(series, axes);
    // Each stretch dashed in its turn among the coinciding curves drawn there: past the shorter
    // curves' ends the longer ones deal the dashes again, and a curve left alone is whole.
    const std::vector<std::vector<CurveStretch>> stretches = coincidingStretches(series, axes);
    for (std::size_t n = 0; n < series.size(); ++n) {
        const ImU32 color = n < colors.size() ? colors[n] : IM_COL32_WHITE;
        if (turns[n].groupSize <= 1) {
            drawSeries(series[n], color, thickness);
            continue;
        }
        for (const CurveStretch& stretch : stretches[n]) {
            const Series piece = seriesStretch(series[n], stretch.xFrom, stretch.xTo);
            const DashPattern dash = dashInTurn(stretch.turn, thickness);
            if (dash.on > 0)
                drawDashedSeries(piece, color, thickness, dash.on, dash.on + dash.off, dash.offset);
            else
                drawSeries(piece, color, thickness);
        }
    }
    std::vector<std::string> phrases = coincidingNote(turns);
    std::string note;
    for (const std::string& phrase : phrases) note += (note.empty() ? "" : " · ") + phrase;
    if (!note.empty()) drawNote(note);
    return phrases;
}

void PlotCanvas::strokePolyline(ImU32 color, float thickness) const {
    // Segment by segment: ImGui's thick anti-aliased polyline folds its joins at a sharp spike
    // (a loss per position that jumps 5 nats a token showed holes at its peaks).
    for (std::size_t i = 1; i < m_points.size(); ++i) m_draw->AddLine(m_points[i - 1], m_points[i], color, thickness);
}

void PlotCanvas::drawDashedSeries(const Series& series, ImU32 color, float thickness, double on, double period,
                                  double offset) const {
    std::vector<PathPoint> points;
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(series.x[i]) || std::isnan(series.y[i])) continue;
        const ImVec2 p = toScreen(series.x[i], series.y[i]);
        points.emplace_back(p.x, p.y);
    }
    if (points.size() < 2 || !(on > 0) || !(period > on)) {
        drawSeries(series, color, thickness);
        return;
    }
    m_draw->PushClipRect(m_min, m_max, true);
    // The core's walk (dashSegments, the exported figures' too): a dash crossing vertices keeps
    // its corners, one polyline a dash (ImDrawList draws no dashes).
    for (const std::vector<PathPoint>& dash : dashSegments(points, on, period - on, offset)) {
        m_points.clear();
        for (const auto& [x, y] : dash) m_points.emplace_back(static_cast<float>(x), static_cast<float>(y));
        strokePolyline(color, thickness);
    }
    m_draw->PopClipRect();
}

void PlotCanvas::drawNote(const std::string& note) const {
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float line = ImGui::GetTextLineHeight();
    const float gap = ImGui::GetFontSize();
    const float width = ImGui::CalcTextSize(note.c_str()).x;
    // Under the plot, on the x label's line left of the label.
    const float labelLeft = m_max.x - ImGui::CalcTextSize(m_axes.xLabel).x;
    if (m_min.x + width + gap <= labelLeft) {
        m_draw->AddText(ImVec2(m_min.x, m_max.y + line + 2.0f), dim, note.c_str());
        return;
    }
    // Else under the legend's entries, wrapped at spaces to its column, if the frame has the lines.
    if (m_legend.rows <= 0) return;
    const float x = m_max.x + legendGap();
    const float columnWidth = m_origin.x + m_size.x - x;
    const auto lines = explore::wrapLines(note, columnWidth, [](std::string_view t) {
        return static_cast<double>(ImGui::CalcTextSize(t.data(), t.data() + t.size()).x);
    });
    const int used = m_legend.rows + (m_legend.note ? 1 : 0);
    float y = m_min.y + static_cast<float>(used) * m_legend.line + line * 0.5f;
    // No room (the lines past the plot's bottom, a word wider than the column): the legend alone.
    if (y + static_cast<float>(lines.size()) * line > m_origin.y + m_size.y) return;
    for (const explore::WrappedLine& l : lines)
        if (ImGui::CalcTextSize(l.text.c_str()).x > columnWidth) return;
    for (const explore::WrappedLine& l : lines) {
        m_draw->AddText(ImVec2(x, y), dim, l.text.c_str());
        y += line;
    }
}

void PlotCanvas::drawBars(const Series& series, const std::function<ImU32(std::size_t)>& colors) const {
    const float width = static_cast<float>(0.8 * (m_max.x - m_min.x) / (m_x1 - m_x0));
    const float foot = m_axes.yKind == AxisScale::Log2 ? m_max.y : toScreen(0.0, 0.0).y;
    for (std::size_t k = 0; k < std::min(series.x.size(), series.y.size()); ++k) {
        if (!std::isfinite(series.x[k]) || !std::isfinite(series.y[k])) continue;
        if (m_axes.yKind == AxisScale::Log2 && series.y[k] <= 0) continue;
        const ImVec2 at = toScreen(series.x[k], series.y[k]);
        m_draw->AddRectFilled(ImVec2(at.x - width / 2, std::min(at.y, foot)),
                              ImVec2(at.x + width / 2, std::max(at.y, foot)), colors(k));
    }
}

void PlotCanvas::drawPoints(const Series& series, ImU32 color, float radius) const {
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) continue;
        m_draw->AddCircleFilled(toScreen(series.x[i], series.y[i]), radius, color, 8);
    }
}

}  // namespace alibi::imgui
