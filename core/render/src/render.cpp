// Rasterising heatmaps at pixel resolution. A pixel that covers several cells shows their mean
// (bias, in closed form, so the work stays O(pixels) whatever T is) or the maximum, sum or mean
// over the keys of one exact query row (attention, rows computed on the float path); colours
// come from the colour map's 256-entry table over the exact range of the values shown.
#include <alibi/base/image_size.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/arith.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include <alibi/base/parallel.hpp>
#include <alibi/model/detail/attention_closed_form.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/batch_attention_rows.hpp>
#include "attention_rows.hpp"
#include "batch_pixels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

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

namespace {

// Cell index under the centre of pixel p of a tile `pixels` wide showing `cells` cells.
std::int64_t cellAt(int p, int pixels, std::int64_t cells) {
    const auto c = static_cast<std::int64_t>((static_cast<double>(p) + 0.5) * static_cast<double>(cells) / pixels);
    return std::clamp<std::int64_t>(c, 0, cells - 1);
}

}  // namespace

CellSpan pixelCells(int p, int pixels, std::int64_t cells) {
    if (cells <= pixels) {
        const std::int64_t c = cellAt(p, pixels, cells);
        return {c, c};
    }
    // Exact integer bounds: pixel p covers [floor(p * cells / pixels), floor((p + 1) * cells / pixels)).
    const std::int64_t first = static_cast<std::int64_t>(p) * cells / pixels;
    const std::int64_t end = static_cast<std::int64_t>(p + 1) * cells / pixels;
    return {first, std::max(first, end - 1)};
}

