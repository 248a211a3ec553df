// The slope vectors worth trying for what the tensor's slopes allow: the schemes (press,
// geometric, linear) with round max_bias values, and the known buggy variants (off-by-one
// exponent, naive geometric slopes, slopes scaled by 1/sqrt(d_k), one slope for all heads).
#pragma once

#include "readings.hpp"

#include <string>
#include <vector>

namespace alibi::detail {

// Every slope vector worth trying for this read, most ordinary first.
[[nodiscard]] std::vector<SlopeCandidate> slopeCandidates(const SlopeRead& read, int heads, DType dtype);

// The first slopes as "0.5, 0.25, 0.125, 0.0625, ..." (for the summary).
[[nodiscard]] std::string slopeList(const std::vector<double>& slopes);

}  // namespace alibi::detail
