// Line and bar plots drawn through a Canvas (canvas.hpp): the one layout behind plotSvg and
// plotPng, and the panels of the multi-plot figures (the four attention stages side by side).
// Everything is in layout pixels (the 1x figure).
#pragma once

#include <alibi/render/plot.hpp>

#include <alibi/render/canvas.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alibi::detail {

// Font sizes and spacings of a figure, from its 1x size.
struct PlotMetrics {
    double font = 13, small = 12, title = 15;
    double line = 16, smallLine = 15, titleLine = 19;
    double margin = 12, gap = 4, tick = 5;
};
[[nodiscard]] PlotMetrics plotMetrics(int width, int height);

struct Box {
    double x = 0, y = 0, width = 0, height = 0;
};

// Where a panel put its plot frame and ticks (what the tests compare between SVG and PNG).
struct PanelLayout {
    Box frame;
    std::vector<double> xTicks, yTicks;  // in data units (log2 exponent on a log2 axis)
};

// One plot inside `box`: an optional bold panel title and grey note beneath it, axes with ticks
// and grid, the series, the legend at the right when style.legend (planLegend decides its columns).
// style.title and style.caption are not drawn here (drawPlotFigure draws them). `xRange` fixes
// the x axis' data range (side-by-side panels sharing one axis); nullopt: the data's.
PanelLayout drawPlotPanel(Canvas& canvas, const std::vector<Series>& series, const PlotStyle& style, const Box& box,
                          const PlotMetrics& m, const std::string& panelTitle = {}, const std::string& note = {},
                          std::optional<std::pair<double, double>> xRange = std::nullopt);

// The figure frame: the bold title at the top (at most two lines) and the caption at the
// bottom (wrapped), both across the figure; returns the box left between them.
Box drawFigureFrame(Canvas& canvas, int width, int height, const std::string& title, const std::string& caption,
                    const PlotMetrics& m);

// A whole plot figure: frame, then one panel.
PanelLayout drawPlotFigure(Canvas& canvas, const std::vector<Series>& series, const PlotStyle& style);

}  // namespace alibi::detail
