// Whether a candidate reproduces the tensor: the tolerance a stored value may sit from the exact
// one (the dtype's rounding), a quick count on a strided sample, and a scan of every cell.
#pragma once

#include "candidate.hpp"

#include <cstdint>
#include <optional>

namespace alibi::detail {

// How far a stored value may sit from the exact value. `scale` (a slope) keeps the tolerance
// of a zero entry from collapsing to nothing when another library computes m*i - m*j.
[[nodiscard]] double tolerance(DType dtype, double exact, double scale);

// |stored - expected| with the convention that the same infinity is no error.
[[nodiscard]] double absError(double stored, double expected);

// Mismatches on a strided sample of cells; stops counting once past `limit`, since such a
// candidate can no longer be the best.
[[nodiscard]] std::uint64_t sampleMismatches(const View& view, const Candidate& c, std::uint64_t limit);

struct FullCheck {
    bool ok = true;
    double maxAbsError = 0;
    std::optional<std::uint64_t> firstMismatch;
    double actual = 0, expected = 0;
};

// Every cell, in blocks of whole memory rows on the core's threads. With stopEarly the scan
// ends soon after the first disagreement; the reported first mismatch is always the one with
// the lowest memory index.
[[nodiscard]] FullCheck fullCheck(const View& view, const Candidate& c, bool stopEarly);

}  // namespace alibi::detail
