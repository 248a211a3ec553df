// The finished figures of figure.hpp: composition of the core's heatmap, colour bar, label font
// and SVG plot.
#include <alibi/figure/figure.hpp>

#include <alibi/explore/compute.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/ticks.hpp>
#include <alibi/render/tile_labels.hpp>
#include <alibi/text/visible.hpp>

#include <alibi/render/label_font.hpp>
#include "curves_plot.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace alibi {
namespace {

constexpr Rgba kBackground{255, 255, 255, 255};
constexpr Rgba kLabel{32, 32, 32, 255};
constexpr Rgba kCaption{96, 96, 96, 255};
constexpr Rgba kAxis{128, 128, 128, 255};

using detail::drawText;
using detail::elideText;
using detail::fillRect;
using detail::FontWeight;
using detail::lineHeight;
using detail::textWidth;

// Copies `src` at (x0, y0); its transparent pixels (the gaps between tiles, the cells of an
// incomplete last grid row) keep the background.
void blit(Image& dst, const Image& src, int x0, int y0) {
    for (int y = 0; y < src.height && y0 + y < dst.height; ++y)
        for (int x = 0; x < src.width && x0 + x < dst.width; ++x)
            if (x0 + x >= 0 && y0 + y >= 0 && src.at(x, y).a != 0) dst.at(x0 + x, y0 + y) = src.at(x, y);
}

// `text` in at most `maxLines` lines of `width` pixels, broken after a " · " where the next part
// would not fit; the last line is elided at its end (the Qt grid's subtitle rule). Measured
// at 1x (`size` and `width` divided by `scale`), so every pixel ratio breaks the same lines.
std::vector<std::string> wrapLines(const std::string& text, double size, int width, FontWeight weight, int scale,
                                   int maxLines = 2) {
    size /= scale;
    width /= scale;
    if (text.empty()) return {};
    const std::string separator = " · ";
    std::vector<std::string> lines{std::string()};
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t at = text.find(separator, from);
        const std::string part = text.substr(from, at == std::string::npos ? std::string::npos : at - from);
        std::string& line = lines.back();
        const std::string joined = line.empty() ? part : line + separator + part;
        if (line.empty() || static_cast<int>(lines.size()) >= maxLines || textWidth(joined, size, weight) <= width)
            line = joined;
        else
            lines.push_back(part);
        if (at == std::string::npos) break;
        from = at + separator.size();
    }
    for (std::string& line : lines) line = elideText(line, size, width, weight);
    return lines;
}

// The default colour bar: the map's own range, ends exact in f64.
alibi::ColorBar plainColorBar(const Heatmap& map, int tile, int targetTicks) {
    const HeatmapTile* t =
        tile >= 0 && tile < static_cast<int>(map.tiles.size()) ? &map.tiles[static_cast<std::size_t>(tile)] : nullptr;
    return alibi::makeColorBar(t ? t->lo : map.lo, t ? t->hi : map.hi, false, DType::F64, targetTicks);
}

// Pixel sizes of a figure's parts, all proportional to the font (itself from the 1x size).
struct Metrics {
    int scale = 1;
    double font = 13, small = 12, title = 15;
    int line = 0, smallLine = 0, titleLine = 0;
    int margin = 0, tick = 0, stroke = 1, gap = 0;
};

// Lengths are measured at 1x and multiplied, so a 2x figure is the 1x layout with exactly
// twice the pixels (the heatmap too); only the glyphs are rasterised at the larger size.
// `fontSize` (1x) when given, else one from the figure's size.
Metrics figureMetrics(int width, int height, int scale, double fontSize) {
    Metrics m;
    m.scale = scale;
    const double base = fontSize > 0
                            ? std::clamp(fontSize, 10.0, 16.0)
                            : figureFontSize(width / static_cast<double>(scale), height / static_cast<double>(scale));
    m.font = base * scale;
    m.small = m.font * 0.9;
    m.title = m.font * 1.15;
    m.line = lineHeight(base) * scale;
    m.smallLine = lineHeight(base * 0.9) * scale;
    m.titleLine = lineHeight(base * 1.15) * scale;
    m.margin = static_cast<int>(std::lround(0.8 * base)) * scale;
    m.tick = static_cast<int>(std::lround(0.35 * base)) * scale;
    m.stroke = scale;
    m.gap = static_cast<int>(std::lround(0.3 * base)) * scale;
    return m;
}