namespace {

constexpr double kMaskedValue = std::numeric_limits<double>::quiet_NaN();

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

// ---------------------------------------------------------------------------
// The mean of the bias over a block of cells, in closed form.

// Sums over the cells (p, j) with p in [p0, p1], j in [j0, j1] and d = p - j in [dlo, dhi]:
// the count, the sum of d and the sum of j. Per row p the keys form one interval
// [max(j0, p - dhi), min(j1, p - dlo)] whose ends are linear in p, so the rows split into at
// most three runs over which count, sum of j and sum of d are polynomials of degree <= 2 in p.
struct BandSums {
    double n = 0, d = 0, j = 0;
};

double powerSum(double a, double b, int k) {  // sum of p^k for integer p in [a, b]
    auto s = [k](double x) {                  // sum over [0, x] (x >= -1), extended as a polynomial
        if (k == 0) return x + 1;
        if (k == 1) return x * (x + 1) / 2;
        return x * (x + 1) * (2 * x + 1) / 6;
    };
    return s(b) - s(a - 1);
}

BandSums bandSums(std::int64_t p0, std::int64_t p1, std::int64_t j0, std::int64_t j1, std::int64_t dlo,
                  std::int64_t dhi) {
    BandSums out;
    // Breakpoints: the lower end switches from j0 to p - dhi after pA, the upper end from
    // p - dlo to j1 at pB.
    const std::int64_t pA = j0 + dhi, pB = j1 + dlo;
    std::int64_t cuts[4] = {p0, std::clamp(pA + 1, p0, p1 + 1), std::clamp(pB, p0, p1 + 1), p1 + 1};
    std::sort(cuts + 1, cuts + 3);
    for (int s = 0; s < 3; ++s) {
        std::int64_t a = cuts[s], b = cuts[s + 1] - 1;
        if (a > b) continue;
        const std::int64_t mid = a;  // which branch each end takes is the same over the run
        const double l1 = mid > pA ? 1 : 0, l0 = mid > pA ? static_cast<double>(-dhi) : static_cast<double>(j0);
        const double u1 = mid < pB ? 1 : 0, u0 = mid < pB ? static_cast<double>(-dlo) : static_cast<double>(j1);
        // count(p) = (u0 - l0 + 1) + (u1 - l1) p must be >= 1: keep the rows where it is.
        const double c0 = u0 - l0 + 1, c1 = u1 - l1;
        double lo = static_cast<double>(a), hi = static_cast<double>(b);
        if (c1 == 0) {
            if (c0 < 1) continue;
        } else if (c1 > 0) {
            lo = std::max(lo, std::ceil((1 - c0) / c1));
        } else {
            hi = std::min(hi, std::floor((1 - c0) / c1));
        }
        if (lo > hi) continue;
        const double S0 = powerSum(lo, hi, 0), S1 = powerSum(lo, hi, 1), S2 = powerSum(lo, hi, 2);
        out.n += c0 * S0 + c1 * S1;
        // sum of j over [L, U] = (U(U + 1) - L(L - 1)) / 2 with U = u0 + u1 p, L = l0 + l1 p.
        const double q0 = u0 * u0 + u0 - l0 * l0 + l0, q1 = 2 * u0 * u1 + u1 - 2 * l0 * l1 + l1, q2 = u1 * u1 - l1 * l1;
        const double sumJ = (q0 * S0 + q1 * S1 + q2 * S2) / 2;
        out.j += sumJ;
        out.d += c0 * S1 + c1 * S2 - sumJ;  // sum of p * count(p) - sum of j
    }
    return out;
}

constexpr std::int64_t kFar = std::int64_t{1} << 40;  // a distance bound that never binds

// Mean bias over rows at positions [p0, p1] and keys [j0, j1]; NaN when every cell is masked.
double meanBias(BiasMode mode, double m, std::int64_t p0, std::int64_t p1, std::int64_t j0, std::int64_t j1,
                std::int64_t K) {
    const double cells = static_cast<double>(p1 - p0 + 1) * static_cast<double>(j1 - j0 + 1);
    const double pc = 0.5 * static_cast<double>(p0 + p1), jc = 0.5 * static_cast<double>(j0 + j1);
    // Fast paths: the block lies on one side of the diagonal, where the bias is linear, so its
    // mean is the value at the block's centre.
    if (p0 - j1 >= 0) {  // every cell has j <= p
        switch (mode) {
            case BiasMode::Causal:
            case BiasMode::Symmetric:
            case BiasMode::Clamped:
                return -(m * (pc - jc));
            case BiasMode::Bloom:
                return m * jc;
            case BiasMode::Mpt:
                return -(m * (static_cast<double>(K - 1) - jc));
        }
    }
    if (p1 - j0 < 0) {  // every cell has j > p
        switch (mode) {
            case BiasMode::Symmetric:
                return -(m * (jc - pc));
            case BiasMode::Clamped:
                return 0.0;
            default:
                return kMaskedValue;
        }
    }
    const BandSums past = bandSums(p0, p1, j0, j1, 0, kFar);  // j <= p
    switch (mode) {
        case BiasMode::Causal:
            return past.n > 0 ? -(m * past.d) / past.n : kMaskedValue;
        case BiasMode::Bloom:
            return past.n > 0 ? m * past.j / past.n : kMaskedValue;
        case BiasMode::Mpt:
            return past.n > 0 ? -(m * (static_cast<double>(K - 1) * past.n - past.j)) / past.n : kMaskedValue;
        case BiasMode::Clamped:
            return -(m * past.d) / cells;
        case BiasMode::Symmetric: {
            const BandSums future = bandSums(p0, p1, j0, j1, -kFar, -1);  // j > p, d < 0
            return -(m * (past.d - future.d)) / cells;
        }
    }
    return kMaskedValue;
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

    // Pass 1: the value of every tile pixel (NaN where masked), one tile row at a time.
    // Where every tile's range is known without the pixels (the bias, and zero-content
    // attention shown by max or mean, in closed form), the two passes are fused row by row
    // instead: no frame-sized buffer of values is written and read back (that traffic, not
    // the arithmetic, was most of a 1920x1080 frame's time).
    const bool closedForm = attention && detail::closedFormApplies(params.attention);
    const bool fused = !batched && (!attention || (closedForm && map.reduce != Reduce::Sum));
    std::vector<double> values(fused ? 0 : map.tiles.size() * static_cast<std::size_t>(tileW) * tileH);
    std::vector<CellSpan> keySpan(static_cast<std::size_t>(tileW));
    for (int x = 0; x < tileW; ++x) keySpan[static_cast<std::size_t>(x)] = pixelCells(x, tileW, K);
    const bool roundSlowly = bias.dtype == DType::F16 || bias.dtype == DType::BF16;
    const std::uint64_t tileRows = map.tiles.size() * static_cast<std::uint64_t>(tileH);

    // Per tile: the exact range of the shown values, and the smallest positive one (log scale);
    // attention rows of one key apart (TileValueRange).
    using TileRange = TileValueRange;
    std::vector<TileRange> ranges(map.tiles.size());
    // A per-head scale of several tiles leaves each tile's rows of one key (p = 1) out of its range.
    const bool leaveOutOneKeyRows = attention && params.scale == ScaleMode::PerHead && map.tiles.size() > 1;

    // Pixel rows that show only fully masked queries are striped in pass 2.
    const BatchRow tokens = batched ? batchRow(bias, batch, params.batchRow) : BatchRow{};
    const std::vector<char> fullyMasked =
        detail::fullyMaskedPixelRows(params.attention, batch, batched ? &tokens : nullptr, tileH);
    map.fullyMaskedRows = std::find(fullyMasked.begin(), fullyMasked.end(), 1) != fullyMasked.end();

    // The bias of pixel row y of a tile, into out[0, tileW).
    auto fillBiasRow = [&](std::size_t tile, int y, double* out) {
        const int h = map.tiles[tile].head;
        const double m = (*slopes)[static_cast<std::size_t>(h)];
        const CellSpan rows = pixelCells(y, tileH, Q);
        const std::int64_t p0 = bias.queryPosition(rows.first), p1 = bias.queryPosition(rows.last);
        for (int x = 0; x < tileW; ++x) {
            const CellSpan keys = keySpan[static_cast<std::size_t>(x)];
            if (p0 == p1 && keys.first == keys.last) {
                // One cell: its stored value, exactly as the tensor holds it.
                const auto v = biasCell(bias.mode, m, p0, keys.first, K);
                out[x] = !v                         ? kMaskedValue
                         : bias.dtype == DType::F32 ? static_cast<double>(static_cast<float>(*v))
                         : roundSlowly              ? roundTo(bias.dtype, *v)
                                                    : *v;
            } else {
                out[x] = meanBias(bias.mode, m, p0, p1, keys.first, keys.last, K);
            }
        }
    };

    // Zero content (f32/f64): each row is a truncated geometric distribution, so every pixel's
    // max, sum or mean over its keys costs O(1) whatever K is. Pixel row y of a tile:
    auto geometricRow = [&](std::size_t tile, int y) {
        const int h = map.tiles[tile].head;
        return detail::GeometricRow(params.attention, (*slopes)[static_cast<std::size_t>(h)], cellAt(y, tileH, Q));
    };
    // What a row adds to its tile's range under max or mean: its allowed keys' extremes
    // (the rows are unimodal, so the smallest probability sits at an end).
    auto addGeometricRange = [&](const detail::GeometricRow& g, std::int64_t n, TileRange& range) {
        if (n <= 0 || g.isNaN()) return;
        const double lo = std::min(g.probability(0), g.probability(n - 1)), hi = g.maxBetween(0, n);
        range.add(lo, n == 1);
        range.add(hi, n == 1);
    };
    // The row's pixels into out[0, tileW) (n: its allowed keys); under Sum they widen `range`.
    auto fillGeometricRow = [&](const detail::GeometricRow& g, std::int64_t n, double* out, TileRange& range) {
        for (int x = 0; x < tileW; ++x) {
            const CellSpan keys = keySpan[static_cast<std::size_t>(x)];
            const std::int64_t last = std::min(keys.last, n - 1);
            if (keys.first > last || g.isNaN()) {
                out[x] = kMaskedValue;
                continue;
            }
            const double v = map.reduce == Reduce::Max ? g.maxBetween(keys.first, last + 1)
                             : map.reduce == Reduce::Sum
                                 ? g.sumBetween(keys.first, last + 1)
                                 : g.sumBetween(keys.first, last + 1) / static_cast<double>(last - keys.first + 1);
            out[x] = v;
            if (map.reduce == Reduce::Sum) range.add(v, n == 1);
        }
    };

    // Scale: each tile's exact range; shared scale is their union.
    auto setScales = [&] {
        const bool diverging = colormapDiverging(params.colormap);
        map.lo = std::numeric_limits<double>::infinity();
        map.hi = -std::numeric_limits<double>::infinity();
        double positive = std::numeric_limits<double>::infinity();
        double shownLo = std::numeric_limits<double>::infinity();  // the lowest value of any tile
        for (std::size_t t = 0; t < map.tiles.size(); ++t) {
            const TileValueRange::Span all = ranges[t].span(false);
            const TileValueRange::Span own = ranges[t].span(leaveOutOneKeyRows);
            const auto widen = [diverging](const TileValueRange::Span& sp) {
                double lo = sp.valid ? sp.lo : 0, hi = sp.valid ? sp.hi : 0;  // every cell masked: 0
                if (diverging) {
                    const double a = std::max(std::fabs(lo), std::fabs(hi));
                    lo = -a;
                    hi = a;
                }
                return std::pair{lo, hi};
            };
            const auto [lo, hi] = widen(own);
            auto& tile = map.tiles[t];
            tile.lo = lo;
            tile.hi = hi;
            tile.logLo =
                std::max(std::isfinite(own.positive) ? own.positive : hi, hi * std::pow(10.0, -kLogScaleDecades));
            tile.belowLogLo = own.valid && own.lo < tile.logLo;
            tile.aboveHi = own.leftOut;
            const auto [allLo, allHi] = widen(all);
            map.lo = std::min(map.lo, allLo);
            map.hi = std::max(map.hi, allHi);
            positive = std::min(positive, all.positive);
            if (all.valid) shownLo = std::min(shownLo, all.lo);
        }
        map.logLo = std::max(std::isfinite(positive) ? positive : map.hi, map.hi * std::pow(10.0, -kLogScaleDecades));
        map.belowLogLo = shownLo < map.logLo;
        if (params.scale == ScaleMode::Shared)
            for (auto& tile : map.tiles) {
                tile.lo = map.lo;
                tile.hi = map.hi;
                tile.logLo = map.logLo;
                tile.belowLogLo = map.belowLogLo;
                tile.aboveHi = false;
            }
    };

    // Pass 2: colours of tile row r (of all tiles' rows) through the 256-entry table.
    const bool onePixelPerCell = map.cellsPerPixelX == 1.0 && map.cellsPerPixelY == 1.0;
    const auto& lut = colormapLut(params.colormap);
    auto colourRow = [&](std::uint64_t r, const double* v) {
        const auto& tile = map.tiles[r / tileH];
        const int y = static_cast<int>(r % tileH);
        Rgba* px = &map.image.at(tile.x, tile.y + y);
        const bool log = map.log && tile.hi > 0;
        const double lo = log ? std::log10(tile.logLo) : tile.lo;
        const double hi = log ? std::log10(tile.hi) : tile.hi;
        const double scale = hi > lo ? (kColormapLutSize - 1) / (hi - lo) : 0.0;
        if (fullyMasked[static_cast<std::size_t>(y)]) {
            // One pixel per cell is an image views magnify (a detail pane): stripes there would
            // turn into blotches, so the row takes the stripes' own colour, solid.
            for (int x = 0; x < tileW; ++x)
                px[x] = onePixelPerCell ? kFullyMaskedColor : fullyMaskedStripe(tile.x + x, tile.y + y);
            return;
        }
        for (int x = 0; x < tileW; ++x) {
            if (std::isnan(v[x])) {
                px[x] = kMaskedColor;
                continue;
            }
            const double value = log ? (v[x] > 0 ? std::log10(v[x]) : lo) : v[x];
            const double idx = scale > 0 ? (value - lo) * scale : (kColormapLutSize - 1) / 2.0;
            px[x] = lut[static_cast<std::size_t>(std::clamp(idx + 0.5, 0.0, kColormapLutSize - 1.0))];
        }
    };

    if (fused) {
        if (!attention) {
            // The exact range of the stored cells, in closed form.
            for (std::size_t t = 0; t < map.tiles.size(); ++t) {
                const auto range = alibi::biasRange(bias, *slopes, map.tiles[t].head);
                if (!range.empty) {
                    ranges[t].lo = range.lo;
                    ranges[t].hi = range.hi;
                }
            }
        }
        // Zero-content rows: each pixel row's range first (a few exponentials per row), the
        // rows kept for the pixels.
        std::vector<std::optional<detail::GeometricRow>> geometric(attention ? tileRows : 0);
        if (attention) {
            std::mutex rangeMutex;
            detail::parallelFor(tileRows, threads, 64, [&](std::uint64_t b, std::uint64_t e) {
                std::vector<TileRange> local(map.tiles.size());
                for (std::uint64_t r = b; r < e; ++r) {
                    const std::size_t tile = r / tileH;
                    const int y = static_cast<int>(r % tileH);
                    const auto& g = geometric[r].emplace(geometricRow(tile, y));
                    addGeometricRange(g, detail::allowedKeys(bias, cellAt(y, tileH, Q)), local[tile]);
                }
                std::lock_guard lock(rangeMutex);
                for (std::size_t t = 0; t < local.size(); ++t) ranges[t].merge(local[t]);
            });
        }
        setScales();
        std::atomic<std::uint64_t> rowsDone{0};
        std::atomic<bool> stop{false};
        detail::parallelFor(tileRows, threads, 8, [&](std::uint64_t b, std::uint64_t e) {
            std::vector<double> row(static_cast<std::size_t>(tileW));
            TileRange unused;
            for (std::uint64_t r = b; r < e; ++r) {
                if (stop.load(std::memory_order_relaxed)) break;
                const std::size_t tile = r / tileH;
                const int y = static_cast<int>(r % tileH);
                if (!attention) {
                    fillBiasRow(tile, y, row.data());
                } else {
                    if (b == 0 && progress && (r - b) % 64 == 0 &&
                        !progress(rowsDone.load(std::memory_order_relaxed), tileRows)) {
                        stop = true;
                        break;
                    }
                    fillGeometricRow(*geometric[r], detail::allowedKeys(bias, cellAt(y, tileH, Q)), row.data(), unused);
                    rowsDone.fetch_add(1, std::memory_order_relaxed);
                }
                colourRow(r, row.data());
            }
        });
        if (stop) return fail(ErrorCode::Cancelled, "rendering cancelled");
        if (progress) progress(tileRows, tileRows);
        return map;
    }

    if (batched && !attention) {
        // A batch row: sampled cells per pixel, the exact range of each head in O(T).
        const std::vector<double> tails = exactSlopeTails(bias.slopes);
        detail::parallelFor(tileRows, threads, 8, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t r = b; r < e; ++r) {
                const std::size_t tile = r / tileH;
                const auto h = static_cast<std::size_t>(map.tiles[tile].head);
                detail::fillBatchBiasRow(bias, batch, tokens, (*slopes)[h], tails[h],
                                         pixelCells(static_cast<int>(r % tileH), tileH, Q), keySpan,
                                         values.data() + r * static_cast<std::size_t>(tileW));
            }
        });
        for (std::size_t t = 0; t < map.tiles.size(); ++t) {
            const auto h = static_cast<std::size_t>(map.tiles[t].head);
            const auto range = detail::batchBiasRange(bias, batch, tokens, (*slopes)[h], tails[h]);
            if (!range.empty) {
                ranges[t].lo = range.lo;
                ranges[t].hi = range.hi;
            }
        }
    } else if (batched) {
        // Attention of a batch row: one exact row per distinct query a pixel row shows.
        std::atomic<bool> stop{false};
        std::mutex rangeMutex;
        detail::parallelFor(tileRows, threads, 4, [&](std::uint64_t b, std::uint64_t e) {
            detail::BatchAttentionRows rows(params.attention, batch, *slopes, params.batchRow);
            std::vector<double> row(static_cast<std::size_t>(K));
            std::vector<TileRange> local(map.tiles.size());
            std::int64_t lastQuery = -1;
            int lastHead = -1;
            for (std::uint64_t r = b; r < e; ++r) {
                if (stop.load(std::memory_order_relaxed)) break;
                if (b == 0 && progress && !progress(r, tileRows)) {
                    stop = true;
                    break;
                }
                const std::size_t tile = r / tileH;
                const int y = static_cast<int>(r % tileH);
                const int h = map.tiles[tile].head;
                const std::int64_t q = cellAt(y, tileH, Q);
                const KeyRange allowed = batchAllowedKeys(bias, batch, tokens, q);
                const bool fresh = q != lastQuery || h != lastHead;
                if (fresh) {
                    rows.probabilities(h, q, row);
                    lastQuery = q;
                    lastHead = h;
                    if (map.reduce != Reduce::Sum)
                        for (std::int64_t j = allowed.first; j <= allowed.last; ++j)
                            local[tile].add(row[static_cast<std::size_t>(j)], allowed.first == allowed.last);
                }
                double* out = values.data() + r * static_cast<std::size_t>(tileW);
                for (int x = 0; x < tileW; ++x) {
                    const CellSpan keys = keySpan[static_cast<std::size_t>(x)];
                    const std::int64_t first = std::max(keys.first, allowed.first),
                                       last = std::min(keys.last, allowed.last);
                    if (first > last) {
                        out[x] = kMaskedValue;
                        continue;
                    }
                    double best = 0, sum = 0;
                    for (std::int64_t j = first; j <= last; ++j) {
                        const double v = row[static_cast<std::size_t>(j)];
                        best = std::max(best, v);
                        sum += v;
                    }
                    const double v = map.reduce == Reduce::Max   ? best
                                     : map.reduce == Reduce::Sum ? sum
                                                                 : sum / static_cast<double>(last - first + 1);
                    out[x] = v;
                    if (map.reduce == Reduce::Sum) local[tile].add(v, allowed.first == allowed.last);
                }
            }
            std::lock_guard lock(rangeMutex);
            for (std::size_t t = 0; t < local.size(); ++t) ranges[t].merge(local[t]);
        });
        if (stop) return fail(ErrorCode::Cancelled, "rendering cancelled");
    } else {
        // Attention rows cost O(K * d_k) each: one exact row per distinct query a pixel row
        // shows, computed in chunks per tile on the float path, each pixel then summarising
        // the keys it covers. The calling thread reports progress; a cancel stops every block
        // at its next chunk.
        struct Chunk {
            std::size_t tile;
            int y0, y1;  // pixel rows [y0, y1)
        };
        std::vector<Chunk> chunks;
        // The query pixel row y shows: its own, or in a preview the computed row above it.
        const int step = map.rowStep;
        const auto queryOf = [&](int y) { return cellAt(y - y % step, tileH, Q); };
        detail::PictureRows probe(params.attention, *slopes, map.keyStep);
        // Up to chunkRows distinct queries per chunk, the tile's rows split evenly (a call may
        // cost a whole draw of the head's keys, which a short last chunk would pay for little).
        std::int64_t tileDistinct = 0;
        for (std::int64_t y = 0, last = -1; y < tileH; ++y) {
            const std::int64_t q = queryOf(static_cast<int>(y));
            if (q != last) ++tileDistinct;
            last = q;
        }
        const std::int64_t maxRows = probe.chunkRows();
        // At least as many chunks as threads (one head's detail image runs on every core).
        const auto tileCount = static_cast<std::int64_t>(map.tiles.size());
        const std::int64_t minPerTile =
            (static_cast<std::int64_t>(detail::resolveThreads(threads)) + tileCount - 1) / tileCount;
        const std::int64_t perTile = std::clamp<std::int64_t>(
            std::max((tileDistinct + maxRows - 1) / maxRows, minPerTile), 1, std::max<std::int64_t>(tileDistinct, 1));
        const std::int64_t chunkRows = (tileDistinct + perTile - 1) / perTile;
        for (std::size_t t = 0; t < map.tiles.size(); ++t) {
            int y = 0;
            while (y < tileH) {
                // Up to chunkRows distinct queries per chunk.
                int y1 = y;
                std::int64_t distinct = 0, last = -1;
                while (y1 < tileH) {
                    const std::int64_t q = queryOf(y1);
                    if (q != last) {
                        if (distinct == chunkRows) break;
                        ++distinct;
                        last = q;
                    }
                    ++y1;
                }
                chunks.push_back({t, y, y1});
                y = y1;
            }
        }
        // Progress in 1/kRowUnits of a pixel row: a call over uncached keys (seconds) reports
        // after each panel of keys, and answers a cancel there too.
        constexpr std::uint64_t kRowUnits = 256;
        const std::uint64_t allUnits = tileRows * kRowUnits;
        std::atomic<std::uint64_t> rowsDone{0};
        std::atomic<bool> stop{false};
        std::mutex rangeMutex;
        detail::parallelFor(chunks.size(), threads, 1, [&](std::uint64_t b, std::uint64_t e) {
            detail::PictureRows rows(params.attention, *slopes, map.keyStep);
            std::vector<float> block;
            std::vector<std::int64_t> queries;
            std::vector<TileRange> local(map.tiles.size());
            for (std::uint64_t c = b; c < e; ++c) {
                if (stop.load(std::memory_order_relaxed)) break;
                if (b == 0 && progress && !progress(rowsDone.load(std::memory_order_relaxed), allUnits)) {
                    stop = true;
                    break;
                }
                const Chunk& chunk = chunks[c];
                const std::uint64_t chunkUnits = static_cast<std::uint64_t>(chunk.y1 - chunk.y0) * kRowUnits;
                const int h = map.tiles[chunk.tile].head;
                queries.clear();
                for (int y = chunk.y0; y < chunk.y1; ++y) {
                    const std::int64_t q = queryOf(y);
                    if (queries.empty() || queries.back() != q) queries.push_back(q);
                }
                TileRange& range = local[chunk.tile];
                if (closedForm) {  // here only under Sum: the other reductions are fused above
                    for (int y = chunk.y0; y < chunk.y1; ++y) {
                        const auto g = geometricRow(chunk.tile, y);
                        const std::int64_t n = detail::allowedKeys(bias, queryOf(y));
                        if (map.reduce != Reduce::Sum) addGeometricRange(g, n, range);
                        fillGeometricRow(
                            g, n, values.data() + (chunk.tile * tileH + y) * static_cast<std::size_t>(tileW), range);
                    }
                    rowsDone.fetch_add(chunkUnits, std::memory_order_relaxed);
                    continue;
                }
                block.resize(queries.size() * static_cast<std::size_t>(K));
                std::uint64_t credited = 0;  // of chunkUnits, for the panels done
                rows.compute(h, queries, block, [&](std::int64_t keysDone, std::int64_t keysAll) {
                    const auto due = static_cast<std::uint64_t>(
                        static_cast<double>(chunkUnits) * 0.95 * static_cast<double>(keysDone) /
                        static_cast<double>(std::max<std::int64_t>(keysAll, 1)));
                    if (due > credited) rowsDone.fetch_add(due - credited, std::memory_order_relaxed);
                    credited = std::max(credited, due);
                    if (stop.load(std::memory_order_relaxed)) return false;
                    if (b == 0 && progress && !progress(rowsDone.load(std::memory_order_relaxed), allUnits)) {
                        stop = true;
                        return false;
                    }
                    return true;
                });
                if (stop.load(std::memory_order_relaxed)) break;
                std::size_t r = 0;
                for (int y = chunk.y0; y < chunk.y1; ++y) {
                    const std::int64_t q = queryOf(y);
                    while (queries[r] != q) ++r;
                    const float* row = block.data() + r * static_cast<std::size_t>(K);
                    const std::int64_t n = detail::allowedKeys(bias, q);
                    if (y == chunk.y0 || queryOf(y - 1) != q) {
                        if (map.reduce != Reduce::Sum)
                            for (std::int64_t j = 0; j < n; ++j) range.add(row[j], n == 1);
                    }
                    double* out = values.data() + (chunk.tile * tileH + y) * static_cast<std::size_t>(tileW);
                    for (int x = 0; x < tileW; ++x) {
                        const CellSpan keys = keySpan[static_cast<std::size_t>(x)];
                        const std::int64_t last = std::min(keys.last, n - 1);
                        if (keys.first > last) {
                            out[x] = kMaskedValue;
                            continue;
                        }
                        double v = 0;
                        if (map.reduce == Reduce::Max) {
                            float best = row[keys.first];
                            for (std::int64_t j = keys.first + 1; j <= last; ++j) best = std::max(best, row[j]);
                            v = best;
                        } else {
                            double sum = 0;
                            for (std::int64_t j = keys.first; j <= last; ++j) sum += row[j];
                            v = map.reduce == Reduce::Sum ? sum : sum / static_cast<double>(last - keys.first + 1);
                        }
                        out[x] = v;
                        if (map.reduce == Reduce::Sum) range.add(v, n == 1);
                    }
                }
                rowsDone.fetch_add(chunkUnits - credited, std::memory_order_relaxed);
            }
            {
                std::lock_guard lock(rangeMutex);
                for (std::size_t t = 0; t < local.size(); ++t) ranges[t].merge(local[t]);
            }
            // The calling thread's block may finish first: it keeps answering progress and
            // cancel until the other blocks are done.
            while (b == 0 && progress && !stop.load(std::memory_order_relaxed) &&
                   rowsDone.load(std::memory_order_relaxed) < allUnits) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                if (!progress(rowsDone.load(std::memory_order_relaxed), allUnits)) stop = true;
            }
        });
        if (stop) return fail(ErrorCode::Cancelled, "rendering cancelled");
    }

    setScales();
    detail::parallelFor(tileRows, threads, 8, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t r = b; r < e; ++r) colourRow(r, values.data() + r * static_cast<std::size_t>(tileW));
    });
    if (progress) progress(tileRows, tileRows);
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
            return CellHit{t.head, cellAt(y - t.y, t.height, Q), cellAt(x - t.x, t.width, K)};
    return std::nullopt;
}

}  // namespace alibi
