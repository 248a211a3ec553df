#include "heatmap_paint.hpp"

#include <alibi/base/parallel.hpp>
#include <alibi/model/arith.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/detail/attention_closed_form.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/batch_attention_rows.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/colormap.hpp>
#include "attention_rows.hpp"
#include "batch_pixels.hpp"
#include "bias_means.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

namespace alibi::detail {

std::int64_t cellAt(int p, int pixels, std::int64_t cells) {
    const auto c = static_cast<std::int64_t>((static_cast<double>(p) + 0.5) * static_cast<double>(cells) / pixels);
    return std::clamp<std::int64_t>(c, 0, cells - 1);
}

namespace {

constexpr double kMaskedValue = std::numeric_limits<double>::quiet_NaN();

Result<void> cancelled() {
    return fail(ErrorCode::Cancelled, "rendering cancelled");
}

// One heatmap being painted. Pass 1 writes the value of every tile pixel (NaN where masked), one
// tile row at a time, and each tile's exact range (TileValueRange: attention rows of one key
// apart); setScales turns the ranges into the tiles' scales; pass 2 colours the rows. Where
// every tile's range is known without the pixels (the bias, and zero-content attention shown by
// max or mean, in closed form), the two passes are fused row by row instead: no frame-sized
// buffer of values is written and read back (that traffic, not the arithmetic, was most of a
// 1920x1080 frame's time).
class HeatmapPainter {
public:
    HeatmapPainter(const HeatmapParams& params, const std::vector<double>& slopes, Heatmap& map, unsigned threads,
                   const ProgressFn& progress);

    Result<void> paint();

private:
    using TileRange = TileValueRange;

    // Pass 1's ways, one a kind of heatmap.
    Result<void> paintFused();
    void valuesOfBatchBias();
    Result<void> valuesOfBatchAttention();
    Result<void> valuesOfAttentionRows();

    // The bias of pixel row y of a tile, into out[0, tileW).
    void fillBiasRow(std::size_t tile, int y, double* out) const;
    // Zero content (f32/f64): each row is a truncated geometric distribution, so every pixel's
    // max, sum or mean over its keys costs O(1) whatever K is. Pixel row y of a tile:
    [[nodiscard]] GeometricRow geometricRow(std::size_t tile, int y) const;
    // What a row adds to its tile's range under max or mean: its allowed keys' extremes (the rows
    // are unimodal, so the smallest probability sits at an end).
    static void addGeometricRange(const GeometricRow& g, std::int64_t n, TileRange& range);
    // The row's pixels into out[0, tileW) (n: its allowed keys); under Sum they widen `range`.
    void fillGeometricRow(const GeometricRow& g, std::int64_t n, double* out, TileRange& range) const;
    // Each tile's exact range into its scale; a shared scale is their union.
    void setScales();
    // Pass 2: the colours of tile row r (of all tiles' rows) through the 256-entry table.
    void colourRow(std::uint64_t r, const double* v);
    [[nodiscard]] double* valuesOfRow(std::uint64_t r) { return values_.data() + r * static_cast<std::size_t>(tileW_); }

