// The finished figures of figure.hpp: composition of the core's heatmap, colour bar, label font
// and SVG plot.
#include <alibi/render/figure.hpp>

#include <alibi/model/batch_attention.hpp>
#include <alibi/render/plot.hpp>

#include "label_font.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>

namespace alibi {
namespace {

constexpr Rgba kBackground{255, 255, 255, 255};
constexpr Rgba kLabel{32, 32, 32, 255};

void blit(Image& dst, const Image& src, int x0, int y0) {
    for (int y = 0; y < src.height && y0 + y < dst.height; ++y)
        for (int x = 0; x < src.width && x0 + x < dst.width; ++x) dst.at(x0 + x, y0 + y) = src.at(x, y);
}

}  // namespace

Result<Image> heatmapFigure(int width, int height, Colormap colormap,
                            const std::function<Result<Heatmap>(int width, int height)>& draw) {
    using detail::drawText;
    using detail::fillRect;
    using detail::textHeight;
    using detail::textWidth;
    const int margin = std::max(4, height / 100);
    const int barHeight = std::clamp(height / 30, 6, 24);
    const int textScale = std::clamp(std::min(width, height) / 180, 1, 4);
    const int labelHeight = height >= 120 ? textHeight(textScale) : 0;  // no room for text on tiny images
    const int mapHeight = height - barHeight - 2 * margin - (labelHeight ? labelHeight + margin : 0);
    auto map = draw(width, mapHeight);
    if (!map) return std::unexpected(map.error());

    Image out;
    out.width = width;
    out.height = height;
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kBackground);
    blit(out, map->image, 0, 0);
    const int barY = mapHeight + margin;
    const Image colorBar = renderColorBar(colormap, width - 2 * margin, barHeight, /*vertical=*/false);
    blit(out, colorBar, margin, barY);
    if (labelHeight == 0) return out;

    const int pad = textScale;
    for (const HeatmapTile& tile : map->tiles) {
        const std::string label = fmt::format("h{}", tile.head);
        const int w = textWidth(label, textScale);
        if (tile.width < w + 4 * pad || tile.height < labelHeight + 4 * pad) continue;
        fillRect(out, tile.x + pad, tile.y + pad, w + 2 * pad, labelHeight + 2 * pad, kBackground);
        drawText(out, tile.x + 2 * pad, tile.y + 2 * pad, label, textScale, kLabel);
    }
    const std::string lo = fmt::format("{:.4g}", map->lo), hi = fmt::format("{:.4g}", map->hi);
    const int textY = barY + barHeight + margin / 2;
    drawText(out, margin, textY, lo, textScale, kLabel);
    drawText(out, width - margin - textWidth(hi, textScale), textY, hi, textScale, kLabel);
    return out;
}

// The heatmap over a horizontal colour bar with its range written beneath, head numbers in
// the tiles, in exactly width x height pixels.
Result<Image> renderHeatmapFigure(const HeatmapParams& figure, unsigned threads, const ProgressFn& progress) {
    return heatmapFigure(figure.width, figure.height, figure.colormap, [&](int width, int height) {
        HeatmapParams params = figure;
        params.width = width;
        params.height = height;
        return renderHeatmap(params, threads, progress);
    });
}

Result<Image> renderBatchHeatmapFigure(const HeatmapParams& figure, const BatchParams& batch, std::int64_t row) {
    auto values = figure.what == RenderWhat::Attention ? batchRowAttention(figure.attention, batch, row)
                                                       : batchRowBias(figure.attention.bias, batch, row);
    if (!values) return std::unexpected(values.error());
    const std::int64_t T = values->length;
    const int first = std::max(figure.head, 0);
    const int shown = figure.head >= 0 ? 1 : static_cast<int>(values->heads);
    // The colour range: the exact extremes of the shown cells that are not masked.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int h = first; h < first + shown; ++h)
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = 0; j < T; ++j) {
                const std::size_t n = values->index(h, i, j);
                if (values->masked[n] || !std::isfinite(values->values[n])) continue;
                lo = std::min(lo, values->values[n]);
                hi = std::max(hi, values->values[n]);
            }
    if (lo > hi) lo = hi = 0;  // every cell masked
    return heatmapFigure(figure.width, figure.height, figure.colormap, [&](int width, int height) -> Result<Heatmap> {
        ValueGridParams grid;
        grid.heads = shown;
        grid.queries = grid.keys = T;
        grid.colormap = figure.colormap;
        grid.lo = lo;
        grid.hi = hi;
        grid.width = width;
        grid.height = height;
        grid.gap = figure.gap;
        Heatmap map = renderValueGrid(grid, [&](int h, std::int64_t i, std::int64_t j) {
            const std::size_t n = values->index(first + h, i, j);
            return values->masked[n] ? std::numeric_limits<double>::quiet_NaN() : values->values[n];  // NaN: the mask grey
        });
        for (HeatmapTile& tile : map.tiles) tile.head += first;
        map.lo = lo;
        map.hi = hi;
        return map;
    });
}

std::string_view curveKindName(CurveKind kind) {
    switch (kind) {
        case CurveKind::Slopes: return "slopes";
        case CurveKind::BiasDistance: return "distance";
        case CurveKind::AttentionDistance: return "attention-distance";
    }
    return "slopes";
}

std::optional<CurveKind> parseCurveKind(std::string_view name) {
    for (const CurveKind kind : {CurveKind::Slopes, CurveKind::BiasDistance, CurveKind::AttentionDistance})
        if (name == curveKindName(kind)) return kind;
    return std::nullopt;
}

Result<std::string> renderCurvesSvg(const CurvesParams& params, const ProgressFn& progress) {
    const BiasParams& b = params.attention.bias;
    PlotStyle style;
    style.width = params.width;
    style.height = params.height;
    style.highlight = params.head;
    Result<std::vector<Series>> series = std::vector<Series>{};
    if (params.kind == CurveKind::Slopes) {
        series = slopeSeries(b.slopes);
        style.title = fmt::format("ALiBi slopes, {} heads, scheme {}", b.slopes.heads, schemeName(b.slopes.scheme));
        style.xLabel = "head";
        style.yLabel = "slope m (log2 axis)";
        style.logY2 = true;
    } else if (params.kind == CurveKind::AttentionDistance) {
        series = attentionDistanceSeries(params.attention, params.query, progress);
        style.title = fmt::format("Attention vs distance, query {}, {} content", params.query,
                                  contentName(params.attention.content.kind));
        style.xLabel = "distance p_i - j";
        style.yLabel = "probability";
    } else {
        series = biasDistanceSeries(b, std::max<std::int64_t>(1, std::max(b.queries, b.keyCount()) - 1));
        style.title = fmt::format("Bias vs distance, mode {}", modeName(b.mode));
        style.xLabel = "distance";
        style.yLabel = "bias";
    }
    if (!series) return std::unexpected(series.error());
    return plotSvg(*series, style);
}

}  // namespace alibi
