// Rasterising heatmaps at pixel resolution. Each pixel samples the cell under its centre, so
// the work is O(pixels) whatever T is; values come from the core's own formulas (biasCell,
// the reference attention rows), colours from the colour map's 256-entry table.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/render.hpp>

#include "model/attention_closed_form.hpp"
#include "model/attention_detail.hpp"
#include "base/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

namespace alibi {

std::string_view renderWhatName(RenderWhat what) {
    switch (what) {
        case RenderWhat::Bias: return "bias";
        case RenderWhat::Attention: return "attention";
        case RenderWhat::Slopes: return "slopes";
        case RenderWhat::Distance: return "distance";
    }
    return "bias";
}

std::optional<RenderWhat> parseRenderWhat(std::string_view name) {
    for (auto w : {RenderWhat::Bias, RenderWhat::Attention, RenderWhat::Slopes, RenderWhat::Distance})
        if (renderWhatName(w) == name) return w;
    return std::nullopt;
}

std::string_view scaleModeName(ScaleMode mode) { return mode == ScaleMode::Shared ? "shared" : "per-head"; }

std::optional<ScaleMode> parseScaleMode(std::string_view name) {
    if (name == "shared") return ScaleMode::Shared;
    if (name == "per-head") return ScaleMode::PerHead;
    return std::nullopt;
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

namespace {

// Cell index under the centre of pixel p of a tile `pixels` wide showing `cells` cells.
std::int64_t cellAt(int p, int pixels, std::int64_t cells) {
    const auto c = static_cast<std::int64_t>((static_cast<double>(p) + 0.5) * static_cast<double>(cells) / pixels);
    return std::clamp<std::int64_t>(c, 0, cells - 1);
}

constexpr double kMaskedValue = std::numeric_limits<double>::quiet_NaN();

std::vector<HeatmapTile> placeTiles(const HeatmapParams& params, std::vector<int> heads, Heatmap& map) {
    std::vector<HeatmapTile> tiles;
    if (heads.size() == 1) {
        map.columns = map.rows = 1;
        tiles.push_back({heads[0], 0, 0, params.width, params.height, 0, 0});
        return tiles;
    }
    const auto grid = gridLayout(static_cast<int>(heads.size()), params.width, params.height);
    map.columns = grid.columns;
    map.rows = grid.rows;
    const int gap = std::max(params.gap, 0);
    const int tileW = (params.width - gap * (grid.columns - 1)) / grid.columns;
    const int tileH = (params.height - gap * (grid.rows - 1)) / grid.rows;
    for (std::size_t n = 0; n < heads.size(); ++n) {
        const int c = static_cast<int>(n) % grid.columns, r = static_cast<int>(n) / grid.columns;
        tiles.push_back({heads[n], c * (tileW + gap), r * (tileH + gap), tileW, tileH, 0, 0});
    }
    return tiles;
}

}  // namespace

Result<Heatmap> renderHeatmap(const HeatmapParams& params, unsigned threads, const ProgressFn& progress) {
    if (params.what != RenderWhat::Bias && params.what != RenderWhat::Attention)
        return fail(ErrorCode::InvalidArgument, "a heatmap shows bias or attention; slopes and distance are curves");
    if (params.width < 1 || params.height < 1 || params.width > 16384 || params.height > 16384)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("image size {}x{} is out of range: --width and --height must be 1..16384",
                                params.width, params.height));
    auto slopes = params.what == RenderWhat::Attention ? validateAttention(params.attention)
                                                       : validateBias(params.attention.bias);
    if (!slopes) return std::unexpected(slopes.error());
    const BiasParams& bias = params.attention.bias;
    const int H = bias.slopes.heads;
    const std::int64_t Q = bias.queries, K = bias.keyCount();
    if (params.head >= H)
        return fail(ErrorCode::InvalidArgument, fmt::format("--head {} does not exist: heads are 0..{}", params.head, H - 1));

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

    // Pass 1: the value of every tile pixel (NaN where masked), one tile row at a time.
    const int tileW = map.tiles.front().width, tileH = map.tiles.front().height;
    std::vector<double> values(map.tiles.size() * static_cast<std::size_t>(tileW) * tileH);
    std::vector<std::int64_t> keyOf(static_cast<std::size_t>(tileW));
    for (int x = 0; x < tileW; ++x) keyOf[x] = cellAt(x, tileW, K);
    const bool roundSlowly = bias.dtype == DType::F16 || bias.dtype == DType::BF16;

    auto fillBiasRow = [&](std::size_t tile, int y) {
        const int h = map.tiles[tile].head;
        const double m = (*slopes)[static_cast<std::size_t>(h)];
        const std::int64_t pos = bias.queryPosition(cellAt(y, tileH, Q));
        double* out = values.data() + (tile * tileH + y) * static_cast<std::size_t>(tileW);
        for (int x = 0; x < tileW; ++x) {
            const auto v = biasCell(bias.mode, m, pos, keyOf[x], K);
            if (!v) {
                out[x] = kMaskedValue;
                continue;
            }
            out[x] = bias.dtype == DType::F32 ? static_cast<double>(static_cast<float>(*v))
                     : roundSlowly           ? roundTo(bias.dtype, *v)
                                             : *v;
        }
    };

    const std::uint64_t tileRows = map.tiles.size() * static_cast<std::uint64_t>(tileH);
    if (params.what == RenderWhat::Bias) {
        detail::parallelFor(tileRows, threads, 8, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t r = b; r < e; ++r) fillBiasRow(r / tileH, static_cast<int>(r % tileH));
        });
    } else {
        // Attention rows cost O(K * d_k) each. Every block walks its tile rows in order with
        // its own reference rows, which keep the head's key vectors, and reuses the last row
        // when several pixel rows show the same query. The calling thread reports progress
        // row by row; a cancel stops every block at its next row.
        std::atomic<std::uint64_t> rowsDone{0};
        std::atomic<bool> stop{false};
        // Zero content (f32/f64) is in closed form: each pixel costs O(1), whatever K is.
        const bool closedForm = detail::closedFormApplies(params.attention);
        detail::parallelFor(tileRows, threads, 1, [&](std::uint64_t b, std::uint64_t e) {
            detail::ReferenceRows rows(params.attention, *slopes);
            std::vector<double> row(closedForm ? 0 : static_cast<std::size_t>(K));
            std::int64_t rowHead = -1, rowQuery = -1;
            for (std::uint64_t r = b; r < e; ++r) {
                if (stop.load(std::memory_order_relaxed)) return;
                if (b == 0 && progress && !progress(rowsDone.load(std::memory_order_relaxed), tileRows)) {
                    stop = true;
                    return;
                }
                const std::size_t tile = r / tileH;
                const int y = static_cast<int>(r % tileH);
                const std::int64_t h = map.tiles[tile].head, q = cellAt(y, tileH, Q);
                if (closedForm) {
                    const detail::GeometricRow g(params.attention, rows.slope(h), q);
                    const std::int64_t pos = bias.queryPosition(q);
                    double* out = values.data() + r * static_cast<std::size_t>(tileW);
                    for (int x = 0; x < tileW; ++x)
                        out[x] = modeMasks(bias.mode) && keyOf[x] > pos ? kMaskedValue : g.probability(keyOf[x]);
                    rowsDone.fetch_add(1, std::memory_order_relaxed);
                    continue;
                }
                if (h != rowHead || q != rowQuery) {
                    rows.probabilities(h, q, row);
                    rowHead = h;
                    rowQuery = q;
                }
                const std::int64_t pos = bias.queryPosition(q);
                double* out = values.data() + r * static_cast<std::size_t>(tileW);
                for (int x = 0; x < tileW; ++x) {
                    const bool masked = modeMasks(bias.mode) && keyOf[x] > pos;
                    out[x] = masked ? kMaskedValue : row[static_cast<std::size_t>(keyOf[x])];
                }
                rowsDone.fetch_add(1, std::memory_order_relaxed);
            }
            // The calling thread's block may finish first (causal rows near the top are cheap):
            // it keeps answering progress and cancel until the other blocks are done.
            while (b == 0 && progress && !stop.load(std::memory_order_relaxed) &&
                   rowsDone.load(std::memory_order_relaxed) < tileRows) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                if (!progress(rowsDone.load(std::memory_order_relaxed), tileRows)) stop = true;
            }
        });
        if (stop) return fail(ErrorCode::Cancelled, "rendering cancelled");
    }

    // Scale: the range of each tile's finite, unmasked values.
    const bool diverging = colormapDiverging(params.colormap);
    map.lo = std::numeric_limits<double>::infinity();
    map.hi = -std::numeric_limits<double>::infinity();
    for (std::size_t t = 0; t < map.tiles.size(); ++t) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        const double* v = values.data() + t * static_cast<std::size_t>(tileW) * tileH;
        for (std::size_t k = 0; k < static_cast<std::size_t>(tileW) * tileH; ++k)
            if (std::isfinite(v[k])) {
                lo = std::min(lo, v[k]);
                hi = std::max(hi, v[k]);
            }
        if (lo > hi) lo = hi = 0;  // every cell masked
        if (diverging) {
            const double a = std::max(std::fabs(lo), std::fabs(hi));
            lo = -a;
            hi = a;
        }
        map.tiles[t].lo = lo;
        map.tiles[t].hi = hi;
        map.lo = std::min(map.lo, lo);
        map.hi = std::max(map.hi, hi);
    }
    if (params.scale == ScaleMode::Shared)
        for (auto& tile : map.tiles) {
            tile.lo = map.lo;
            tile.hi = map.hi;
        }

    // Pass 2: colours through the 256-entry table.
    const auto& lut = colormapLut(params.colormap);
    detail::parallelFor(tileRows, threads, 8, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t r = b; r < e; ++r) {
            const auto& tile = map.tiles[r / tileH];
            const int y = static_cast<int>(r % tileH);
            const double* v = values.data() + r * static_cast<std::size_t>(tileW);
            const double scale = tile.hi > tile.lo ? (kColormapLutSize - 1) / (tile.hi - tile.lo) : 0.0;
            Rgba* px = &map.image.at(tile.x, tile.y + y);
            for (int x = 0; x < tileW; ++x) {
                if (!std::isfinite(v[x])) {
                    px[x] = kMaskedColor;
                    continue;
                }
                const double idx = scale > 0 ? (v[x] - tile.lo) * scale : (kColormapLutSize - 1) / 2.0;
                px[x] = lut[static_cast<std::size_t>(std::clamp(idx + 0.5, 0.0, kColormapLutSize - 1.0))];
            }
        }
    });
    if (progress) progress(tileRows, tileRows);
    return map;
}

