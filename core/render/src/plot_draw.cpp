// The plot layout of plot_draw.hpp: computed once in layout pixels, drawn through a Canvas.
#include <alibi/render/plot_draw.hpp>

#include <alibi/render/coinciding_curves.hpp>

#include <alibi/render/colormap.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/legend_layout.hpp>
#include <alibi/render/plot_ranges.hpp>
#include <alibi/render/ticks.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::detail {
namespace {

constexpr Rgba kText{32, 32, 32, 255};
constexpr Rgba kNote{96, 96, 96, 255};
constexpr Rgba kGrid{221, 221, 221, 255};
constexpr Rgba kFrame{64, 64, 64, 255};

std::string tickLabel(double v) {
    if (std::fabs(v) < 1e-12) return "0";
    return fmt::format("{:.4g}", v);
}

std::vector<double> yTicksOf(const PlotRanges& r, const PlotStyle& style, double height) {
    // A short panel labels two values of its axis (the explorers' rule: atLeastTwoTicks).
    if (!style.logY2)
        return atLeastTwoTicks(std::clamp(static_cast<int>(height / 45), 2, 10),
                               [&](int target) { return niceTicks(r.ymin, r.ymax, target); });
    std::vector<double> ticks;
    const double step = std::max(1.0, std::ceil((r.ymax - r.ymin) / std::clamp(height / 30, 2.0, 10.0)));
    for (double e = r.ymin; e <= r.ymax + 1e-9; e += step) ticks.push_back(e);
    return ticks;
}

// On a log2 axis: "1/2", "4", "2^-30" (the explorers' spelling); else the value.
std::string yTickLabel(double y, const PlotStyle& style) {
    if (!style.logY2) return tickLabel(y);
    if (y == std::round(y) && std::fabs(y) < 20) return formatSlope(std::exp2(y));
    return "2^" + tickLabel(y);
}

}  // namespace

PlotMetrics plotMetrics(int width, int height) {
    PlotMetrics m;
    const double base = std::clamp(std::min(width, height) / 55.0, 10.0, 15.0);
    m.font = base;
    m.small = base * 0.9;
    m.title = base * 1.2;
    m.line = textLine(m.font);
    m.smallLine = textLine(m.small);
    m.titleLine = textLine(m.title);
    m.margin = std::round(base);
    m.gap = std::round(0.4 * base);
    m.tick = std::round(0.4 * base);
    return m;
}

Box drawFigureFrame(Canvas& canvas, int width, int height, const std::string& title, const std::string& caption,
                    const PlotMetrics& m) {
    const double inner = width - 2 * m.margin;
    double top = m.margin;
    if (!title.empty()) {
        std::vector<std::string> lines = wrapWords(title, m.title, inner, FontWeight::Bold);
        if (lines.size() > 2) {
            lines[1] = fitText(lines[1] + " " + lines[2] + "…", m.title, inner, FontWeight::Bold);
            lines.resize(2);
        }
        TextStyle style{m.title, kText, FontWeight::Bold};
        for (const std::string& line : lines) {
            canvas.text(m.margin, top, fitText(line, m.title, inner, FontWeight::Bold), style);
            top += m.titleLine;
        }
        top += m.gap;
    }
    double bottom = height - m.margin;
    if (!caption.empty()) {
        const std::vector<std::string> lines = wrapWords(caption, m.small, inner);
        bottom -= static_cast<double>(lines.size()) * m.smallLine;
        canvas.beginGroup("caption");
        for (std::size_t n = 0; n < lines.size(); ++n)
            canvas.text(m.margin, bottom + static_cast<double>(n) * m.smallLine, lines[n], TextStyle{m.small, kNote});
        canvas.endGroup();
        bottom -= m.gap;
    }
    return Box{m.margin, top, inner, std::max(0.0, bottom - top)};
}