    const HeatmapParams& params_;
    const BiasParams& bias_;
    const BatchParams& batch_;
    const std::vector<double>& slopes_;
    Heatmap& map_;
    const unsigned threads_;
    const ProgressFn& progress_;
    const bool attention_, batched_;
    const std::int64_t Q_, K_;
    const int tileW_, tileH_;
    const std::uint64_t tileRows_;
    const bool closedForm_;
    const bool fused_;
    const bool roundSlowly_;
    // A per-head scale of several tiles leaves each tile's rows of one key (p = 1) out of its range.
    const bool leaveOutOneKeyRows_;
    std::vector<CellSpan> keySpan_;  // the keys each pixel column covers
    std::vector<double> values_;     // pass 1's values, tile row after tile row (none when fused)
    std::vector<TileRange> ranges_;
    BatchRow tokens_;
    std::vector<char> fullyMasked_;  // pixel rows that show only fully masked queries: striped
};

HeatmapPainter::HeatmapPainter(const HeatmapParams& params, const std::vector<double>& slopes, Heatmap& map,
                               unsigned threads, const ProgressFn& progress)
    : params_(params),
      bias_(params.attention.bias),
      batch_(params.batch),
      slopes_(slopes),
      map_(map),
      threads_(threads),
      progress_(progress),
      attention_(params.what == RenderWhat::Attention),
      batched_(params.batch.active()),
      Q_(params.attention.bias.queries),
      K_(params.attention.bias.keyCount()),
      tileW_(map.tiles.front().width),
      tileH_(map.tiles.front().height),
      tileRows_(map.tiles.size() * static_cast<std::uint64_t>(tileH_)),
      closedForm_(attention_ && closedFormApplies(params.attention)),
      fused_(!batched_ && (!attention_ || (closedForm_ && map.reduce != Reduce::Sum))),
      roundSlowly_(bias_.dtype == DType::F16 || bias_.dtype == DType::BF16),
      leaveOutOneKeyRows_(attention_ && params.scale == ScaleMode::PerHead && map.tiles.size() > 1),
      keySpan_(static_cast<std::size_t>(tileW_)),
      values_(fused_ ? 0 : map.tiles.size() * static_cast<std::size_t>(tileW_) * tileH_),
      ranges_(map.tiles.size()),
      tokens_(batched_ ? batchRow(bias_, batch_, params.batchRow) : BatchRow{}) {
    for (int x = 0; x < tileW_; ++x) keySpan_[static_cast<std::size_t>(x)] = pixelCells(x, tileW_, K_);
    fullyMasked_ = fullyMaskedPixelRows(params.attention, batch_, batched_ ? &tokens_ : nullptr, tileH_);
    map_.fullyMaskedRows = std::find(fullyMasked_.begin(), fullyMasked_.end(), 1) != fullyMasked_.end();
}

Result<void> HeatmapPainter::paint() {
    if (fused_) return paintFused();
    if (batched_ && !attention_) {
        valuesOfBatchBias();
    } else if (batched_) {
        if (auto ok = valuesOfBatchAttention(); !ok) return ok;
    } else {
        if (auto ok = valuesOfAttentionRows(); !ok) return ok;
    }
    setScales();
    parallelFor(tileRows_, threads_, 8, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t r = b; r < e; ++r) colourRow(r, valuesOfRow(r));
    });
    if (progress_) progress_(tileRows_, tileRows_);
    return {};
}

void HeatmapPainter::fillBiasRow(std::size_t tile, int y, double* out) const {
    const int h = map_.tiles[tile].head;
    const double m = slopes_[static_cast<std::size_t>(h)];
    const CellSpan rows = pixelCells(y, tileH_, Q_);
    const std::int64_t p0 = bias_.queryPosition(rows.first), p1 = bias_.queryPosition(rows.last);
    for (int x = 0; x < tileW_; ++x) {
        const CellSpan keys = keySpan_[static_cast<std::size_t>(x)];
        if (p0 == p1 && keys.first == keys.last) {
            // One cell: its stored value, exactly as the tensor holds it.
            const auto v = biasCell(bias_.mode, m, p0, keys.first, K_);
            out[x] = !v                          ? kMaskedValue
                     : bias_.dtype == DType::F32 ? static_cast<double>(static_cast<float>(*v))
                     : roundSlowly_              ? roundTo(bias_.dtype, *v)
                                                 : *v;
        } else {
            out[x] = meanBias(bias_.mode, m, p0, p1, keys.first, keys.last, K_);
        }
    }
}

GeometricRow HeatmapPainter::geometricRow(std::size_t tile, int y) const {
    const int h = map_.tiles[tile].head;
    return GeometricRow(params_.attention, slopes_[static_cast<std::size_t>(h)], cellAt(y, tileH_, Q_));
}

void HeatmapPainter::addGeometricRange(const GeometricRow& g, std::int64_t n, TileRange& range) {
    if (n <= 0 || g.isNaN()) return;
    const double lo = std::min(g.probability(0), g.probability(n - 1)), hi = g.maxBetween(0, n);
    range.add(lo, n == 1);
    range.add(hi, n == 1);
}

