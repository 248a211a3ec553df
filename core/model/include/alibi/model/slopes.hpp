// Per-head ALiBi slopes for every scheme in REFERENCES.md, computed in double.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>

#include <vector>

namespace alibi {

// Validates the parameters (H >= 1, finite B >= 0, custom list of H positive finite numbers)
// and returns the H slopes in head order. Press slopes are deliberately unsorted.
[[nodiscard]] Result<std::vector<double>> computeSlopes(const SlopeParams& params);
// Every entry of a custom slope list a positive finite number (the rule computeSlopes applies to
// a Custom scheme's list). A session checks a list it keeps under another scheme too: a NaN kept
// there would make the session unequal to itself, so an explorer would recompute every frame.
[[nodiscard]] Result<void> checkCustomSlopes(const std::vector<double>& custom);

// 2^(-B(h+1)/n) for h in [0, n): the power-of-two rule, each slope from its exact exponent.
[[nodiscard]] std::vector<double> geometricSlopes(int n, double maxBias);
// The paper's rule for any H (see REFERENCES.md, "press").
[[nodiscard]] std::vector<double> pressSlopes(int heads, double maxBias);
// Evenly spaced from 0.05 to 0.5 (linspace).
[[nodiscard]] std::vector<double> linearSlopes(int heads);

// ln 2 / m: the distance over which a head's bias halves the attention weight.
[[nodiscard]] double halfLife(double slope);

}  // namespace alibi
