// PlotCanvas: a small ImDrawList plot frame (axes, ticks, labels, data-to-screen mapping) for the
// curves panel. It draws series the core computed; it computes nothing about ALiBi.
#pragma once

#include <alibi/render/plot.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/plot_ranges.hpp>
#include <alibi/render/ticks.hpp>

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace alibi::imgui {

// One entry of a plot's legend: a series' label (the core's, "head 3 (m = 0.0625)") and colour.
struct LegendEntry {
    std::string label;
    ImU32 color = 0;
    bool keep = false;  // always listed (a lesson's or the hovered head) when not every entry fits
};

struct PlotAxes {
    const char* title = "";
    const char* xLabel = "";
    const char* yLabel = "";
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;  // data units
    // The core's axis scales: Linear, Log2 (values > 0), SignedLog2OnePlus (distances spanning
    // 0..65535, either side of 0).
    AxisScale xKind = AxisScale::Linear;
    AxisScale yKind = AxisScale::Linear;
    // Drawn right of the plotting area, each entry whole: in as many columns as the plot's height
    // needs, up to 45 % of the plot's width; when even that is too few, evenly spaced entries (and
    // every kept one) with a line saying how many are listed.
    std::vector<LegendEntry> legend;
    // A lesson step cites this plot (the layout test wants it kMinCitedPlotHeight tall at least).
    bool cited = false;
    // The spans are the core's (kindAxes): drawn as given, without the canvas's own headroom.
    bool exact = false;
};

// The scales and spans of a plot of `kind` over `series` as the figures and Qt draw it: the
// core's plotAxes and plotRanges (one curve, one picture in every front end).
[[nodiscard]] PlotAxes kindAxes(PlotKind kind, const std::vector<Series>& series);
// The same for spans already found (plotRanges for plotAxes(kind), by a worker).
[[nodiscard]] PlotAxes kindAxes(PlotKind kind, const PlotRanges& ranges);
// The same for a style the core gave (stagePanelAxes) and its spans.
[[nodiscard]] PlotAxes styleAxes(const PlotStyle& style, const PlotRanges& ranges);

// Where a legend goes in a plot `size` big: its columns and rows, and the entries listed.
struct LegendLayout {
    int columns = 0, rows = 0;
    float columnWidth = 0, width = 0, line = 0;
    std::vector<int> shown;  // indices into the entries, in order
    bool note = false;       // a line "k of n listed" under the entries
    bool brief = false;      // entries listed under briefLegendName ("h3")
};
[[nodiscard]] LegendLayout legendLayout(const std::vector<LegendEntry>& entries, ImVec2 size);
// The height a plot `width` wide needs for its whole legend (rows of entries in at most the
// columns that fit), not above `cap` (then legendLayout lists fewer entries).
[[nodiscard]] float plotHeightForLegend(const std::vector<LegendEntry>& entries, float width, float cap);

// The height of a plot whose frame (data area) is `frame` pixels tall: its title and axes' labels added.
[[nodiscard]] float plotHeightForFrame(float frame);

class PlotCanvas {
public:
    // Reserves `size` pixels at the cursor and draws the frame, the ticks and the labels.
    PlotCanvas(const PlotAxes& axes, ImVec2 size);

    [[nodiscard]] ImVec2 toScreen(double x, double y) const;
    // Data x under the mouse, when the mouse is inside the plotting area.
    [[nodiscard]] bool hovered() const { return m_hovered; }
    [[nodiscard]] double mouseX() const;

    // One series as a polyline, thinned to about one point per pixel column (dense series would
    // otherwise cost hundreds of thousands of vertices per frame at H = 256).
    void drawSeries(const Series& series, ImU32 color, float thickness) const;
    void drawPoints(const Series& series, ImU32 color, float radius) const;
    // Each point as a bar from the axis' foot (0 on a linear axis, the bottom of a log one), 0.8
    // of a category wide, as the figures draw a PlotKind with bars; point k in colors(k).
    void drawBars(const Series& series, const std::function<ImU32(std::size_t)>& colors) const;
    // Series drawn together, series[n] in colors[n]: those that draw the same line (the core's
    // coincidingCurves) each dashed in its turn (dashInTurn: its colour in its dash, the others'
    // in its gaps), so no curve hides another; the others as drawSeries draws them. The core's
    // note ("5 curves coincide, dashed in turn") goes under the plot: on the x label's line left
    // of it, else under the legend, where it fits. Returns the note's phrases.
    std::vector<std::string> drawSeriesInTurn(const std::vector<Series>& series, const std::vector<ImU32>& colors,
                                              float thickness) const;

private:
    [[nodiscard]] double mapX(double x) const;
    [[nodiscard]] double mapY(double y) const;

    // One series in dashes of `on` pixels every `period`, the first starting `offset` into it
    // (SVG's stroke-dashoffset): ImDrawList draws no dashes, so each dash is its own piece of
    // the polyline.
    void drawDashedSeries(const Series& series, ImU32 color, float thickness, double on, double period,
                          double offset) const;
    void drawNote(const std::string& note) const;
    // m_points as lines from point to point.
    void strokePolyline(ImU32 color, float thickness) const;

    PlotAxes m_axes;
    ImVec2 m_min, m_max;      // plotting area (inside the axes)
    ImVec2 m_origin, m_size;  // the whole plot (title, axes, legend)
    LegendLayout m_legend;
    double m_x0 = 0, m_x1 = 1, m_y0 = 0, m_y1 = 1;  // mapped ranges
    bool m_hovered = false;
    ImDrawList* m_draw = nullptr;
    mutable std::vector<ImVec2> m_points;  // scratch for polylines
};

}  // namespace alibi::imgui