PanelLayout drawPlotPanel(Canvas& canvas, const std::vector<Series>& series, const PlotStyle& style, const Box& box,
                          const PlotMetrics& m, const std::string& panelTitle, const std::string& note,
                          std::optional<std::pair<double, double>> xRange) {
    PlotRanges r = plotRanges(series, style);
    if (xRange) {
        const double pad = style.bars ? 0.5 : 0.0;
        r.xmin = xRange->first - pad;
        r.xmax = std::max(xRange->second, xRange->first + 1) + pad;
    }
    const bool legend = style.legend && !series.empty();
    // Curves that draw the same line are dashed in turn, and the note says so (coinciding_curves.hpp).
    const std::vector<CurveTurn> turns =
        style.bars ? std::vector<CurveTurn>(series.size())
                   : coincidingCurves(series, CurveAxes{r.ymin, r.ymax, style.logY2, style.logX1p});
    const std::vector<std::vector<CurveStretch>> stretches =
        style.bars ? std::vector<std::vector<CurveStretch>>(series.size())
                   : coincidingStretches(series, CurveAxes{r.ymin, r.ymax, style.logY2, style.logX1p});
    std::string shownNote = note;
    for (const std::string& phrase : coincidingNote(turns)) shownNote += (shownNote.empty() ? "" : " · ") + phrase;

    // Outside in: panel title and note above, axis label and tick labels left and below, legend right.
    double top = box.y;
    if (!panelTitle.empty()) {
        canvas.text(box.x, top, fitText(panelTitle, m.font, box.width, FontWeight::Bold),
                    TextStyle{m.font, kText, FontWeight::Bold});
        top += m.line;
    }
    if (!shownNote.empty()) {
        canvas.text(box.x, top, fitText(shownNote, m.small, box.width), TextStyle{m.small, kNote});
        top += m.smallLine;
    }
    top += m.gap + m.smallLine / 2;  // the top tick label reaches half a line above the frame
    const double bottom = box.y + box.height - (m.tick + m.smallLine + m.gap + m.line);
    const std::vector<double> yTicks = yTicksOf(r, style, bottom - top);
    double yLabelWidth = 0;
    for (double y : yTicks) yLabelWidth = std::max(yLabelWidth, measureText(yTickLabel(y, style), m.small));
    const double left = box.x + m.line + m.gap + yLabelWidth + m.gap + m.tick;
    // The legend follows the core's plan (legend_layout.hpp), as the explorers' plots do: whole
    // names, else brief ones ("h3"), else some with "k of n listed"; a column is a swatch, a gap,
    // the text and a margin. One column of names wider than 45 % of the panel wraps them rather
    // than losing their ends (the number the reader came for).
    const double swatch = 1.5 * m.margin + m.gap;
    LegendRoom room;
    room.width = box.width * 0.45 - m.margin;
    room.rows = std::max(1, static_cast<int>((bottom - top) / m.smallLine));
    room.swatch = swatch + m.margin;
    room.noteWidth = measureText(legendNote(series.size(), series.size()), m.small);
    LegendPlan plan;
    if (legend) {
        std::vector<LegendEntryWidths> widths;
        for (std::size_t n = 0; n < series.size(); ++n) {
            // The highlighted series is listed in bold: measured so.
            const bool thick = static_cast<int>(n) == style.highlight;
            const FontWeight weight = thick ? FontWeight::Bold : FontWeight::Regular;
            widths.push_back({measureText(series[n].label, m.small, weight),
                              measureText(briefLegendName(series[n].label), m.small, weight), thick});
        }
        plan = planLegend(widths, room);
    }
    const bool wrapped = legend && plan.columns == 1 && plan.columnWidth > room.width;
    const double legendWidth = !legend ? 0 : wrapped ? room.width + m.margin : plan.width() + m.margin;
    const double right = box.x + box.width - (legend ? legendWidth + m.margin : m.small / 2);
    PanelLayout layout;
    layout.frame = Box{left, top, std::max(1.0, right - left), std::max(1.0, bottom - top)};
    const double pw = layout.frame.width, ph = layout.frame.height;
    const auto pxAxis = [&](double a) { return left + (a - r.xmin) / (r.xmax - r.xmin) * pw; };
    const auto px = [&](double x) { return pxAxis(plotAxisX(style, x)); };
    const auto pyAxis = [&](double a) { return top + ph - (a - r.ymin) / (r.ymax - r.ymin) * ph; };
    const auto py = [&](double y) { return pyAxis(style.logY2 ? std::log2(y) : y); };

    // Ticks, each grid line followed by its label (readers map labels back through the lines).
    const auto xTicksFor = [&](int target) {
        std::vector<double> ticks;  // in axis units
        if (style.logX1p)
            for (const Tick& t : axisTicks(AxisScale::Log2OnePlus, axisValue(AxisScale::Log2OnePlus, r.xmin),
                                           axisValue(AxisScale::Log2OnePlus, r.xmax), target + 2))
                ticks.push_back(axisPosition(AxisScale::Log2OnePlus, t.value));
        else
            ticks = niceTicks(r.xmin, r.xmax, target);
        if (style.bars)  // categorical x: whole indices only
            std::erase_if(ticks, [](double x) { return x != std::round(x); });
        return ticks;
    };
    // A narrow panel still labels two points of its axis (a stage panel of keys 0 to 40 had "0" alone).
    const int xTarget = std::clamp(static_cast<int>(pw / 80), 2, 10);
    const std::vector<double> xTicks = r.xmax - r.xmin >= 2 ? atLeastTwoTicks(xTarget, xTicksFor) : xTicksFor(xTarget);
    const Stroke grid{kGrid, 1};
    canvas.beginGroup("x-ticks");
    for (double a : xTicks) {
        canvas.line(pxAxis(a), top, pxAxis(a), bottom, grid);
        canvas.text(pxAxis(a), bottom + m.tick,
                    tickLabel(style.logX1p ? std::round(axisValue(AxisScale::Log2OnePlus, a)) : a),
                    TextStyle{m.small, kText, FontWeight::Regular, TextAnchor::Middle});
    }
    canvas.endGroup();
    canvas.beginGroup("y-ticks");
    for (double y : yTicks) {
        canvas.line(left, pyAxis(y), right, pyAxis(y), grid);
        canvas.text(left - m.tick - m.gap, pyAxis(y) - m.smallLine / 2, yTickLabel(y, style),
                    TextStyle{m.small, kText, FontWeight::Regular, TextAnchor::End});
    }
    canvas.endGroup();
    canvas.strokeRect(left, top, pw, ph, Stroke{kFrame, 1});
    canvas.text((left + right) / 2, bottom + m.tick + m.smallLine + m.gap, fitText(style.xLabel, m.font, pw),
                TextStyle{m.font, kText, FontWeight::Regular, TextAnchor::Middle});
    canvas.text(box.x, (top + bottom) / 2, fitText(style.yLabel, m.font, ph),
                TextStyle{m.font, kText, FontWeight::Regular, TextAnchor::Middle, /*upward=*/true});

    // Series: the highlighted one last, so it is drawn on top.
    std::vector<std::size_t> order(series.size());
    for (std::size_t n = 0; n < order.size(); ++n) order[n] = n;
    const bool highlighted = style.highlight >= 0 && static_cast<std::size_t>(style.highlight) < series.size();
    const auto faded = [&](std::size_t n) {
        return highlighted && !style.highlightUnder && static_cast<std::size_t>(style.highlight) != n;
    };
    if (highlighted)
        std::stable_partition(order.begin(), order.end(), [&](std::size_t n) {
            return (n == static_cast<std::size_t>(style.highlight)) == style.highlightUnder;
        });
    canvas.beginGroup("series");
    for (std::size_t n : order) {
        const Series& s = series[n];
        const Rgba c = seriesColor(n, series.size());
        const bool emphasised = !faded(n);
        const std::size_t count = std::min(s.x.size(), s.y.size());
        if (style.bars) {
            const double width = 0.8 * pw / (r.xmax - r.xmin);
            const double base = style.logY2 ? top + ph : py(0.0);
            canvas.beginGroup("bars");
            for (std::size_t k = 0; k < count; ++k) {
                if (!plotDrawable(style, s.x[k], s.y[k])) continue;
                const double y = py(s.y[k]);
                canvas.fillRect(px(s.x[k]) - width / 2, std::min(y, base), width, std::fabs(base - y), c,
                                emphasised ? 1.0 : 0.3,
                                fmt::format("{} at {}: {:.6g}", s.label, tickLabel(s.x[k]), s.y[k]));
            }
            canvas.endGroup();
            continue;
        }
        const bool thick = highlighted && static_cast<std::size_t>(style.highlight) == n;
        // Each stretch of the curve dashed in its turn among the coinciding curves drawn there
        // (the highlighted one whole, on top).
        for (const CurveStretch& stretch : stretches[n]) {
            const Series piece = seriesStretch(s, stretch.xFrom, stretch.xTo);
            std::vector<Point> points;
            for (std::size_t k = 0; k < piece.x.size(); ++k)
                if (plotDrawable(style, piece.x[k], piece.y[k])) points.emplace_back(px(piece.x[k]), py(piece.y[k]));
            Stroke stroke{c, thick ? 3.0 : 1.5, emphasised ? 1.0 : 0.3};
            if (!thick && stretch.turn.groupSize > 1) {
                const DashPattern dash = dashInTurn(stretch.turn, stroke.width);
                stroke.dash = dash.on, stroke.dashGap = dash.off, stroke.dashOffset = dash.offset;
            }
            canvas.polyline(points, stroke, s.label);
        }
        if (s.x.size() == 1 || series.size() == 1) {  // single series: mark its points (the slope plot)
            for (std::size_t k = 0; k < count; ++k)
                if (plotDrawable(style, s.x[k], s.y[k])) canvas.circle(px(s.x[k]), py(s.y[k]), 3, c);
        }
    }
    canvas.endGroup();

    if (style.markX && plotAxisX(style, *style.markX) >= r.xmin && plotAxisX(style, *style.markX) <= r.xmax) {
        // The marker: a dark dashed line (drawn as short strokes) and its label inside the frame.
        canvas.beginGroup("marker");
        const double x = px(*style.markX);
        const Stroke dash{kFrame, 1.5};
        for (double y = top; y < bottom; y += 8) canvas.line(x, y, x, std::min(y + 4, bottom), dash);
        if (!style.markLabel.empty()) {
            const bool fitsRight = x + m.gap + measureText(style.markLabel, m.small) <= right;
            canvas.text(
                fitsRight ? x + m.gap : x - m.gap, top + m.gap, style.markLabel,
                TextStyle{m.small, kText, FontWeight::Regular, fitsRight ? TextAnchor::Start : TextAnchor::End});
        }
        canvas.endGroup();
    }

    if (legend) {
        canvas.beginGroup("legend");
        const double columnWidth = wrapped ? room.width : plan.columnWidth;
        const double textWidth = columnWidth - room.swatch;
        double y = top;
        for (std::size_t k = 0; k < plan.shown.size(); ++k) {
            const auto n = static_cast<std::size_t>(plan.shown[k]);
            const int column = static_cast<int>(k) / plan.rows;
            const double x = right + m.margin + column * columnWidth;
            if (!wrapped) y = top + (static_cast<int>(k) % plan.rows) * m.smallLine;
            const bool emphasised = !faded(n);
            const bool thick = highlighted && static_cast<std::size_t>(style.highlight) == n;
            const FontWeight weight = thick ? FontWeight::Bold : FontWeight::Regular;
            canvas.line(x, y + m.smallLine / 2, x + 1.5 * m.margin, y + m.smallLine / 2,
                        Stroke{seriesColor(n, series.size()), 3, emphasised ? 1.0 : 0.4});
            const std::string label = plan.brief ? briefLegendName(series[n].label) : series[n].label;
            const std::vector<std::string> lines =
                wrapped ? wrapWords(label, m.small, textWidth, weight) : std::vector<std::string>{label};
            for (std::size_t l = 0; l < lines.size(); ++l)
                canvas.text(x + swatch, y + static_cast<double>(l) * m.smallLine,
                            fitText(lines[l], m.small, textWidth, weight), TextStyle{m.small, kText, weight});
            if (wrapped) y += static_cast<double>(lines.size()) * m.smallLine;
        }
        if (plan.note) {
            const int at = static_cast<int>(plan.shown.size());
            const double x = right + m.margin + (at / plan.rows) * columnWidth;
            if (!wrapped) y = top + (at % plan.rows) * m.smallLine;
            canvas.text(x, y, legendNote(plan.shown.size(), series.size()), TextStyle{m.small, kNote});
        }
        canvas.endGroup();
    }
    layout.xTicks = std::move(xTicks);
    layout.yTicks = yTicks;
    return layout;
}

PanelLayout drawPlotFigure(Canvas& canvas, const std::vector<Series>& series, const PlotStyle& style) {
    const int width = std::max(style.width, 200), height = std::max(style.height, 150);
    const PlotMetrics m = plotMetrics(width, height);
    const Box box = drawFigureFrame(canvas, width, height, style.title, style.caption, m);
    return drawPlotPanel(canvas, series, style, box, m);
}

}  // namespace alibi::detail

namespace alibi {

Rgba seriesColor(std::size_t n, std::size_t count, PlotBackground background) {
    const double along = count <= 1 ? 0.0 : static_cast<double>(n) / static_cast<double>(count - 1);
    const double t = background == PlotBackground::Light ? 0.9 * along : 0.3 + 0.65 * along;
    return colormapColor(Colormap::Viridis, t);
}

}  // namespace alibi