void HeatmapPainter::fillGeometricRow(const GeometricRow& g, std::int64_t n, double* out, TileRange& range) const {
    for (int x = 0; x < tileW_; ++x) {
        const CellSpan keys = keySpan_[static_cast<std::size_t>(x)];
        const std::int64_t last = std::min(keys.last, n - 1);
        if (keys.first > last || g.isNaN()) {
            out[x] = kMaskedValue;
            continue;
        }
        const double v = map_.reduce == Reduce::Max ? g.maxBetween(keys.first, last + 1)
                         : map_.reduce == Reduce::Sum
                             ? g.sumBetween(keys.first, last + 1)
                             : g.sumBetween(keys.first, last + 1) / static_cast<double>(last - keys.first + 1);
        out[x] = v;
        if (map_.reduce == Reduce::Sum) range.add(v, n == 1);
    }
}

void HeatmapPainter::setScales() {
    const bool diverging = colormapDiverging(params_.colormap);
    map_.lo = std::numeric_limits<double>::infinity();
    map_.hi = -std::numeric_limits<double>::infinity();
    double positive = std::numeric_limits<double>::infinity();
    double shownLo = std::numeric_limits<double>::infinity();  // the lowest value of any tile
    for (std::size_t t = 0; t < map_.tiles.size(); ++t) {
        const TileValueRange::Span all = ranges_[t].span(false);
        const TileValueRange::Span own = ranges_[t].span(leaveOutOneKeyRows_);
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
        auto& tile = map_.tiles[t];
        tile.lo = lo;
        tile.hi = hi;
        tile.logLo = std::max(std::isfinite(own.positive) ? own.positive : hi, hi * std::pow(10.0, -kLogScaleDecades));
        tile.belowLogLo = own.valid && own.lo < tile.logLo;
        tile.aboveHi = own.leftOut;
        const auto [allLo, allHi] = widen(all);
        map_.lo = std::min(map_.lo, allLo);
        map_.hi = std::max(map_.hi, allHi);
        positive = std::min(positive, all.positive);
        if (all.valid) shownLo = std::min(shownLo, all.lo);
    }
    map_.logLo = std::max(std::isfinite(positive) ? positive : map_.hi, map_.hi * std::pow(10.0, -kLogScaleDecades));
    map_.belowLogLo = shownLo < map_.logLo;
    if (params_.scale == ScaleMode::Shared)
        for (auto& tile : map_.tiles) {
            tile.lo = map_.lo;
            tile.hi = map_.hi;
            tile.logLo = map_.logLo;
            tile.belowLogLo = map_.belowLogLo;
            tile.aboveHi = false;
        }
}

void HeatmapPainter::colourRow(std::uint64_t r, const double* v) {
    const auto& tile = map_.tiles[r / tileH_];
    const int y = static_cast<int>(r % tileH_);
    Rgba* px = &map_.image.at(tile.x, tile.y + y);
    const bool log = map_.log && tile.hi > 0;
    const double lo = log ? std::log10(tile.logLo) : tile.lo;
    const double hi = log ? std::log10(tile.hi) : tile.hi;
    const double scale = hi > lo ? (kColormapLutSize - 1) / (hi - lo) : 0.0;
    if (fullyMasked_[static_cast<std::size_t>(y)]) {
        // One pixel per cell is an image views magnify (a detail pane): stripes there would turn
        // into blotches, so the row takes the stripes' own colour, solid.
        const bool onePixelPerCell = map_.cellsPerPixelX == 1.0 && map_.cellsPerPixelY == 1.0;
        for (int x = 0; x < tileW_; ++x)
            px[x] = onePixelPerCell ? kFullyMaskedColor : fullyMaskedStripe(tile.x + x, tile.y + y);
        return;
    }
    const auto& lut = colormapLut(params_.colormap);
    for (int x = 0; x < tileW_; ++x) {
        if (std::isnan(v[x])) {
            px[x] = kMaskedColor;
            continue;
        }
        const double value = log ? (v[x] > 0 ? std::log10(v[x]) : lo) : v[x];
        const double idx = scale > 0 ? (value - lo) * scale : (kColormapLutSize - 1) / 2.0;
        px[x] = lut[static_cast<std::size_t>(std::clamp(idx + 0.5, 0.0, kColormapLutSize - 1.0))];
    }
}

