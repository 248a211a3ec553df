// One pass over a row of attention probabilities for the per-head fit: its mass, entropy and
// mean distance, the distance holding 90% of its mass, and its mass by distance (added into a
// head's profile). This is the fit's inner loop, run once per element of a file that may hold
// billions, so it has a vector path; the reference loops define what it computes.
#pragma once

#include <cstdint>
#include <span>

namespace alibi::detail {

struct RowTotals {
    double mass = 0;
    double entropy = 0;           // -sum p log p over p > 0, nats
    double distance = 0;          // sum p d
    std::int64_t distance90 = 0;  // the smallest D with mass(d <= D) >= 0.9, walking out from the query
};

// Row p (one query's probabilities over all keys) of a query at position i: a causal row reads
// keys j <= i at distance i - j, a bidirectional one every key at |i - j|. Adds p's mass at
// distance d into profile[d] (profile.size() == p.size(); distances beyond it are dropped).
[[nodiscard]] RowTotals summariseRow(std::span<const double> p, std::int64_t i, bool causal, std::span<double> profile);

// The same in plain loops, in key order: the definition the vector path is tested against.
[[nodiscard]] RowTotals summariseRowReference(std::span<const double> p, std::int64_t i, bool causal,
                                              std::span<double> profile);

}  // namespace alibi::detail