// Width of `text` in the small font, measured at 1x (layout lengths scale exactly).
int layoutWidth(std::string_view text, const Metrics& m) {
    return textWidth(text, m.small / m.scale) * m.scale;
}

// The label padding and the band above each tile that holds the label.
int labelPad(const Metrics& m) {
    return static_cast<int>(std::lround(0.35 * m.small / m.scale)) * m.scale;
}
int labelBand(const Metrics& m) {
    return m.smallLine + 2 * labelPad(m);
}

// "h3  m = 1/16" in the band above each tile of a grid (never over its cells), in the one form
// that fits every tile (tile_labels.hpp). A single tile gets none: the title names it.
void drawHeadLabels(Image& out, const Heatmap& map, const FigureFrame& frame, const Metrics& m, int x0, int y0) {
    const int pad = labelPad(m);
    if (map.tiles.size() < 2) return;
    std::vector<std::vector<std::string>> forms;
    for (int n = 0; n < static_cast<int>(map.tiles.size()); ++n) {
        const HeatmapTile& t = map.tiles[static_cast<std::size_t>(n)];
        TileLabelParts parts;
        parts.head = t.head;
        if (frame.tileLabel) parts.name = frame.tileLabel(n);
        if (t.head >= 0 && t.head < static_cast<int>(frame.slopes.size()))
            parts.slope = frame.slopes[static_cast<std::size_t>(t.head)];
        if (frame.tileRanges) {
            const alibi::ColorBar own = frame.colorBar ? frame.colorBar(map, n, 2) : plainColorBar(map, n, 2);
            if (!own.ticks.empty())
                parts.range = fmt::format("[{}, {}]", own.ticks.front().label, own.ticks.back().label);
        }
        forms.push_back(tileLabelForms(parts));
    }
    const std::vector<std::string> labels = chooseTileLabels(
        forms, [&](std::size_t n, const std::string& text) { return textWidth(text, m.small) <= map.tiles[n].width; });
    for (std::size_t n = 0; n < labels.size(); ++n)
        if (!labels[n].empty())
            drawText(out, x0 + map.tiles[n].x, y0 + map.tiles[n].y - labelBand(m) + pad, labels[n], m.small, kLabel);
}

