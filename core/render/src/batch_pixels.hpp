// The pixels of one batch row's heatmap (see renderHeatmap with HeatmapParams::batch): bias
// pixels from sampled cells, the exact value range of a head in O(T), attention rows of a batch
// row, and which pixel rows show only fully masked queries.
#pragma once

#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace alibi::detail {

// Sampled cells per pixel side: a pixel averages up to kBatchSamples x kBatchSamples allowed
// cells (every cell when it covers no more), each exactly as the tensor stores it.
inline constexpr std::int64_t kBatchSamples = 4;

// One pixel row of a head's tile: `out[x]` is the mean of the sampled allowed cells of query
// rows `rows` and keys `keys[x]`, NaN when none of them is allowed.
void fillBatchBiasRow(const BiasParams& bias, const BatchParams& batch, const BatchRow& row, double slope, double tail,
                      CellSpan rows, std::span<const CellSpan> keys, double* out);

// The exact minimum and maximum stored value of the allowed cells of one head of a batch row
// (empty when every cell is masked): per query, the extremes of n sit at the ends of its allowed
// key range or at the key with its own position.
struct BatchRange {
    double lo = 0, hi = 0;
    bool empty = true;
};
[[nodiscard]] BatchRange batchBiasRange(const BiasParams& bias, const BatchParams& batch, const BatchRow& row,
                                        double slope, double tail);

// Per pixel row of a tile `tileHeight` pixels high: whether every query row it shows is fully
// masked (no allowed key), for a batch row or (row == nullptr) for the single sequence.
[[nodiscard]] std::vector<char> fullyMaskedPixelRows(const AttentionParams& params, const BatchParams& batch,
                                                     const BatchRow* row, int tileHeight);

}  // namespace alibi::detail
