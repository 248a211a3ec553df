// Per-head statistics of the attention distribution.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace alibi {

struct RowStats {
    double entropy = 0;       // nats
    double meanDistance = 0;  // sum_j p_j |p_i - j|
    double distance50 = 0;    // smallest d with mass(|p_i - j| <= d) >= 0.5
    double distance90 = 0;    // same for 0.9
};

struct HeadStats {
    int head = 0;
    double slope = 0;
    double halfLife = 0;  // ln 2 / m
    RowStats row;         // at the chosen query row
    RowStats mean;        // averaged over the sampled rows
};

struct StatsResult {
    std::int64_t queryRow = 0;      // the row `row` describes
    std::int64_t rowsAveraged = 0;  // rows that `mean` averages (all, or an even sample;
                                    // rows whose every key is masked are left out)
    std::vector<HeadStats> heads;
};

// Statistics of one probability row whose query sits at absolute position queryPos.
[[nodiscard]] RowStats rowStats(std::span<const double> probabilities, std::int64_t queryPos);
// The field-by-field mean of `rows`, summed in order (zeros for none).
[[nodiscard]] RowStats meanRowStats(std::span<const RowStats> rows);
// Which of `count` candidate rows (positions 0..count-1, in order) a mean over at most
// `maxRows` (>= 1) of them reads: all when they fit, else maxRows evenly spaced from the first
// to the last (just the last when maxRows is 1).
[[nodiscard]] std::vector<std::int64_t> evenlySpacedPicks(std::int64_t count, std::int64_t maxRows);

struct StatsParams {
    AttentionParams attention;
    std::int64_t queryRow = -1;  // -1: the last row
    // Average over at most this many evenly spaced rows; 0: statsRowsToAverage's rule, the one
    // every front end uses (an explicit count is for tests and benchmarks).
    std::int64_t maxRows = 0;
    friend bool operator==(const StatsParams&, const StatsParams&) = default;
};

// The most rows the per-head means average when none is asked for.
inline constexpr std::int64_t kStatsRowsMax = 256;
// How many rows the per-head means average, one rule for the CLI, Python and both explorers:
// `params.maxRows` when it is set, else kStatsRowsMax, fewer when rows are long (H x K cells of
// d_k multiply-adds each with q.k content) so the statistics of a heavy session stay within
// about a second; at least 1. The reports say how many rows were averaged.
[[nodiscard]] std::int64_t statsRowsToAverage(const StatsParams& params);

[[nodiscard]] Result<StatsResult> computeStats(const StatsParams& params, unsigned threads = 0,
                                               const ProgressFn& progress = {});

}  // namespace alibi