// Tick marks and labels of the key axis under the bottom row of tiles and of the query axis
// left of the first column, each at the centre of its cell.
// `keyTokens` and `queryTokens` say whether the layout left room for token labels on that axis.
void drawAxes(Image& out, const Heatmap& map, const FigureFrame& frame, const Metrics& m, int x0, int y0,
              bool keyTokens, bool queryTokens) {
    if (map.tiles.empty() || frame.queries <= 0 || frame.keys <= 0) return;
    const std::span<const std::string> keyNames =
        keyTokens ? std::span<const std::string>(frame.keyTokens) : std::span<const std::string>();
    const std::span<const std::string> queryNames =
        queryTokens ? std::span<const std::string>(frame.queryTokens) : std::span<const std::string>();
    int left = map.tiles.front().x, bottom = 0;
    for (const HeatmapTile& t : map.tiles) {
        left = std::min(left, t.x);
        bottom = std::max(bottom, t.y + t.height);
    }
    const auto labelOf = [&](std::int64_t n) { return frame.axisLabel ? frame.axisLabel(n) : std::to_string(n); };
    int keyLabelWidth = layoutWidth(std::to_string(frame.keys - 1), m);
    if (frame.axisLabel)
        for (std::int64_t n = 0; n < frame.keys && n < 4096; ++n)
            keyLabelWidth = std::max(keyLabelWidth, layoutWidth(labelOf(n), m));
    // Where the last key label ended and the last query label's line did: a label that would
    // touch its neighbour from the next tile is left out (its tick stays).
    int keyEnd = std::numeric_limits<int>::min(), queryEnd = std::numeric_limits<int>::min();
    for (const HeatmapTile& t : map.tiles) {
        if (t.y + t.height == bottom) {
            const double perCell = static_cast<double>(t.width) / static_cast<double>(frame.keys);
            for (const alibi::IndexLabel& tick :
                 alibi::indexAxisLabels(frame.keys, perCell, m.smallLine, keyLabelWidth + m.font, keyNames)) {
                const std::int64_t j = tick.index;
                const int x = x0 + t.x + static_cast<int>((static_cast<double>(j) + 0.5) * perCell);
                fillRect(out, x - m.stroke / 2, y0 + bottom + 1, m.stroke, m.tick, kAxis);
                const std::string label = tick.token ? tick.text : labelOf(j);
                if (tick.token) {  // turned a quarter, reading downwards from the tick
                    drawText(out, x - m.smallLine / 2, y0 + bottom + m.tick + 1, label, m.small, kLabel,
                             FontWeight::Regular, /*vertical=*/true);
                    continue;
                }
                const int w = textWidth(label, m.small), lx = x - w / 2;
                if (lx < keyEnd + m.gap) continue;
                keyEnd = lx + w;
                drawText(out, lx, y0 + bottom + m.tick + 1, label, m.small, kLabel);
            }
        }
        if (t.x == left) {
            const double perCell = static_cast<double>(t.height) / static_cast<double>(frame.queries);
            for (const alibi::IndexLabel& tick :
                 alibi::indexAxisLabels(frame.queries, perCell, m.smallLine, 1.4 * m.smallLine, queryNames)) {
                const std::int64_t i = tick.index;
                const int y = y0 + t.y + static_cast<int>((static_cast<double>(i) + 0.5) * perCell);
                fillRect(out, x0 + left - m.tick - 1, y - m.stroke / 2, m.tick, m.stroke, kAxis);
                const std::string label = tick.token ? tick.text : labelOf(i);
                const int ly = y - m.smallLine / 2;
                if (ly < queryEnd) continue;
                queryEnd = ly + m.smallLine;
                drawText(out, x0 + left - m.tick - m.gap - textWidth(label, m.small), ly, label, m.small, kLabel);
            }
        }
    }
}

// The vertical colour bar at (x, y), `height` tall, ticks and labels at its right, the bar's
// title above it, ending at the figure's right margin, and the masked swatch beneath.
void drawColorBar(Image& out, const alibi::ColorBar& bar, Colormap colormap, const Metrics& m, int x, int y, int width,
                  int height) {
    if (height < 8) return;
    blit(out, renderColorBar(colormap, width, height, /*vertical=*/true), x, y);
    // Ends first (they must show), then the round ticks that do not collide with a label.
    std::vector<const alibi::Tick*> order;
    if (!bar.ticks.empty()) {
        order.push_back(&bar.ticks.back());
        if (bar.ticks.size() > 1) order.push_back(&bar.ticks.front());
        for (std::size_t n = 1; n + 1 < bar.ticks.size(); ++n) order.push_back(&bar.ticks[n]);
    }
    std::vector<int> used;
    for (const alibi::Tick* t : order) {
        const double pos = alibi::colorBarPosition(bar, t->value);
        const int ty = y + height - 1 - static_cast<int>(std::lround(pos * (height - 1)));
        if (std::any_of(used.begin(), used.end(), [&](int u) { return std::abs(u - ty) < m.smallLine; })) continue;
        used.push_back(ty);
        fillRect(out, x + width - m.tick / 2, ty - m.stroke / 2, m.tick / 2 + m.tick, m.stroke, kLabel);
        drawText(out, x + width + m.tick + m.gap, ty - m.smallLine / 2, t->label, m.small, kLabel);
    }
    std::string title = bar.title;
    if (!bar.head.empty()) title += "  " + bar.head;
    const int titleWidth = textWidth(title, m.small);
    // Above the top end's label (centred on the bar's top edge), never over it.
    drawText(out, std::min(x, out.width - m.margin - titleWidth),
             y - (m.smallLine / m.scale / 2) * m.scale - m.gap - m.smallLine, title, m.small, kLabel);
    if (bar.maskedSwatch) {
        const int side = m.smallLine * 2 / 3;
        const int sy = y + height + m.gap + m.smallLine / 2;
        fillRect(out, x, sy, side, side, kMaskedColor);
        drawText(out, x + side + m.gap, sy + side / 2 - m.smallLine / 2, "masked", m.small, kLabel);
    }
}

}  // namespace

