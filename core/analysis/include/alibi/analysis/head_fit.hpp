// How well each head of a trained model's attention follows ALiBi: the effective slope m* that
// best explains the head's rows as softmax(-m*·distance) (maximum likelihood over all rows, the
// rows read as soft counts), its 95% interval, the goodness of fit (mean KL divergence of the
// rows from the fitted prior), and the same per-head statistics as for synthetic attention.
// One pass over the maps; the fit itself works on per-row sufficient statistics (the row's mean
// distance and its support), in closed form. Formulas: docs/FIT.md.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace alibi {

// The support of a row's prior: distances offset, offset + 1, ..., offset + count - 1, in up to
// two blocks (a causal row has one; a bidirectional row its past, then its future from 1).
struct DistanceBlock {
    std::int64_t offset = 0;
    std::int64_t count = 0;
};

// log sum_d exp(-m d), the mean and the variance of d under softmax(-m d), over the blocks.
struct PriorMoments {
    double logZ = 0;
    double mean = 0;
    double variance = 0;
};
[[nodiscard]] PriorMoments priorMoments(double slope, std::span<const DistanceBlock> blocks);

struct HeadFitOptions {
    std::int64_t firstRow = 0;  // query rows [firstRow, lastRow) of every head
    std::int64_t lastRow = -1;  // -1: up to the last row
    std::vector<int> layers;    // layer indices to fit; empty: every layer
    unsigned threads = 0;       // 0: every core
    ProgressFn progress;        // rows done / total; false cancels
};

struct HeadFit {
    int layerIndex = 0;  // position in AttentionMaps
    int layer = 0;       // the layer's number (AttentionLayerInfo::number)
    int head = 0;
    double slope = 0;     // m*
    double slopeLow = 0;  // 95% interval
    double slopeHigh = 0;
    bool slopeAtBound = false;  // m* reached the search range's end (a head that attends to one key)
    double kl = 0;              // mean over rows of KL(row || fitted prior), nats
    double sinkMass = 0;        // mean probability on key 0
    double diagonalMass = 0;    // mean probability on the query's own position
    double entropy = 0;         // mean row entropy, nats
    double meanDistance = 0;    // mean over rows of sum_j p_j d_j
    double distance90 = 0;      // mean over rows of the smallest D with mass(d <= D) >= 0.9
    std::int64_t rows = 0;      // rows used (all-zero rows are skipped)
    std::optional<double> configuredSlope;
    // Mean KL of the rows from the configured slope's prior: how much worse the model's own
    // slope explains the head than m* does (kl is the floor).
    std::optional<double> configuredKl;
    // Mean KL of the rows from the uniform prior (slope 0): how much a distance preference
    // explains at all (the verdict's "no distance preference" when this is within 0.001 of kl).
    double uniformKl = 0;
    // Mean attention by distance (sum over rows of the mass at distance d, normalised to sum 1),
    // d = 0 .. K-1: the head's "attention vs distance" profile.
    std::vector<double> profile;
};

// The search range of m*: a head whose rows put all their mass on one key has m* at the upper
// end (slopeAtBound); a head that prefers distant keys gets a negative m*. A fit at either end has
// no interval to speak of (the likelihood still rises at the end): its interval is [m*, m*].
inline constexpr double kFitSlopeMin = -1.0;
inline constexpr double kFitSlopeMax = 30.0;

// Fits every head of the chosen layers. `configured`, when given, holds one slope per head
// (the model's ALiBi prior) and is copied into each result.
[[nodiscard]] Result<std::vector<HeadFit>> fitHeads(const AttentionMaps& maps, const HeadFitOptions& options,
                                                    const std::vector<double>& configured = {});

// The profile (mass by distance d = 0 .. K-1 summed over query rows [firstRow, lastRow),
// normalised to sum 1) that the content-free prior softmax(-m d) gives on maps of this shape:
// what HeadFit::profile would be if the head followed slope m exactly.
[[nodiscard]] std::vector<double> priorProfile(double slope, std::int64_t queries, std::int64_t keys, bool causal,
                                               std::int64_t firstRow = 0, std::int64_t lastRow = -1);

// The fit of one head from per-row statistics, exposed for tests: rows' mean distances and
// supports. Returns m*, its interval and the mean cross-entropy term.
struct SlopeEstimate {
    double slope = 0, low = 0, high = 0;
    bool atBound = false;
};
struct RowSummary {
    double meanDistance = 0;
    double entropy = 0;
    DistanceBlock blocks[2];
    int blockCount = 1;
};
[[nodiscard]] SlopeEstimate fitSlope(std::span<const RowSummary> rows);
// Mean KL(row || softmax(-m d)) over the rows.
[[nodiscard]] double meanKl(std::span<const RowSummary> rows, double slope);

}  // namespace alibi
