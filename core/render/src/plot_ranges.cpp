// See plot_ranges.hpp.
#include <alibi/render/plot_ranges.hpp>

#include <alibi/render/ticks.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double axisY(const PlotStyle& style, double y) {
    return style.logY2 ? std::log2(y) : y;
}

// The x span of every drawable point, in axis units; nullopt when none is.
std::optional<std::pair<double, double>> xSpan(const std::vector<Series>& series, const PlotStyle& style) {
    double lo = kInf, hi = -kInf;
    for (const Series& s : series)
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k)
            if (plotDrawable(style, s.x[k], s.y[k])) {
                lo = std::min(lo, plotAxisX(style, s.x[k]));
                hi = std::max(hi, plotAxisX(style, s.x[k]));
            }
    if (lo > hi) return std::nullopt;
    return std::pair{lo, hi};
}

}  // namespace

bool plotDrawable(const PlotStyle& style, double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!style.logY2 || y > 0) && (!style.logX1p || x >= 0);
}

double plotAxisX(const PlotStyle& style, double x) {
    return style.logX1p ? axisPosition(AxisScale::Log2OnePlus, x) : x;
}

PlotRanges plotRanges(const std::vector<Series>& series, const PlotStyle& style,
                      std::optional<std::pair<double, double>> xWindow) {
    const auto span = xSpan(series, style);
    PlotRanges r{span ? span->first : 0.0, span ? span->second : 1.0, kInf, -kInf};
    // Zoomed: the window asked for, inside the data's.
    if (span && xWindow) {
        const double lo = std::max(xWindow->first, r.xmin), hi = std::min(xWindow->second, r.xmax);
        if (hi > lo) r.xmin = lo, r.xmax = hi;
    }
    for (const Series& s : series)
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
            if (!plotDrawable(style, s.x[k], s.y[k])) continue;
            const double x = plotAxisX(style, s.x[k]);
            if (x < r.xmin || x > r.xmax) continue;
            r.ymin = std::min(r.ymin, axisY(style, s.y[k]));
            r.ymax = std::max(r.ymax, axisY(style, s.y[k]));
        }
    const double highest = r.ymax;                // -inf without a point
    if (r.ymin > r.ymax) r.ymin = 0, r.ymax = 1;  // no point (inside the window)
    if (r.xmax == r.xmin) r.xmin -= 0.5, r.xmax += 0.5;
    if (r.ymax == r.ymin) r.ymin -= 0.5, r.ymax += 0.5;
    if (style.bars || style.categorical) r.xmin -= 0.5, r.xmax += 0.5;
    if (style.bars) {
        // Bars stand on the bottom of a log axis: leave room below the smallest, or it has no height.
        if (style.logY2)
            r.ymin -= 0.25;
        else
            r.ymin = std::min(r.ymin, 0.0), r.ymax = std::max(r.ymax, 0.0);
    }
    if (style.yFromZero && !style.logY2) {
        r.ymin = std::min(r.ymin, 0.0);
        // A curve's peak (the extrapolation's distance 0) stays off the frame's top edge.
        if (!style.bars && r.ymax > 0) r.ymax += 0.04 * (r.ymax - r.ymin);
    }
    if (style.logY2) r.ymin = std::floor(r.ymin), r.ymax = std::ceil(r.ymax);
    // Bars never touch the frame: room above the tallest (a quarter octave on a log axis).
    if (style.bars) {
        if (style.logY2 && r.ymax - highest < 0.25) r.ymax += 1;
        const double spanY = r.ymax - r.ymin;
        if (!style.logY2 && r.ymax > 0) r.ymax += 0.06 * spanY;
        if (!style.logY2 && r.ymin < 0) r.ymin -= 0.06 * spanY;  // a bar hanging from 0 likewise
    }
    return r;
}

}  // namespace alibi