Result<Image> heatmapFigure(int width, int height, Colormap colormap, const DrawHeatmapFn& draw) {
    FigureFrame frame;
    frame.colormap = colormap;
    return heatmapFigure(width, height, frame, draw);
}

Result<Image> heatmapFigure(int width, int height, const FigureFrame& frame, const DrawHeatmapFn& draw,
                            FigureMapPlacement* placed) {
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    const int scale = std::max(frame.scale, 1);
    const bool text = width / scale >= 240 && height / scale >= 180;  // smaller: the heatmap and the bar only
    Metrics m = figureMetrics(width, height, scale, frame.fontSize);
    if (!text) m.margin = std::max(1, std::min(width, height) / (50 * scale)) * scale;  // tiny: the map gets the room
    const bool axes = text && frame.queries > 0 && frame.keys > 0;

    // The frame's parts around the map, outside in.
    const int inner = width - 2 * m.margin;
    const std::vector<std::string> titleLines =
        text ? wrapLines(frame.title, m.title, inner, FontWeight::Bold, scale) : std::vector<std::string>{};
    // Bar labels are only known once the map is drawn: room for the longest exact f32 end.
    const int barWidth = text ? static_cast<int>(std::lround(0.9 * m.font / scale)) * scale : std::max(6, width / 40);
    const int barLabels = text ? layoutWidth("-0.00012345678", m) : 0;
    const int right = m.margin + barWidth + (text ? m.tick + m.gap + barLabels : 0) + m.margin;
    int queryLabels = axes ? layoutWidth(std::to_string(frame.queries - 1), m) : 0;
    if (axes && frame.axisLabel)
        for (std::int64_t n = 0; n < frame.queries && n < 4096; ++n)
            queryLabels = std::max(queryLabels, layoutWidth(frame.axisLabel(n), m));
    int top = m.margin + std::max(static_cast<int>(titleLines.size()), text ? frame.titleLines : 0) * m.titleLine;
    // The bar's title, above its top label (half a line, measured at 1x so 2x is exactly twice).
    if (text) top += m.gap + m.smallLine + (m.smallLine / m.scale / 2) * m.scale + 2 * m.gap;
    // The caption's lines are only known once the map is drawn: room for frame.captionLines.
    const bool hasCaption = text && static_cast<bool>(frame.caption);
    const int captionLines = std::max(1, frame.captionLines);
    int bottom = m.margin + (hasCaption ? captionLines * m.smallLine + m.gap : 0);
    if (axes) bottom += m.tick + m.smallLine + m.gap + m.line;
    // Token labels need room the numbers do not: the longest token beside the query axis, and
    // beneath the key axis (turned a quarter). A tile is never larger than the whole map, so
    // where the cells would not be a text line apart even then, no token will be drawn.
    const auto longest = [&](const std::vector<std::string>& tokens) {
        int w = 0;
        for (const std::string& t : tokens)
            w = std::max(w, layoutWidth(alibi::text::shortenText(t, alibi::kMaxTokenLabelChars), m));
        return w;
    };
    const int roughWidth = width - 2 * m.margin - right, roughHeight = height - top - bottom;
    const bool queryTokens =
        axes &&
        alibi::tokensFitAxis(frame.queries, static_cast<double>(roughHeight) / static_cast<double>(frame.queries),
                             m.smallLine, frame.queryTokens.size());
    const bool keyTokens =
        axes && alibi::tokensFitAxis(frame.keys, static_cast<double>(roughWidth) / static_cast<double>(frame.keys),
                                     m.smallLine, frame.keyTokens.size());
    if (queryTokens) queryLabels = std::max(queryLabels, longest(frame.queryTokens));
    const int keyTokenRoom = keyTokens ? std::max(0, longest(frame.keyTokens) - m.smallLine) : 0;
    bottom += keyTokenRoom;
    const int left = axes ? m.margin + m.line + m.gap + queryLabels + m.gap + m.tick + scale : m.margin;
    const int mapWidth = width - left - right, mapHeight = height - top - bottom;
    if (mapWidth < 1 || mapHeight < 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a {} x {} figure leaves no room for the heatmap and its frame: make it larger", width,
                                height));
    auto map = draw(mapWidth, mapHeight, text && frame.headLabels ? labelBand(m) : 0);
    if (!map) return std::unexpected(map.error());

    Image out;
    out.width = width;
    out.height = height;
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kBackground);
    blit(out, map->image, left, top);
    if (placed) *placed = FigureMapPlacement{left, top, map->tiles};

    // The height and width the tiles use: the grid may leave a strip at the bottom, square tiles
    // (the overview) one at the right; the colour bar and the key axis's label follow the tiles,
    // not the room they were given.
    int tilesBottom = 0, tilesRight = 0;
    for (const HeatmapTile& t : map->tiles) {
        tilesBottom = std::max(tilesBottom, t.y + t.height);
        tilesRight = std::max(tilesRight, t.x + t.width);
    }
    if (map->tiles.empty()) tilesBottom = map->image.height, tilesRight = map->image.width;
    const int targetTicks = std::clamp(tilesBottom / (60 * scale), 2, 10);
    alibi::ColorBar bar = frame.colorBar ? frame.colorBar(*map, -1, targetTicks) : plainColorBar(*map, -1, targetTicks);
    if (frame.tileRanges && map->tiles.size() > 1) bar = alibi::perTileColorBar(std::move(bar), *map);
    const int swatch = text && bar.maskedSwatch ? m.gap + 2 * m.smallLine : 0;
    const int barX = left + tilesRight + m.margin;
    if (!text) {
        blit(out, renderColorBar(frame.colormap, barWidth, std::max(1, tilesBottom), /*vertical=*/true), barX, top);
        return out;
    }
    drawColorBar(out, bar, frame.colormap, m, barX, top, barWidth, tilesBottom - swatch);
    if (frame.headLabels) drawHeadLabels(out, *map, frame, m, left, top);

    int y = m.margin;
    for (const std::string& line : titleLines) {
        drawText(out, m.margin, y, line, m.title, kLabel, FontWeight::Bold);
        y += m.titleLine;
    }
    y = top + tilesBottom;
    if (axes) {
        drawAxes(out, *map, frame, m, left, top, keyTokens, queryTokens);
        const std::string& keyAxis = frame.keyAxis;
        const std::string& queryAxis = frame.queryAxis;
        y += m.tick + m.smallLine + keyTokenRoom + m.gap;
        drawText(out, left + (tilesRight - textWidth(keyAxis, m.font)) / 2, y, keyAxis, m.font, kLabel);
        y += m.line;
        drawText(out, m.margin, top + (tilesBottom - textWidth(queryAxis, m.font)) / 2, queryAxis, m.font, kLabel,
                 FontWeight::Regular, /*vertical=*/true);
    }
    if (hasCaption) {
        y += m.gap;
        for (const std::string& line :
             wrapLines(frame.caption(*map), m.small, inner, FontWeight::Regular, scale, captionLines)) {
            drawText(out, m.margin, y, line, m.small, kCaption);
            y += m.smallLine;
        }
    }
    return out;
}

