// The words of a diagnosis: the findings a candidate's form shows (layout mix-up, missing head
// axis, sign flip, top-left alignment, fp16 mask overflow, one slope for all heads), and the
// candidate and indices as the summary names them.
#pragma once

#include "candidate.hpp"

#include <string>
#include <vector>

namespace alibi::detail {

[[nodiscard]] std::vector<Finding> formFindings(const Candidate& c, DType dtype);

// "(2, 3, 4)" (and "(5,)" for one axis), as Python prints a tuple.
[[nodiscard]] std::string indexString(const std::vector<std::int64_t>& index);

// The index of a flat (row-major) position in `shape`.
[[nodiscard]] std::vector<std::int64_t> unravel(const Shape& shape, std::uint64_t flat);

// "press slopes (max_bias 8), causal mode, mask -1e9".
[[nodiscard]] std::string describeCandidate(const Candidate& c);

}  // namespace alibi::detail
