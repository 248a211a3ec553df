// Rasterising heatmaps at pixel resolution: the request checked, the tiles placed, the summary
// line; the pixels themselves are heatmap_paint.cpp's. A pixel that covers several cells shows
// their mean (bias, in closed form, so the work stays O(pixels) whatever T is) or the maximum,
// sum or mean over the keys of one exact query row (attention, rows computed on the float path);
// colours come from the colour map's 256-entry table over the exact range of the values shown.
#include <alibi/base/image_size.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/arith.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include "attention_rows.hpp"
#include "batch_pixels.hpp"
#include "heatmap_paint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace alibi {

HeatmapParams heatmapParams(const Session& session) {
    HeatmapParams p;
    p.attention = session.attention;
    p.what = session.what;
    p.head = session.head;
    p.colormap = session.colormap;
    p.scale = session.scale;
    p.width = session.width;
    p.height = session.height;
    p.batch = session.batch;
    p.batchRow = session.batchRow;
    return p;
}

GridLayout gridLayout(int heads, int width, int height) {
    // The column count that makes the largest square-ish tile: maximise the tile's short side.
    GridLayout best;
    double bestSide = -1;
    for (int c = 1; c <= std::max(heads, 1); ++c) {
        const int r = (heads + c - 1) / c;
        const double side = std::min(static_cast<double>(width) / c, static_cast<double>(height) / r);
        if (side > bestSide + 1e-9) {
            bestSide = side;
            best = {c, r};
        }
    }
    return best;
}

Rgba valueColor(Colormap map, double value, double lo, double hi) {
    if (!std::isfinite(value)) return kMaskedColor;
    const double t = hi > lo ? (value - lo) / (hi - lo) : 0.5;
    return colormapColor(map, t);
}

Image renderColorBar(Colormap map, int width, int height, bool vertical) {
    Image image;
    image.width = std::max(width, 1);
    image.height = std::max(height, 1);
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            // Vertical bars put the high end at the top, as every plotting tool does.
            const double t = vertical ? 1.0 - static_cast<double>(y) / std::max(image.height - 1, 1)
                                      : static_cast<double>(x) / std::max(image.width - 1, 1);
            image.at(x, y) = colormapColor(map, t);
        }
    return image;
}

CellSpan pixelCells(int p, int pixels, std::int64_t cells) {
    if (cells <= pixels) {
        const std::int64_t c = detail::cellAt(p, pixels, cells);
        return {c, c};
    }
    // Exact integer bounds: pixel p covers [floor(p * cells / pixels), floor((p + 1) * cells / pixels)).
    const std::int64_t first = static_cast<std::int64_t>(p) * cells / pixels;
    const std::int64_t end = static_cast<std::int64_t>(p + 1) * cells / pixels;
    return {first, std::max(first, end - 1)};
}