Result<void> HeatmapPainter::paintFused() {
    if (!attention_) {
        // The exact range of the stored cells, in closed form.
        for (std::size_t t = 0; t < map_.tiles.size(); ++t) {
            const auto range = alibi::biasRange(bias_, slopes_, map_.tiles[t].head);
            if (!range.empty) {
                ranges_[t].lo = range.lo;
                ranges_[t].hi = range.hi;
            }
        }
    }
    // Zero-content rows: each pixel row's range first (a few exponentials per row), the rows
    // kept for the pixels.
    std::vector<std::optional<GeometricRow>> geometric(attention_ ? tileRows_ : 0);
    if (attention_) {
        std::mutex rangeMutex;
        parallelFor(tileRows_, threads_, 64, [&](std::uint64_t b, std::uint64_t e) {
            std::vector<TileRange> local(map_.tiles.size());
            for (std::uint64_t r = b; r < e; ++r) {
                const std::size_t tile = r / tileH_;
                const int y = static_cast<int>(r % tileH_);
                const auto& g = geometric[r].emplace(geometricRow(tile, y));
                addGeometricRange(g, allowedKeys(bias_, cellAt(y, tileH_, Q_)), local[tile]);
            }
            std::lock_guard lock(rangeMutex);
            for (std::size_t t = 0; t < local.size(); ++t) ranges_[t].merge(local[t]);
        });
    }
    setScales();
    std::atomic<std::uint64_t> rowsDone{0};
    std::atomic<bool> stop{false};
    parallelFor(tileRows_, threads_, 8, [&](std::uint64_t b, std::uint64_t e) {
        std::vector<double> row(static_cast<std::size_t>(tileW_));
        TileRange unused;
        for (std::uint64_t r = b; r < e; ++r) {
            if (stop.load(std::memory_order_relaxed)) break;
            const std::size_t tile = r / tileH_;
            const int y = static_cast<int>(r % tileH_);
            if (!attention_) {
                fillBiasRow(tile, y, row.data());
            } else {
                if (b == 0 && progress_ && (r - b) % 64 == 0 &&
                    !progress_(rowsDone.load(std::memory_order_relaxed), tileRows_)) {
                    stop = true;
                    break;
                }
                fillGeometricRow(*geometric[r], allowedKeys(bias_, cellAt(y, tileH_, Q_)), row.data(), unused);
                rowsDone.fetch_add(1, std::memory_order_relaxed);
            }
            colourRow(r, row.data());
        }
    });
    if (stop) return cancelled();
    if (progress_) progress_(tileRows_, tileRows_);
    return {};
}

void HeatmapPainter::valuesOfBatchBias() {
    // A batch row: sampled cells per pixel, the exact range of each head in O(T).
    const std::vector<double> tails = exactSlopeTails(bias_.slopes);
    parallelFor(tileRows_, threads_, 8, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t r = b; r < e; ++r) {
            const std::size_t tile = r / tileH_;
            const auto h = static_cast<std::size_t>(map_.tiles[tile].head);
            fillBatchBiasRow(bias_, batch_, tokens_, slopes_[h], tails[h],
                             pixelCells(static_cast<int>(r % tileH_), tileH_, Q_), keySpan_, valuesOfRow(r));
        }
    });
    for (std::size_t t = 0; t < map_.tiles.size(); ++t) {
        const auto h = static_cast<std::size_t>(map_.tiles[t].head);
        const auto range = batchBiasRange(bias_, batch_, tokens_, slopes_[h], tails[h]);
        if (!range.empty) {
            ranges_[t].lo = range.lo;
            ranges_[t].hi = range.hi;
        }
    }
}