Result<Image> renderHeatmapFigure(const HeatmapParams& figure, unsigned threads, const ProgressFn& progress, int scale,
                                  const HeatmapPassFn& firstPicture) {
    scale = std::max(scale, 1);
    HeatmapParams params = figure;
    params.gap = figure.gap * scale;
    FigureFrame frame;
    frame.colormap = figure.colormap;
    frame.title = explore::heatmapTitle(figure);
    frame.queries = figure.attention.bias.queries;
    frame.keys = figure.attention.bias.keyCount();
    if (auto slopes = computeSlopes(figure.attention.bias.slopes))
        frame.slopes = std::move(*slopes);  // else renderHeatmap says why
    frame.tileRanges = figure.scale == ScaleMode::PerHead && figure.head < 0;
    frame.captionLines = frame.tileRanges ? 3 : 2;  // the per-head note is a line of its own
    frame.colorBar = [&](const Heatmap& map, int tile, int ticks) {
        return alibi::heatmapColorBar(map, params, tile, ticks);
    };
    frame.caption = [&](const Heatmap& map) { return explore::heatmapSubtitle(params, map); };
    frame.scale = scale;
    return heatmapFigure(figure.width * scale, figure.height * scale, frame, [&](int width, int height, int band) {
        params.width = width;
        params.height = height;
        params.labelBand = band;
        if (!firstPicture) return renderHeatmap(params, threads, progress);
        return explore::renderPasses(params, explore::gridPasses(params), threads, progress,
                                     [&](const HeatmapParams& pass, const Heatmap&) { firstPicture(pass); });
    });
}

