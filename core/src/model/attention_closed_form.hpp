// Zero-content attention in closed form. With no content, a row's logits are an arithmetic
// sequence in the distance to the query (one run to the left, and for symmetric one to the
// right), a block of equal logits (clamped's future keys) and a block holding the mask value,
// so the softmax is a truncated geometric distribution: every probability, the normaliser and
// the statistics (entropy, mean distance, mass within a distance) cost O(1) or O(log K) per row
// instead of O(K).
//
// The closed form uses the exact bias -m * d / temperature. It equals the direct softmax (to
// about 1e-13 relative) for f64 tensors; for f32 the stored bias differs from the exact one by
// at most 2^-24 of itself. f16 and bf16 round the bias so coarsely that the distribution is no
// longer geometric: closedFormApplies() is false for them and callers use the direct rows.
#pragma once

#include <alibi/model/params.hpp>
#include <alibi/model/stats.hpp>

#include <array>
#include <cstdint>
#include <span>

namespace alibi::detail {

// True when zero-content rows of these parameters are computed in closed form.
[[nodiscard]] bool closedFormApplies(const AttentionParams& params);

class GeometricRow {
public:
    // Row `query` of the head with slope `slope`; `params` must have passed validateAttention.
    GeometricRow(const AttentionParams& params, double slope, std::int64_t query);

    // True when every key is masked with -inf: the softmax is 0/0, NaN in every framework.
    [[nodiscard]] bool isNaN() const { return m_nan; }
    [[nodiscard]] std::int64_t keys() const { return m_keys; }
    // The probability of key j (NaN for a NaN row).
    [[nodiscard]] double probability(std::int64_t key) const;
    // Every probability, in out[0, K).
    void probabilities(std::span<double> out) const;
    // The total and the largest probability of keys [first, last), in O(1): what a heatmap
    // pixel covering those keys shows (sum, mean = sum / count, or max), at pixel cost.
    [[nodiscard]] double sumBetween(std::int64_t first, std::int64_t last) const;
    [[nodiscard]] double maxBetween(std::int64_t first, std::int64_t last) const;
    // Entropy, mean distance and the distances holding 50% and 90% of the mass, as rowStats
    // computes them from the probabilities (all zero for a NaN row).
    [[nodiscard]] RowStats stats() const;

private:
    // Keys at distances d in [first, first + count) from the query, logit `offset - a * d`.
    struct Run {
        std::int64_t first = 0;
        std::int64_t count = 0;
        double offset = 0;
        double weight = 0;  // sum of exp(logit - max) over the run
        double mean = 0;    // mean of d - first under those weights
    };
    // Keys at distances [first, first + count) that all hold one logit (clamped's future keys,
    // masked keys).
    struct Block {
        std::int64_t first = 0;
        std::int64_t count = 0;
        double logit = 0;
        double weight = 0;  // count * exp(logit - max)
    };

    [[nodiscard]] double runMass(const Run& r, std::int64_t maxDistance) const;
    [[nodiscard]] double massWithin(std::int64_t distance) const;
    [[nodiscard]] double distanceHolding(double level) const;

    std::int64_t m_keys = 0;
    std::int64_t m_pos = 0;      // the query's absolute position
    std::int64_t m_visible = 0;  // keys [0, m_visible) are not masked
    bool m_symmetric = false;
    bool m_nan = false;
    double m_a = 0;  // slope / temperature
    double m_max = 0;
    double m_total = 0;
    std::array<Run, 2> m_runs{};  // left (j <= p, d = p - j), right (j > p, d = j - p)
    std::array<Block, 2> m_blocks{};  // clamped's future keys, masked keys
};

}  // namespace alibi::detail