Result<void> HeatmapPainter::valuesOfBatchAttention() {
    // Attention of a batch row: one exact row per distinct query a pixel row shows.
    std::atomic<bool> stop{false};
    std::mutex rangeMutex;
    parallelFor(tileRows_, threads_, 4, [&](std::uint64_t b, std::uint64_t e) {
        BatchAttentionRows rows(params_.attention, batch_, slopes_, params_.batchRow);
        std::vector<double> row(static_cast<std::size_t>(K_));
        std::vector<TileRange> local(map_.tiles.size());
        std::int64_t lastQuery = -1;
        int lastHead = -1;
        for (std::uint64_t r = b; r < e; ++r) {
            if (stop.load(std::memory_order_relaxed)) break;
            if (b == 0 && progress_ && !progress_(r, tileRows_)) {
                stop = true;
                break;
            }
            const std::size_t tile = r / tileH_;
            const int y = static_cast<int>(r % tileH_);
            const int h = map_.tiles[tile].head;
            const std::int64_t q = cellAt(y, tileH_, Q_);
            const KeyRange allowed = batchAllowedKeys(bias_, batch_, tokens_, q);
            const bool fresh = q != lastQuery || h != lastHead;
            if (fresh) {
                rows.probabilities(h, q, row);
                lastQuery = q;
                lastHead = h;
                if (map_.reduce != Reduce::Sum)
                    for (std::int64_t j = allowed.first; j <= allowed.last; ++j)
                        local[tile].add(row[static_cast<std::size_t>(j)], allowed.first == allowed.last);
            }
            double* out = valuesOfRow(r);
            for (int x = 0; x < tileW_; ++x) {
                const CellSpan keys = keySpan_[static_cast<std::size_t>(x)];
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
                const double v = map_.reduce == Reduce::Max   ? best
                                 : map_.reduce == Reduce::Sum ? sum
                                                              : sum / static_cast<double>(last - first + 1);
                out[x] = v;
                if (map_.reduce == Reduce::Sum) local[tile].add(v, allowed.first == allowed.last);
            }
        }
        std::lock_guard lock(rangeMutex);
        for (std::size_t t = 0; t < local.size(); ++t) ranges_[t].merge(local[t]);
    });
    if (stop) return cancelled();
    return {};
}

