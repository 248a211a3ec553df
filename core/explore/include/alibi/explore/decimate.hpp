// Curve thinning shared by both explorers: per bucket of consecutive points, the lowest and the
// highest (kept in x order), so a peak of one point survives any amount of thinning.
#pragma once

#include <alibi/render/plot.hpp>

#include <cstddef>
#include <vector>

namespace alibi::explore {

// At most about `maxPoints` points (maxPoints / 2 buckets, two points each); a series that
// already fits is left alone. NaN points never win a bucket over a number.
void decimateSeries(Series& series, std::size_t maxPoints);
void decimateSeries(std::vector<Series>& series, std::size_t maxPoints);

// Points per curve when every head is drawn: 2^18 in all, 1024..4096 per head.
[[nodiscard]] std::size_t curvePointBudget(int heads);

}  // namespace alibi::explore