namespace {

// Shrinks a tile of w x h pixels to the K:Q aspect of its cells, so they are square.
void squareUp(const HeatmapParams& params, int& w, int& h) {
    const TileSize tile = squareCellTile(w, h, params.attention.bias.queries, params.attention.bias.keyCount());
    w = tile.width;
    h = tile.height;
}

// `bandAware`: the value grid's square-celled layout, whose column count also counts the label
// bands (the head grid keeps gridLayout's choice).
std::vector<HeatmapTile> placeTiles(const HeatmapParams& params, std::vector<int> heads, Heatmap& map,
                                    bool bandAware = false) {
    std::vector<HeatmapTile> tiles;
    if (heads.size() == 1) {
        map.columns = map.rows = 1;
        int w = params.width, h = params.height;
        if (params.squareCells) squareUp(params, w, h);
        tiles.push_back({heads[0], 0, 0, w, h, 0, 0, 0});
        return tiles;
    }
    auto grid = gridLayout(static_cast<int>(heads.size()), params.width, params.height);
    if (params.squareCells && bandAware) {
        // Square cells: the column count that gives the largest cell once the gaps and every
        // row's label band are taken off (a wide, short view loses a band per row).
        const double K = static_cast<double>(std::max<std::int64_t>(params.attention.bias.keyCount(), 1));
        const double Q = static_cast<double>(std::max<std::int64_t>(params.attention.bias.queries, 1));
        const int n = static_cast<int>(heads.size());
        double bestCell = -1;
        for (int c = 1; c <= n; ++c) {
            const int r = (n + c - 1) / c;
            const int rowBand = std::clamp(params.labelBand, 0, std::max(0, params.height / (4 * r)));
            const double w = static_cast<double>(params.width - std::max(params.gap, 0) * (c - 1)) / c;
            const double h = static_cast<double>(params.height - std::max(params.gap, 0) * (r - 1) - rowBand * r) / r;
            const double cell = std::min(w / K, h / Q);
            if (cell > bestCell + 1e-9) bestCell = cell, grid = {c, r};
        }
    }
    map.columns = grid.columns;
    map.rows = grid.rows;
    const int gap = std::max(params.gap, 0);
    // Every tile row gives up `band` pixels above it for the tiles' labels, all rows' bands
    // together at most a quarter of the height (4096 heads in 64 rows leave no room for labels;
    // a band per row beyond that would place tiles outside the image).
    const int band = std::clamp(params.labelBand, 0, std::max(0, params.height / (4 * std::max(1, grid.rows))));
    int tileW = (params.width - gap * (grid.columns - 1)) / grid.columns;
    int tileH = std::max(1, (params.height - gap * (grid.rows - 1) - band * grid.rows) / grid.rows);
    if (params.squareCells) squareUp(params, tileW, tileH);
    for (std::size_t n = 0; n < heads.size(); ++n) {
        const int c = static_cast<int>(n) % grid.columns, r = static_cast<int>(n) / grid.columns;
        tiles.push_back({heads[n], c * (tileW + gap), r * (tileH + gap + band) + band, tileW, tileH, 0, 0, 0});
    }
    return tiles;
}

std::string countText(double cells) {
    const double r = std::round(cells);
    return std::abs(cells - r) < 1e-9 ? fmt::format("{}", static_cast<long long>(r)) : fmt::format("{:.3g}", cells);
}

// `zoomX` x `zoomY`: screen pixels per image pixel where the image is shown scaled.
std::string summaryText(const Heatmap& map, bool attention, double zoomX = 1, double zoomY = 1) {
    const double kx = map.cellsPerPixelX / zoomX, qy = map.cellsPerPixelY / zoomY;
    std::string preview;
    if (map.rowStep > 1 || map.keyStep > 1) {
        preview = " (preview: ";
        if (map.rowStep > 1) preview += fmt::format("1 pixel row in {} computed so far", map.rowStep);
        if (map.rowStep > 1 && map.keyStep > 1) preview += ", ";
        if (map.keyStep > 1) preview += fmt::format("q.k of 1 key in {}, shared by its neighbours", map.keyStep);
        preview += ")";
    }
    if (kx <= 1 && qy <= 1) {
        // Shown scaled, a cell is rarely a whole number of pixels: say it to one decimal at most.
        const auto px = [&](double cells) {
            return zoomX == 1 && zoomY == 1 ? countText(cells) : fmt::format("{:.3g}", std::round(cells * 10) / 10);
        };
        return fmt::format("1 cell = {} x {} px{}", px(1 / kx), px(1 / qy), preview);
    }
    std::string text = fmt::format("1 px = {} x {} cells, {}", countText(std::max(kx, 1.0)),
                                   countText(std::max(qy, 1.0)), reduceName(map.reduce));
    if (attention) {
        text += map.reduce == Reduce::Mean  ? " over keys"
                : map.reduce == Reduce::Sum ? " of the keys' mass"
                                            : " over keys";
        if (map.rowsSampled) text += fmt::format(", 1 exact query row of {} per pixel row", countText(qy));
    }
    if (map.cellsSampled) text += " of up to 4 x 4 sampled allowed cells";
    return text + preview;
}

}  // namespace

