// Curve data shared by every front end, and standalone SVG plots of it for the CLI.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {

// ---------------------------------------------------------------------------
// Series

Result<std::vector<Series>> slopeSeries(const SlopeParams& params) {
    auto slopes = computeSlopes(params);
    if (!slopes) return std::unexpected(slopes.error());
    Series s{fmt::format("{} slopes", schemeName(params.scheme)), {}, {}};
    for (std::size_t h = 0; h < slopes->size(); ++h) {
        s.x.push_back(static_cast<double>(h));
        s.y.push_back((*slopes)[h]);
    }
    return std::vector<Series>{std::move(s)};
}

Result<std::vector<Series>> biasDistanceSeries(const BiasParams& params, std::int64_t maxDistance) {
    auto slopes = validateBias(params);
    if (!slopes) return std::unexpected(slopes.error());
    if (maxDistance < 0 || maxDistance > kMaxLength)
        return fail(ErrorCode::InvalidArgument, fmt::format("max distance must be 0..{}, got {}", kMaxLength, maxDistance));
    // Plotted as -m*d for every mode: bloom and mpt differ from causal only by a constant per
    // row, which softmax ignores, so the distance profile is the same.
    std::vector<Series> out;
    for (std::size_t h = 0; h < slopes->size(); ++h) {
        const double m = (*slopes)[h];
        Series s{fmt::format("head {} (m = {:.4g})", h, m), {}, {}};
        for (std::int64_t d = 0; d <= maxDistance; ++d) {
            s.x.push_back(static_cast<double>(d));
            s.y.push_back(roundTo(params.dtype, -(m * static_cast<double>(d))));
        }
        out.push_back(std::move(s));
    }
    return out;
}

Result<std::vector<Series>> attentionDistanceSeries(const AttentionParams& params, std::int64_t query,
                                                    const ProgressFn& progress) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    const std::int64_t Q = params.bias.queries;
    if (query < 0) query = Q - 1;
    if (query >= Q)
        return fail(ErrorCode::InvalidArgument, fmt::format("--query {} is beyond the last row {}", query, Q - 1));
    const std::int64_t pos = params.bias.queryPosition(query);
    std::vector<Series> out;
    const auto heads = static_cast<std::uint64_t>(params.bias.slopes.heads);
    for (int h = 0; h < params.bias.slopes.heads; ++h) {
        if (progress && !progress(static_cast<std::uint64_t>(h), heads))
            return fail(ErrorCode::Cancelled, "attention curves cancelled");
        auto row = attentionRow(params, h, query);
        if (!row) return std::unexpected(row.error());
        Series s{fmt::format("head {} (m = {:.4g})", h, (*slopes)[static_cast<std::size_t>(h)]), {}, {}};
        // Distance p_i - j, nearest key first; future keys (negative distance) of unmasked modes too.
        for (std::int64_t j = static_cast<std::int64_t>(row->size()) - 1; j >= 0; --j) {
            s.x.push_back(static_cast<double>(pos - j));
            s.y.push_back((*row)[static_cast<std::size_t>(j)]);
        }
        out.push_back(std::move(s));
    }
    return out;
}

// ---------------------------------------------------------------------------
// SVG

