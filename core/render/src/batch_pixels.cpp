// Batch-row heatmap pixels (see batch_pixels.hpp).
#include "batch_pixels.hpp"

#include <alibi/model/arith.hpp>
#include <alibi/model/attention.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::detail {

namespace {

// Up to kBatchSamples indices spread evenly over [first, last], both ends included.
int sampleIndices(std::int64_t first, std::int64_t last, std::int64_t* out) {
    const std::int64_t n = last - first + 1;
    if (n <= kBatchSamples) {
        for (std::int64_t k = 0; k < n; ++k) out[k] = first + k;
        return static_cast<int>(n);
    }
    for (std::int64_t k = 0; k < kBatchSamples; ++k)
        out[k] = first + (k * (n - 1) + (kBatchSamples - 1) / 2) / (kBatchSamples - 1);
    return static_cast<int>(kBatchSamples);
}

}  // namespace

void fillBatchBiasRow(const BiasParams& bias, const BatchParams& batch, const BatchRow& row, double slope, double tail,
                      CellSpan rows, std::span<const CellSpan> keys, double* out) {
    std::int64_t queries[kBatchSamples];
    const int nq = sampleIndices(rows.first, rows.last, queries);
    KeyRange allowed[kBatchSamples];
    for (int a = 0; a < nq; ++a) allowed[a] = batchAllowedKeys(bias, batch, row, queries[a]);
    std::int64_t js[kBatchSamples];
    for (std::size_t x = 0; x < keys.size(); ++x) {
        double sum = 0;
        int count = 0;
        for (int a = 0; a < nq; ++a) {
            const std::int64_t first = std::max(allowed[a].first, keys[x].first);
            const std::int64_t last = std::min(allowed[a].last, keys[x].last);
            if (first > last) continue;
            const int nk = sampleIndices(first, last, js);
            for (int b = 0; b < nk; ++b)
                sum += arithProduct(bias.slopes.arith, bias.dtype, slope, tail,
                                    batchCellMultiplier(bias, row, queries[a], js[b]));
            count += nk;
        }
        out[x] = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
    }
}

BatchRange batchBiasRange(const BiasParams& bias, const BatchParams& batch, const BatchRow& row, double slope,
                          double tail) {
    // Allowed keys of one query are consecutive tokens of one run of real tokens, whose
    // positions are consecutive too, so n is piecewise linear in j with its kink at p_j = p_i.
    std::int64_t nLo = std::numeric_limits<std::int64_t>::max(), nHi = std::numeric_limits<std::int64_t>::min();
    const auto T = static_cast<std::int64_t>(row.tokens.size());
    for (std::int64_t i = 0; i < T; ++i) {
        const KeyRange r = batchAllowedKeys(bias, batch, row, i);
        if (r.empty()) continue;
        const std::int64_t pFirst = row.tokens[static_cast<std::size_t>(r.first)].position;
        const std::int64_t own =
            std::clamp(r.first + row.tokens[static_cast<std::size_t>(i)].position - pFirst, r.first, r.last);
        for (const std::int64_t j : {r.first, r.last, own}) {
            const std::int64_t n = batchCellMultiplier(bias, row, i, j);
            nLo = std::min(nLo, n);
            nHi = std::max(nHi, n);
        }
    }
    if (nLo > nHi) return {};
    // Stored values are monotone in n for a positive slope, so the extremes of n give theirs.
    const double a = arithProduct(bias.slopes.arith, bias.dtype, slope, tail, nLo);
    const double b = arithProduct(bias.slopes.arith, bias.dtype, slope, tail, nHi);
    return {std::min(a, b), std::max(a, b), false};
}

std::vector<char> fullyMaskedPixelRows(const AttentionParams& params, const BatchParams& batch, const BatchRow* row,
                                       int tileHeight) {
    const BiasParams& bias = params.bias;
    std::vector<char> out(static_cast<std::size_t>(std::max(tileHeight, 0)), 0);
    const FullyMaskedRows fm = row ? FullyMaskedRows{} : fullyMaskedRows(params);
    if (!row && fm.count == 0) return out;
    for (int y = 0; y < tileHeight; ++y) {
        const CellSpan rows = pixelCells(y, tileHeight, bias.queries);
        bool all = true;
        if (row) {
            for (std::int64_t i = rows.first; i <= rows.last && all; ++i)
                all = batchAllowedKeys(bias, batch, *row, i).empty();
        } else {
            all = rows.first >= fm.first && rows.last < fm.first + fm.count;
        }
        out[static_cast<std::size_t>(y)] = all ? 1 : 0;
    }
    return out;
}

}  // namespace alibi::detail