Result<Heatmap> renderHeatmap(const HeatmapParams& params, unsigned threads, const ProgressFn& progress) {
    if (params.what != RenderWhat::Bias && params.what != RenderWhat::Attention)
        return fail(ErrorCode::InvalidArgument, "a heatmap shows bias or attention; slopes and distance are curves");
    if (!imageSizeFits(params.width, params.height))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("image size {}x{} is out of range: --width and --height must be 1..{}", params.width,
                                params.height, kMaxImageSide));
    const bool attention = params.what == RenderWhat::Attention;
    auto slopes = attention ? validateAttention(params.attention) : validateBias(params.attention.bias);
    if (!slopes) return std::unexpected(slopes.error());
    const BiasParams& bias = params.attention.bias;
    const int H = bias.slopes.heads;
    const std::int64_t Q = bias.queries, K = bias.keyCount();
    if (params.head >= H)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--head {} does not exist: heads are 0..{}", params.head, H - 1));
    const BatchParams& batch = params.batch;
    const bool batched = batch.active();
    if (batched) {
        if (auto ok = validateBatch(bias, batch); !ok) return std::unexpected(ok.error());
        if (params.batchRow < 0 || params.batchRow >= batch.batchSize())
            return fail(ErrorCode::InvalidArgument, fmt::format("batch row {} does not exist: rows are 0..{}",
                                                                params.batchRow, batch.batchSize() - 1));
    }

    std::vector<int> heads;
    if (params.head >= 0) {
        heads.push_back(params.head);
    } else {
        for (int h = 0; h < H; ++h) heads.push_back(h);
    }
    Heatmap map;
    map.tiles = placeTiles(params, heads, map);
    if (map.tiles.front().width < 1 || map.tiles.front().height < 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a {}x{} image is too small for {} heads: make it larger or show one head (--head)",
                                params.width, params.height, H));

    map.image.width = params.width;
    map.image.height = params.height;
    map.image.pixels.assign(static_cast<std::size_t>(params.width) * params.height, Rgba{0, 0, 0, 0});
    const int tileW = map.tiles.front().width, tileH = map.tiles.front().height;
    map.cellsPerPixelX = static_cast<double>(K) / tileW;
    map.cellsPerPixelY = static_cast<double>(Q) / tileH;
    map.reduce = !attention ? Reduce::Mean : params.reduce == Reduce::Auto ? Reduce::Max : params.reduce;
    map.rowsSampled = attention && Q > tileH;
    map.cellsSampled = batched && !attention &&
                       (map.cellsPerPixelX > detail::kBatchSamples || map.cellsPerPixelY > detail::kBatchSamples);
    map.log = attention && params.logScale;
    // Only attention rows with content are costly enough to preview.
    const bool contentRows = attention && params.attention.content.kind != ContentKind::Zero;
    map.rowStep = contentRows ? std::clamp(params.rowStep, 1, std::max(1, tileH)) : 1;
    map.keyStep = attention && !batched && params.attention.content.kind == ContentKind::Qk
                      ? static_cast<int>(std::clamp<std::int64_t>(params.keyStep, 1, std::max<std::int64_t>(1, K)))
                      : 1;
    map.summary = summaryText(map, attention);

    if (auto painted = detail::paintHeatmap(params, *slopes, map, threads, progress); !painted)
        return std::unexpected(painted.error());
    return map;
}

int tileLabelRoom(const std::vector<HeatmapTile>& tiles, std::size_t n) {
    if (n >= tiles.size()) return 0;
    const HeatmapTile& t = tiles[n];
    int above = 0;  // the lowest bottom edge of a tile above this one, in the same columns
    bool any = false;
    for (const HeatmapTile& u : tiles)
        if (u.y + u.height <= t.y && u.x < t.x + t.width && t.x < u.x + u.width) {
            above = std::max(above, u.y + u.height);
            any = true;
        }
    return std::max(0, t.y - above - (any ? 2 : 0));
}

void TileValueRange::merge(const TileValueRange& o) {
    lo = std::min(lo, o.lo);
    hi = std::max(hi, o.hi);
    positive = std::min(positive, o.positive);
    oneLo = std::min(oneLo, o.oneLo);
    oneHi = std::max(oneHi, o.oneHi);
    onePositive = std::min(onePositive, o.onePositive);
}