Result<Image> renderBatchHeatmapFigure(const HeatmapParams& figure, const BatchParams& batch, std::int64_t row,
                                       int scale) {
    scale = std::max(scale, 1);
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
    FigureFrame frame;
    frame.colormap = figure.colormap;
    frame.title = fmt::format("{} · batch row {}", explore::heatmapTitle(figure), row);
    frame.queries = frame.keys = T;
    if (auto slopes = computeSlopes(figure.attention.bias.slopes)) frame.slopes = std::move(*slopes);
    frame.colorBar = [&](const Heatmap& map, int tile, int ticks) {
        return alibi::heatmapColorBar(map, figure, tile, ticks);
    };
    frame.caption = [&](const Heatmap& map) {
        std::string caption = explore::heatmapSubtitle(figure, map);
        if (caption.ends_with(" · ")) caption.resize(caption.size() - 4);  // value grids have no pixel summary
        return caption;
    };
    frame.scale = scale;
    return heatmapFigure(figure.width * scale, figure.height * scale, frame,
                         [&](int width, int height, int band) -> Result<Heatmap> {
                             ValueGridParams grid;
                             grid.labelBand = band;
                             grid.heads = shown;
                             grid.queries = grid.keys = T;
                             grid.colormap = figure.colormap;
                             grid.lo = lo;
                             grid.hi = hi;
                             grid.width = width;
                             grid.height = height;
                             grid.gap = figure.gap * scale;
                             Heatmap map = renderValueGrid(grid, [&](int h, std::int64_t i, std::int64_t j) {
                                 const std::size_t n = values->index(first + h, i, j);
                                 return values->masked[n] ? std::numeric_limits<double>::quiet_NaN()
                                                          : values->values[n];  // NaN: the mask grey
                             });
                             for (HeatmapTile& tile : map.tiles) tile.head += first;
                             map.lo = lo;
                             map.hi = hi;
                             return map;
                         });
}

std::string_view curveKindName(CurveKind kind) {
    switch (kind) {
        case CurveKind::Slopes:
            return "slopes";
        case CurveKind::BiasDistance:
            return "distance";
        case CurveKind::AttentionDistance:
            return "attention-distance";
    }
    return "slopes";
}

