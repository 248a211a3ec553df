// Min/max bucket thinning of curves.
#include <alibi/explore/decimate.hpp>

#include <algorithm>
#include <cmath>

namespace alibi::explore {

void decimateSeries(Series& s, std::size_t maxPoints) {
    maxPoints = std::max<std::size_t>(maxPoints, 4);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    if (n <= maxPoints) return;
    const std::size_t bucket = (n + maxPoints / 2 - 1) / (maxPoints / 2);
    Series out;
    out.label = s.label;
    for (std::size_t start = 0; start < n; start += bucket) {
        const std::size_t end = std::min(n, start + bucket);
        std::size_t lo = start, hi = start;
        for (std::size_t k = start; k < end; ++k) {
            if (s.y[k] < s.y[lo] || std::isnan(s.y[lo])) lo = k;
            if (s.y[k] > s.y[hi] || std::isnan(s.y[hi])) hi = k;
        }
        const std::size_t first = std::min(lo, hi), second = std::max(lo, hi);
        out.x.push_back(s.x[first]);
        out.y.push_back(s.y[first]);
        if (second != first) {
            out.x.push_back(s.x[second]);
            out.y.push_back(s.y[second]);
        }
    }
    s = std::move(out);
}

void decimateSeries(std::vector<Series>& series, std::size_t maxPoints) {
    for (Series& s : series) decimateSeries(s, maxPoints);
}

std::size_t curvePointBudget(int heads) {
    return std::clamp<std::size_t>((std::size_t{1} << 18) / static_cast<std::size_t>(std::max(1, heads)), 1024, 4096);
}

}  // namespace alibi::explore
