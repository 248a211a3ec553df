// Curve data shared by every front end, and plots of it as SVG or PNG (one layout: plot_draw.hpp).
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>

#include <alibi/render/plot_draw.hpp>

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
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("max distance must be 0..{}, got {}", kMaxLength, maxDistance));
    // Plotted as -m*d for every mode: bloom and mpt differ from causal only by a constant per
    // row, which softmax ignores, so the distance profile is the same.
    std::vector<Series> out;
    for (std::size_t h = 0; h < slopes->size(); ++h) {
        const double m = (*slopes)[h];
        Series s{fmt::format("head {} (m = {})", h, formatSlope(m)), {}, {}};
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
        Series s{fmt::format("head {} (m = {})", h, formatSlope((*slopes)[static_cast<std::size_t>(h)])), {}, {}};
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
// Ticks and figures

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
    // Without the font the text is still written, only measured as empty (the SVG viewer draws it).
    (void)detail::loadLabelFont();
    detail::SvgCanvas canvas(std::max(style.width, 200), std::max(style.height, 150));
    detail::drawPlotFigure(canvas, series, style);
    return canvas.finish();
}

Result<Image> plotPng(const std::vector<Series>& series, const PlotStyle& style, int scale) {
    if (scale != 1 && scale != 2 && scale != 4)
        return fail(ErrorCode::InvalidArgument, fmt::format("pixel ratio {} is not 1, 2 or 4", scale));
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    detail::RasterCanvas canvas(std::max(style.width, 200), std::max(style.height, 150), scale);
    detail::drawPlotFigure(canvas, series, style);
    return canvas.take();
}

}  // namespace alibi
