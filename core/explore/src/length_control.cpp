// See length_control.hpp.
#include <alibi/explore/length_control.hpp>

#include <algorithm>
#include <bit>
#include <cmath>

namespace alibi::explore {

namespace {

std::int64_t clampTo(std::int64_t v, std::int64_t lo, std::int64_t hi) {
    return std::clamp(v, lo, std::max(lo, hi));
}

}  // namespace

std::int64_t stepValue(std::int64_t value, int direction, bool powerOfTwo, std::int64_t lo, std::int64_t hi) {
    value = clampTo(value, lo, hi);
    if (direction == 0) return value;
    if (!powerOfTwo) return clampTo(direction > 0 ? value + 1 : value - 1, lo, hi);
    if (direction > 0) {
        // The smallest power of two strictly above the value.
        const auto u = static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0));
        return clampTo(static_cast<std::int64_t>(std::bit_floor(u) << 1 == 0 ? 1 : std::bit_floor(u) << 1), lo, hi);
    }
    // The largest power of two strictly below the value (none below 1: the range's low end).
    if (value <= 1) return clampTo(value - 1, lo, hi);
    const auto below = std::bit_floor(static_cast<std::uint64_t>(value - 1));
    return clampTo(static_cast<std::int64_t>(below), lo, hi);
}

int coarsePositions(std::int64_t hi) {
    return static_cast<int>(
        std::lround(kCoarsePerOctave * std::log2(static_cast<double>(std::max<std::int64_t>(hi, 1)))));
}

int coarsePosition(std::int64_t value, std::int64_t lo, std::int64_t hi) {
    const auto v = clampTo(value, std::max<std::int64_t>(lo, 1), hi);
    return static_cast<int>(std::lround(kCoarsePerOctave * std::log2(static_cast<double>(v))));
}

std::int64_t coarseValue(int position, std::int64_t lo, std::int64_t hi) {
    return clampTo(std::llround(std::exp2(static_cast<double>(position) / kCoarsePerOctave)),
                   std::max<std::int64_t>(lo, 1), hi);
}

std::int64_t fineSpan(int pixels, std::int64_t lo, std::int64_t hi) {
    const auto fit = std::bit_floor(static_cast<std::uint64_t>(std::max(pixels, 8)));
    const std::int64_t span = std::clamp<std::int64_t>(static_cast<std::int64_t>(fit), 8, 1024);
    return std::max<std::int64_t>(1, std::min(span, hi - lo + 1));
}

LinearWindow fineWindow(std::int64_t value, int pixels, std::int64_t lo, std::int64_t hi) {
    const std::int64_t span = fineSpan(pixels, lo, hi);
    const std::int64_t start = clampTo(clampTo(value, lo, hi) - span / 2, lo, hi - span + 1);
    return {start, start + span - 1};
}

LinearWindow followWindow(const LinearWindow& current, std::int64_t value, int pixels, std::int64_t lo,
                          std::int64_t hi) {
    const bool sized = current.hi - current.lo + 1 == fineSpan(pixels, lo, hi) && current.lo >= lo && current.hi <= hi;
    const bool inside = (value > current.lo || (value == current.lo && current.lo == lo)) &&
                        (value < current.hi || (value == current.hi && current.hi == hi));
    return sized && inside ? current : fineWindow(value, pixels, lo, hi);
}

}  // namespace alibi::explore
