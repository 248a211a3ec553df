// What the tensor says before any candidate is checked: the ways its shape can be read, the
// per-head slopes its last query row allows (as intervals the dtype's rounding leaves open), and
// the mask value a masked cell holds.
#pragma once

#include "candidate.hpp"

#include <alibi/base/error.hpp>

#include <vector>

namespace alibi::detail {

// Every reading of `shape` worth trying (hqk, qkh, 1hqk, flat, qkh data in an hqk shape), in
// order; `error` is set when the shape cannot be an ALiBi tensor at all.
[[nodiscard]] std::vector<Reading> readings(const Shape& shape, Result<void>& error);

struct SlopeRead {
    std::vector<double> lo, hi, estimate;
    bool valid = true;  // every head has a positive, finite, self-consistent slope
    bool free = false;  // the tensor holds no cell that depends on the slope
};

// With `rowOffsets` (form.rowOffset), each row's constant (at h * Q + i) is taken off first.
[[nodiscard]] SlopeRead readSlopes(const View& view, const Form& form, const std::vector<double>* rowOffsets = nullptr);

// The constant of each row (h, i) when the tensor is a form plus a per-row constant: the value at
// the row's last allowed key minus the form's value there (h * Q + i).
[[nodiscard]] std::vector<double> readRowOffsets(const View& view, const Form& form);

// Whether every slope lies in its head's interval.
[[nodiscard]] bool withinIntervals(const SlopeRead& read, const std::vector<double>& slopes);

// The mask value a masked cell holds, classified as the spellings in use.
struct MaskRead {
    MaskValue mask;
    bool seen = false;
    bool valid = true;
};

[[nodiscard]] MaskRead readMask(const View& view, const Form& form);

}  // namespace alibi::detail