std::optional<CurveKind> parseCurveKind(std::string_view name) {
    for (const CurveKind kind : {CurveKind::Slopes, CurveKind::BiasDistance, CurveKind::AttentionDistance})
        if (name == curveKindName(kind)) return kind;
    return std::nullopt;
}

namespace detail {

Result<CurvesPlot> curvesPlot(const CurvesParams& params, const ProgressFn& progress) {
    const BiasParams& b = params.attention.bias;
    CurvesPlot plot;
    PlotStyle& style = plot.style;
    style = plotAxes(params.kind == CurveKind::Slopes              ? PlotKind::Slopes
                     : params.kind == CurveKind::AttentionDistance ? PlotKind::AttentionDistance
                                                                   : PlotKind::BiasDistance);
    style.width = params.width;
    style.height = params.height;
    style.highlight = params.head;
    Result<std::vector<Series>> series = std::vector<Series>{};
    if (params.kind == CurveKind::Slopes) {
        series = slopeSeries(b.slopes);
        style.title = fmt::format("ALiBi slopes, {} heads, scheme {}", b.slopes.heads, schemeName(b.slopes.scheme));
        style.xLabel = "head";
        style.yLabel = "slope m (log2 axis)";
        style.caption = fmt::format(
            "bias(i, j) = -m_h·(i - j): head h's slope m_h sets how fast its attention falls "
            "with distance · scheme {}, max_bias {}",
            schemeName(b.slopes.scheme), b.slopes.maxBias);
    } else if (params.kind == CurveKind::AttentionDistance) {
        series = attentionDistanceSeries(params.attention, params.query, progress);
        style.title = fmt::format("Attention vs distance, query {}, {} content", params.query,
                                  contentName(params.attention.content.kind));
        style.xLabel = "distance p_i - j";
        style.yLabel = "probability";
        HeatmapParams formula;
        formula.attention = params.attention;
        formula.what = RenderWhat::Attention;
        std::string line = explore::heatmapSubtitle(formula, Heatmap{});
        if (const auto at = line.find(" · rows:"); at != std::string::npos) line.resize(at);
        style.caption = fmt::format("{} · temperature τ = {}", line, params.attention.content.temperature);
    } else {
        series = biasDistanceSeries(b, std::max<std::int64_t>(1, std::max(b.queries, b.keyCount()) - 1));
        style.title = fmt::format("Bias vs distance, mode {}", modeName(b.mode));
        style.xLabel = "distance";
        style.yLabel = "bias";
        style.caption = fmt::format(
            "bias = -m_h·d at distance d = i - j, rounded to {} (bloom and mpt differ from this "
            "by a constant per row, which softmax ignores)",
            dtypeName(b.dtype));
    }
    if (!series) return std::unexpected(series.error());
    plot.series = std::move(*series);
    return plot;
}

}  // namespace detail

Result<std::string> renderCurvesSvg(const CurvesParams& params, const ProgressFn& progress) {
    auto plot = detail::curvesPlot(params, progress);
    if (!plot) return std::unexpected(plot.error());
    return plotSvg(plot->series, plot->style);
}

// Cuts `image` `margin` pixels below its lowest row that differs from its bottom-left pixel
// (the background).
void cutBelowContent(Image& image, int margin) {
    const Rgba background = image.at(0, image.height - 1);
    int last = 0;
    for (int y = image.height - 1; y >= 0 && last == 0; --y)
        for (int x = 0; x < image.width; ++x)
            if (image.at(x, y) != background) {
                last = y;
                break;
            }
    const int height = std::min(image.height, last + 1 + margin);
    image.pixels.resize(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(height));
    image.height = height;
}

double figureFontSize(double width, double height) {
    return std::clamp(std::min(width, height) / 55.0, 10.0, 16.0);
}

}  // namespace alibi