namespace {

std::string escapeXml(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string tickLabel(double v) {
    if (std::fabs(v) < 1e-12) return "0";
    return fmt::format("{:.4g}", v);
}

Rgba seriesColor(std::size_t n, std::size_t count) {
    // Spread along viridis, stopping short of its pale yellow end, which vanishes on white.
    const double t = count <= 1 ? 0.0 : 0.9 * static_cast<double>(n) / static_cast<double>(count - 1);
    return colormapColor(Colormap::Viridis, t);
}

}  // namespace

std::vector<double> niceTicks(double lo, double hi, int target) {
    constexpr int kMaxTicks = 64;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return {lo};
    const double raw = (hi - lo) / std::clamp(target, 1, kMaxTicks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (double f : {1.0, 2.0, 5.0})
        if (raw <= f * magnitude) {
            step = f * magnitude;
            break;
        }
    const double first = std::ceil(lo / step) * step;
    // Ticks are counted, not accumulated: when step is below the resolution of doubles near lo,
    // first + step == first and a loop adding step would never end.
    if (!std::isfinite(first) || first + step == first) return {lo};
    std::vector<double> ticks;
    for (int n = 0; n < kMaxTicks; ++n) {
        const double t = first + n * step;
        if (t > hi + step * 1e-9) break;
        ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);  // no "-0" or 1e-17 at zero
    }
    if (ticks.empty()) ticks.push_back(lo);
    return ticks;
}

std::string plotSvg(const std::vector<Series>& series, const PlotStyle& style) {
    const int W = std::max(style.width, 200), H = std::max(style.height, 150);
    const bool legend = !series.empty() && series.size() <= 16;
    const double left = 70, right = legend ? 190 : 20, top = style.title.empty() ? 20 : 44, bottom = 56;
    const double pw = W - left - right, ph = H - top - bottom;

    auto ty = [&](double y) { return style.logY2 ? std::log2(y) : y; };
    double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
    for (const auto& s : series)
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
            if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k]) || (style.logY2 && s.y[k] <= 0)) continue;
            xmin = std::min(xmin, s.x[k]);
            xmax = std::max(xmax, s.x[k]);
            ymin = std::min(ymin, ty(s.y[k]));
            ymax = std::max(ymax, ty(s.y[k]));
        }
    if (xmin > xmax) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
    if (xmax == xmin) xmin -= 0.5, xmax += 0.5;
    if (ymax == ymin) ymin -= 0.5, ymax += 0.5;
    if (style.bars) {
        xmin -= 0.5, xmax += 0.5;
        // Bars stand on the bottom of a log axis: leave room below the smallest, or it has no height.
        if (style.logY2) ymin -= 0.25;
        else ymin = std::min(ymin, 0.0), ymax = std::max(ymax, 0.0);
    }
    if (style.logY2) ymin = std::floor(ymin), ymax = std::ceil(ymax);
    auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };
    auto py = [&](double y) { return top + ph - (ty(y) - ymin) / (ymax - ymin) * ph; };

    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        W, H, W, H);
    if (!style.title.empty())
        svg += fmt::format("<text x=\"{}\" y=\"26\" font-size=\"15\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
                           left + pw / 2, escapeXml(style.title));

    // Grid and ticks.
    svg += "<g class=\"x-ticks\" stroke=\"#ddd\">\n";
    for (double x : niceTicks(xmin, xmax, 8))
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
                           "<text x=\"{0:.1f}\" y=\"{3:.1f}\" stroke=\"none\" fill=\"#333\" text-anchor=\"middle\">{4}</text>\n",
                           px(x), top, top + ph, top + ph + 16, tickLabel(x));
    svg += "</g>\n<g class=\"y-ticks\" stroke=\"#ddd\">\n";
    if (style.logY2) {
        const double step = std::max(1.0, std::ceil((ymax - ymin) / 10));
        for (double e = ymin; e <= ymax + 1e-9; e += step)
            svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/>"
                               "<text x=\"{3:.1f}\" y=\"{4:.1f}\" stroke=\"none\" fill=\"#333\" text-anchor=\"end\">2^{5}</text>\n",
                               left, py(std::exp2(e)), left + pw, left - 6, py(std::exp2(e)) + 4, tickLabel(e));
    } else {
        for (double y : niceTicks(ymin, ymax, 6))
            svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/>"
                               "<text x=\"{3:.1f}\" y=\"{4:.1f}\" stroke=\"none\" fill=\"#333\" text-anchor=\"end\">{5}</text>\n",
                               left, py(y), left + pw, left - 6, py(y) + 4, tickLabel(y));
    }
    svg += "</g>\n";
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", left, top, pw, ph);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + pw / 2, H - 14,
                       escapeXml(style.xLabel));
    svg += fmt::format("<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                       top + ph / 2, escapeXml(style.yLabel));

    // Series: the highlighted one last, so it is drawn on top.
    std::vector<std::size_t> order(series.size());
    for (std::size_t n = 0; n < order.size(); ++n) order[n] = n;
    if (style.highlight >= 0 && static_cast<std::size_t>(style.highlight) < series.size())
        std::stable_partition(order.begin(), order.end(),
                              [&](std::size_t n) { return n != static_cast<std::size_t>(style.highlight); });
    for (std::size_t n : order) {
        const auto& s = series[n];
        const Rgba c = seriesColor(n, series.size());
        const bool emphasised = style.highlight < 0 || static_cast<std::size_t>(style.highlight) == n;
        if (style.bars) {
            const double width = 0.8 * pw / (xmax - xmin);
            const double base = style.logY2 ? top + ph : py(0.0);
            svg += fmt::format("<g class=\"bars\" fill=\"#{:02x}{:02x}{:02x}\" fill-opacity=\"{}\">\n", c.r, c.g, c.b,
                               emphasised ? 1.0 : 0.3);
            for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
                if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k]) || (style.logY2 && s.y[k] <= 0)) continue;
                const double y = py(s.y[k]);
                svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\">"
                                   "<title>{} at {}: {}</title></rect>\n",
                                   px(s.x[k]) - width / 2, std::min(y, base), width, std::fabs(base - y),
                                   escapeXml(s.label), tickLabel(s.x[k]), fmt::format("{:.6g}", s.y[k]));
            }
            svg += "</g>\n";
            continue;
        }
        std::string points;
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
            if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k]) || (style.logY2 && s.y[k] <= 0)) continue;
            points += fmt::format("{:.2f},{:.2f} ", px(s.x[k]), py(s.y[k]));
        }
        svg += fmt::format(
            "<polyline fill=\"none\" stroke=\"#{:02x}{:02x}{:02x}\" stroke-width=\"{}\" stroke-opacity=\"{}\" points=\"{}\">"
            "<title>{}</title></polyline>\n",
            c.r, c.g, c.b, emphasised && style.highlight >= 0 ? 3 : 1.5, emphasised ? 1.0 : 0.3, points, escapeXml(s.label));
        if (s.x.size() == 1 || series.size() == 1)  // single series: mark its points (the slope plot)
            for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k)
                if (std::isfinite(s.y[k]) && (!style.logY2 || s.y[k] > 0))
                    svg += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"#{:02x}{:02x}{:02x}\"/>\n",
                                       px(s.x[k]), py(s.y[k]), c.r, c.g, c.b);
    }

    if (legend) {
        svg += "<g class=\"legend\">\n";
        for (std::size_t n = 0; n < series.size(); ++n) {
            const Rgba c = seriesColor(n, series.size());
            const double y = top + 10 + 18.0 * static_cast<double>(n);
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#{3:02x}{4:02x}{5:02x}\" stroke-width=\"3\"/>"
                               "<text x=\"{6}\" y=\"{7}\">{8}</text>\n",
                               left + pw + 12, y, left + pw + 32, c.r, c.g, c.b, left + pw + 38, y + 4, escapeXml(series[n].label));
        }
        svg += "</g>\n";
    } else if (!series.empty()) {
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{} series: {} (dark) to {} (light)</text>\n",
                           left + pw - 6, top + 16, series.size(), escapeXml(series.front().label),
                           escapeXml(series.back().label));
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace alibi