TileValueRange::Span TileValueRange::span(bool perHead) const {
    const bool rest = lo <= hi, one = oneLo <= oneHi;
    if (perHead && rest) return {lo, hi, positive, true, one && oneHi > hi};
    return {std::min(lo, oneLo), std::max(hi, oneHi), std::min(positive, onePositive), rest || one, false};
}

void clearHeatmapCaches() {
    detail::clearPictureKeyCache();
}

Heatmap renderValueGrid(const ValueGridParams& params,
                        const std::function<double(int, std::int64_t, std::int64_t)>& value) {
    HeatmapParams placement;
    placement.width = std::max(params.width, 1);
    placement.height = std::max(params.height, 1);
    placement.gap = params.gap;
    placement.labelBand = params.labelBand;
    placement.squareCells = params.squareCells;
    placement.attention.bias.queries = std::max<std::int64_t>(params.queries, 1);
    placement.attention.bias.keys = std::max<std::int64_t>(params.keys, 1);
    std::vector<int> heads;
    for (int h = 0; h < std::max(params.heads, 1); ++h) heads.push_back(h);
    Heatmap map;
    map.tiles = placeTiles(placement, heads, map, /*bandAware=*/true);
    if (params.squareCells) {
        // Cropped to the tiles: the square-celled tiles leave a margin at the right or bottom.
        int right = 1, bottom = 1;
        for (const HeatmapTile& t : map.tiles)
            right = std::max(right, t.x + t.width), bottom = std::max(bottom, t.y + t.height);
        placement.width = std::min(placement.width, right);
        placement.height = std::min(placement.height, bottom);
    }
    map.lo = params.lo;
    map.hi = params.hi;
    map.image.width = placement.width;
    map.image.height = placement.height;
    map.image.pixels.assign(static_cast<std::size_t>(placement.width) * placement.height, Rgba{0, 0, 0, 0});
    // A pixel covering several cells shows the one farthest from zero, so a lone difference
    // or error survives any amount of downsampling; NaN only when all of them are NaN.
    for (auto& tile : map.tiles) {
        tile.lo = params.lo;
        tile.hi = params.hi;
        for (int y = 0; y < tile.height; ++y) {
            const CellSpan rows = pixelCells(y, tile.height, params.queries);
            for (int x = 0; x < tile.width; ++x) {
                const CellSpan keys = pixelCells(x, tile.width, params.keys);
                double peak = std::numeric_limits<double>::quiet_NaN();
                for (std::int64_t i = rows.first; i <= rows.last; ++i)
                    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
                        const double v = value(tile.head, i, j);
                        if (std::isnan(peak) || (!std::isnan(v) && std::fabs(v) > std::fabs(peak))) peak = v;
                    }
                map.image.at(tile.x + x, tile.y + y) = valueColor(params.colormap, peak, params.lo, params.hi);
            }
        }
    }
    return map;
}

std::vector<HeatmapTile> placeHeatmapTiles(const std::vector<int>& heads, int width, int height, int gap, Heatmap& map,
                                           int labelBand) {
    HeatmapParams placement;
    placement.width = std::max(width, 1);
    placement.height = std::max(height, 1);
    placement.gap = gap;
    placement.labelBand = labelBand;
    return placeTiles(placement, heads, map);
}

std::string heatmapSummary(const Heatmap& map, bool attention, double zoomX, double zoomY) {
    // A picture whose pixels summarise several cells says so at any zoom.
    if (!(zoomX > 0) || !(zoomY > 0) || !std::isfinite(zoomX) || !std::isfinite(zoomY) || map.cellsPerPixelX > 1 ||
        map.cellsPerPixelY > 1)
        zoomX = zoomY = 1;
    return summaryText(map, attention, zoomX, zoomY);
}

std::optional<CellHit> hitTest(const Heatmap& map, const HeatmapParams& params, int x, int y) {
    const std::int64_t Q = params.attention.bias.queries, K = params.attention.bias.keyCount();
    for (const auto& t : map.tiles)
        if (x >= t.x && y >= t.y && x < t.x + t.width && y < t.y + t.height)
            return CellHit{t.head, detail::cellAt(y - t.y, t.height, Q), detail::cellAt(x - t.x, t.width, K)};
    return std::nullopt;
}

}  // namespace alibi