Result<void> HeatmapPainter::valuesOfAttentionRows() {
    // Attention rows cost O(K * d_k) each: one exact row per distinct query a pixel row shows,
    // computed in chunks per tile on the float path, each pixel then summarising the keys it
    // covers. The calling thread reports progress; a cancel stops every block at its next chunk.
    struct Chunk {
        std::size_t tile;
        int y0, y1;  // pixel rows [y0, y1)
    };
    std::vector<Chunk> chunks;
    // The query pixel row y shows: its own, or in a preview the computed row above it.
    const int step = map_.rowStep;
    const auto queryOf = [&](int y) { return cellAt(y - y % step, tileH_, Q_); };
    PictureRows probe(params_.attention, slopes_, map_.keyStep);
    // Up to chunkRows distinct queries per chunk, the tile's rows split evenly (a call may cost a
    // whole draw of the head's keys, which a short last chunk would pay for little).
    std::int64_t tileDistinct = 0;
    for (std::int64_t y = 0, last = -1; y < tileH_; ++y) {
        const std::int64_t q = queryOf(static_cast<int>(y));
        if (q != last) ++tileDistinct;
        last = q;
    }
    const std::int64_t maxRows = probe.chunkRows();
    // At least as many chunks as threads (one head's detail image runs on every core).
    const auto tileCount = static_cast<std::int64_t>(map_.tiles.size());
    const std::int64_t minPerTile = (static_cast<std::int64_t>(resolveThreads(threads_)) + tileCount - 1) / tileCount;
    const std::int64_t perTile = std::clamp<std::int64_t>(std::max((tileDistinct + maxRows - 1) / maxRows, minPerTile),
                                                          1, std::max<std::int64_t>(tileDistinct, 1));
    const std::int64_t chunkRows = (tileDistinct + perTile - 1) / perTile;
    for (std::size_t t = 0; t < map_.tiles.size(); ++t) {
        int y = 0;
        while (y < tileH_) {
            // Up to chunkRows distinct queries per chunk.
            int y1 = y;
            std::int64_t distinct = 0, last = -1;
            while (y1 < tileH_) {
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
    // Progress in 1/kRowUnits of a pixel row: a call over uncached keys (seconds) reports after
    // each panel of keys, and answers a cancel there too.
    constexpr std::uint64_t kRowUnits = 256;
    const std::uint64_t allUnits = tileRows_ * kRowUnits;
    std::atomic<std::uint64_t> rowsDone{0};
    std::atomic<bool> stop{false};
    std::mutex rangeMutex;
    parallelFor(chunks.size(), threads_, 1, [&](std::uint64_t b, std::uint64_t e) {
        PictureRows rows(params_.attention, slopes_, map_.keyStep);
        std::vector<float> block;
        std::vector<std::int64_t> queries;
        std::vector<TileRange> local(map_.tiles.size());
        for (std::uint64_t c = b; c < e; ++c) {
            if (stop.load(std::memory_order_relaxed)) break;
            if (b == 0 && progress_ && !progress_(rowsDone.load(std::memory_order_relaxed), allUnits)) {
                stop = true;
                break;
            }
            const Chunk& chunk = chunks[c];
            const std::uint64_t chunkUnits = static_cast<std::uint64_t>(chunk.y1 - chunk.y0) * kRowUnits;
            const int h = map_.tiles[chunk.tile].head;
            queries.clear();
            for (int y = chunk.y0; y < chunk.y1; ++y) {
                const std::int64_t q = queryOf(y);
                if (queries.empty() || queries.back() != q) queries.push_back(q);
            }
            TileRange& range = local[chunk.tile];
            if (closedForm_) {  // here only under Sum: the other reductions are fused
                for (int y = chunk.y0; y < chunk.y1; ++y) {
                    const auto g = geometricRow(chunk.tile, y);
                    const std::int64_t n = allowedKeys(bias_, queryOf(y));
                    if (map_.reduce != Reduce::Sum) addGeometricRange(g, n, range);
                    fillGeometricRow(g, n, valuesOfRow(chunk.tile * tileH_ + static_cast<std::uint64_t>(y)), range);
                }
                rowsDone.fetch_add(chunkUnits, std::memory_order_relaxed);
                continue;
            }
            block.resize(queries.size() * static_cast<std::size_t>(K_));
            std::uint64_t credited = 0;  // of chunkUnits, for the panels done
            rows.compute(h, queries, block, [&](std::int64_t keysDone, std::int64_t keysAll) {
                const auto due =
                    static_cast<std::uint64_t>(static_cast<double>(chunkUnits) * 0.95 * static_cast<double>(keysDone) /
                                               static_cast<double>(std::max<std::int64_t>(keysAll, 1)));
                if (due > credited) rowsDone.fetch_add(due - credited, std::memory_order_relaxed);
                credited = std::max(credited, due);
                if (stop.load(std::memory_order_relaxed)) return false;
                if (b == 0 && progress_ && !progress_(rowsDone.load(std::memory_order_relaxed), allUnits)) {
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
                const float* row = block.data() + r * static_cast<std::size_t>(K_);
                const std::int64_t n = allowedKeys(bias_, q);
                if (y == chunk.y0 || queryOf(y - 1) != q) {
                    if (map_.reduce != Reduce::Sum)
                        for (std::int64_t j = 0; j < n; ++j) range.add(row[j], n == 1);
                }
                double* out = valuesOfRow(chunk.tile * tileH_ + static_cast<std::uint64_t>(y));
                for (int x = 0; x < tileW_; ++x) {
                    const CellSpan keys = keySpan_[static_cast<std::size_t>(x)];
                    const std::int64_t last = std::min(keys.last, n - 1);
                    if (keys.first > last) {
                        out[x] = kMaskedValue;
                        continue;
                    }
                    double v = 0;
                    if (map_.reduce == Reduce::Max) {
                        float best = row[keys.first];
                        for (std::int64_t j = keys.first + 1; j <= last; ++j) best = std::max(best, row[j]);
                        v = best;
                    } else {
                        double sum = 0;
                        for (std::int64_t j = keys.first; j <= last; ++j) sum += row[j];
                        v = map_.reduce == Reduce::Sum ? sum : sum / static_cast<double>(last - keys.first + 1);
                    }
                    out[x] = v;
                    if (map_.reduce == Reduce::Sum) range.add(v, n == 1);
                }
            }
            rowsDone.fetch_add(chunkUnits - credited, std::memory_order_relaxed);
        }
        {
            std::lock_guard lock(rangeMutex);
            for (std::size_t t = 0; t < local.size(); ++t) ranges_[t].merge(local[t]);
        }
        // The calling thread's block may finish first: it keeps answering progress and cancel
        // until the other blocks are done.
        while (b == 0 && progress_ && !stop.load(std::memory_order_relaxed) &&
               rowsDone.load(std::memory_order_relaxed) < allUnits) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            if (!progress_(rowsDone.load(std::memory_order_relaxed), allUnits)) stop = true;
        }
    });
    if (stop) return cancelled();
    return {};
}

}  // namespace

Result<void> paintHeatmap(const HeatmapParams& params, const std::vector<double>& slopes, Heatmap& map,
                          unsigned threads, const ProgressFn& progress) {
    return HeatmapPainter(params, slopes, map, threads, progress).paint();
}

}  // namespace alibi::detail
