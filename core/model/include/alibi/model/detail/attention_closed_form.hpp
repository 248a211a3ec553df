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

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace alibi::detail {

// e^x, without calling exp where it underflows to 0 (x < ln 2^-1075 = -745.13...): far from
// the query most of a long row's probabilities underflow, and exp's underflow path (which
// sets errno) cost a heatmap more than all the rest of a pixel. The result is exp's own.
[[nodiscard]] inline double expOrZero(double x) {
    return x < -746.0 ? 0.0 : std::exp(x);
}

// True when zero-content rows of these parameters are computed in closed form.
[[nodiscard]] bool closedFormApplies(const AttentionParams& params);

class GeometricRow {
public:
    // Row `query` of the head with slope `slope`; `params` must have passed validateAttention.
    GeometricRow(const AttentionParams& params, double slope, std::int64_t query);

    // True when every key is masked with -inf: the softmax is 0/0, NaN in every framework.
    [[nodiscard]] bool isNaN() const { return m_nan; }
    [[nodiscard]] std::int64_t keys() const { return m_keys; }
    // The probability of key j (NaN for a NaN row). Inline, with maxBetween: a heatmap calls
    // them for every pixel.
    [[nodiscard]] double probability(std::int64_t key) const {
        if (m_nan) return std::numeric_limits<double>::quiet_NaN();
        if (key > m_pos) {
            if (key >= m_visible) return m_blocks[1].count > 0 ? expOrZero(m_blocks[1].logit - m_max) / m_total : 0.0;
            if (m_symmetric) return expOrZero(-m_a * static_cast<double>(key - m_pos) - m_max) / m_total;
            return expOrZero(m_blocks[0].logit - m_max) / m_total;  // clamped's future keys
        }
        return expOrZero(m_runs[0].offset - m_a * static_cast<double>(m_pos - key) - m_max) / m_total;
    }
    // Every probability, in out[0, K).
    void probabilities(std::span<double> out) const;
    // The total and the largest probability of keys [first, last), in O(1): what a heatmap
    // pixel covering those keys shows (sum, mean = sum / count, or max), at pixel cost.
    [[nodiscard]] double sumBetween(std::int64_t first, std::int64_t last) const;
    [[nodiscard]] double maxBetween(std::int64_t first, std::int64_t last) const {
        if (m_nan) return std::numeric_limits<double>::quiet_NaN();
        first = std::max<std::int64_t>(first, 0);
        last = std::min(last, m_keys);
        if (first >= last) return 0;
        // Probabilities rise towards the query on each side and are flat in the blocks, so the
        // largest one sits at an end of the range or at the query itself.
        double best = std::max(probability(first), probability(last - 1));
        if (m_pos >= first && m_pos < last) best = std::max(best, probability(m_pos));
        return best;
    }
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
    std::array<Run, 2> m_runs{};      // left (j <= p, d = p - j), right (j > p, d = j - p)
    std::array<Block, 2> m_blocks{};  // clamped's future keys, masked keys
};

}  // namespace alibi::detail
