// The per-element passes of reading a row of attention probabilities: widening stored f32 to
// double, checking that every value is a probability while summing them, and renormalising.
// Every view and fit of a saved attention file runs them over each element it reads (billions
// for a large file), so each is one branch-free loop compiled per instruction set.
#pragma once

#include <cstddef>

namespace alibi::detail {

struct RowCheck {
    double sum = 0;
    bool outside = false;  // some value is outside [-tolerance, 1 + tolerance], or NaN
};

// Widens n f32 values stored at `in` (any alignment, native byte order) into out, checking and
// summing them in the same pass.
[[nodiscard]] RowCheck widenCheckF32(const std::byte* in, double* out, std::size_t n, double tolerance);
// Checks and sums n values already in double.
[[nodiscard]] RowCheck checkRow(const double* values, std::size_t n, double tolerance);
// values[k] = max(values[k], 0) / sum (to an ulp): the stored rounding's small negatives and
// row sums off 1.
void normaliseRow(double* values, std::size_t n, double sum);

}  // namespace alibi::detail