Heatmap renderValueGrid(const ValueGridParams& params,
                        const std::function<double(int, std::int64_t, std::int64_t)>& value) {
    HeatmapParams placement;
    placement.width = std::max(params.width, 1);
    placement.height = std::max(params.height, 1);
    placement.gap = params.gap;
    std::vector<int> heads;
    for (int h = 0; h < std::max(params.heads, 1); ++h) heads.push_back(h);
    Heatmap map;
    map.tiles = placeTiles(placement, heads, map);
    map.lo = params.lo;
    map.hi = params.hi;
    map.image.width = placement.width;
    map.image.height = placement.height;
    map.image.pixels.assign(static_cast<std::size_t>(placement.width) * placement.height, Rgba{0, 0, 0, 0});
    for (auto& tile : map.tiles) {
        tile.lo = params.lo;
        tile.hi = params.hi;
        for (int y = 0; y < tile.height; ++y) {
            const std::int64_t i = cellAt(y, tile.height, params.queries);
            for (int x = 0; x < tile.width; ++x)
                map.image.at(tile.x + x, tile.y + y) =
                    valueColor(params.colormap, value(tile.head, i, cellAt(x, tile.width, params.keys)), params.lo, params.hi);
        }
    }
    return map;
}

std::optional<CellHit> hitTest(const Heatmap& map, const HeatmapParams& params, int x, int y) {
    const std::int64_t Q = params.attention.bias.queries, K = params.attention.bias.keyCount();
    for (const auto& t : map.tiles)
        if (x >= t.x && y >= t.y && x < t.x + t.width && y < t.y + t.height)
            return CellHit{t.head, cellAt(y - t.y, t.height, Q), cellAt(x - t.x, t.width, K)};
    return std::nullopt;
}

}  // namespace alibi
