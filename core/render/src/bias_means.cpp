#include "bias_means.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::detail {
namespace {

constexpr double kMaskedValue = std::numeric_limits<double>::quiet_NaN();

// Sums over the cells (p, j) with p in [p0, p1], j in [j0, j1] and d = p - j in [dlo, dhi]:
// the count, the sum of d and the sum of j. Per row p the keys form one interval
// [max(j0, p - dhi), min(j1, p - dlo)] whose ends are linear in p, so the rows split into at
// most three runs over which count, sum of j and sum of d are polynomials of degree <= 2 in p.
struct BandSums {
    double n = 0, d = 0, j = 0;
};

double powerSum(double a, double b, int k) {  // sum of p^k for integer p in [a, b]
    auto s = [k](double x) {                  // sum over [0, x] (x >= -1), extended as a polynomial
        if (k == 0) return x + 1;
        if (k == 1) return x * (x + 1) / 2;
        return x * (x + 1) * (2 * x + 1) / 6;
    };
    return s(b) - s(a - 1);
}

BandSums bandSums(std::int64_t p0, std::int64_t p1, std::int64_t j0, std::int64_t j1, std::int64_t dlo,
                  std::int64_t dhi) {
    BandSums out;
    // Breakpoints: the lower end switches from j0 to p - dhi after pA, the upper end from
    // p - dlo to j1 at pB.
    const std::int64_t pA = j0 + dhi, pB = j1 + dlo;
    std::int64_t cuts[4] = {p0, std::clamp(pA + 1, p0, p1 + 1), std::clamp(pB, p0, p1 + 1), p1 + 1};
    std::sort(cuts + 1, cuts + 3);
    for (int s = 0; s < 3; ++s) {
        std::int64_t a = cuts[s], b = cuts[s + 1] - 1;
        if (a > b) continue;
        const std::int64_t mid = a;  // which branch each end takes is the same over the run
        const double l1 = mid > pA ? 1 : 0, l0 = mid > pA ? static_cast<double>(-dhi) : static_cast<double>(j0);
        const double u1 = mid < pB ? 1 : 0, u0 = mid < pB ? static_cast<double>(-dlo) : static_cast<double>(j1);
        // count(p) = (u0 - l0 + 1) + (u1 - l1) p must be >= 1: keep the rows where it is.
        const double c0 = u0 - l0 + 1, c1 = u1 - l1;
        double lo = static_cast<double>(a), hi = static_cast<double>(b);
        if (c1 == 0) {
            if (c0 < 1) continue;
        } else if (c1 > 0) {
            lo = std::max(lo, std::ceil((1 - c0) / c1));
        } else {
            hi = std::min(hi, std::floor((1 - c0) / c1));
        }
        if (lo > hi) continue;
        const double S0 = powerSum(lo, hi, 0), S1 = powerSum(lo, hi, 1), S2 = powerSum(lo, hi, 2);
        out.n += c0 * S0 + c1 * S1;
        // sum of j over [L, U] = (U(U + 1) - L(L - 1)) / 2 with U = u0 + u1 p, L = l0 + l1 p.
        const double q0 = u0 * u0 + u0 - l0 * l0 + l0, q1 = 2 * u0 * u1 + u1 - 2 * l0 * l1 + l1, q2 = u1 * u1 - l1 * l1;
        const double sumJ = (q0 * S0 + q1 * S1 + q2 * S2) / 2;
        out.j += sumJ;
        out.d += c0 * S1 + c1 * S2 - sumJ;  // sum of p * count(p) - sum of j
    }
    return out;
}

constexpr std::int64_t kFar = std::int64_t{1} << 40;  // a distance bound that never binds

}  // namespace

double meanBias(BiasMode mode, double m, std::int64_t p0, std::int64_t p1, std::int64_t j0, std::int64_t j1,
                std::int64_t K) {
    const double cells = static_cast<double>(p1 - p0 + 1) * static_cast<double>(j1 - j0 + 1);
    const double pc = 0.5 * static_cast<double>(p0 + p1), jc = 0.5 * static_cast<double>(j0 + j1);
    // Fast paths: the block lies on one side of the diagonal, where the bias is linear, so its
    // mean is the value at the block's centre.
    if (p0 - j1 >= 0) {  // every cell has j <= p
        switch (mode) {
            case BiasMode::Causal:
            case BiasMode::Symmetric:
            case BiasMode::Clamped:
                return -(m * (pc - jc));
            case BiasMode::Bloom:
                return m * jc;
            case BiasMode::Mpt:
                return -(m * (static_cast<double>(K - 1) - jc));
        }
    }
    if (p1 - j0 < 0) {  // every cell has j > p
        switch (mode) {
            case BiasMode::Symmetric:
                return -(m * (jc - pc));
            case BiasMode::Clamped:
                return 0.0;
            default:
                return kMaskedValue;
        }
    }
    const BandSums past = bandSums(p0, p1, j0, j1, 0, kFar);  // j <= p
    switch (mode) {
        case BiasMode::Causal:
            return past.n > 0 ? -(m * past.d) / past.n : kMaskedValue;
        case BiasMode::Bloom:
            return past.n > 0 ? m * past.j / past.n : kMaskedValue;
        case BiasMode::Mpt:
            return past.n > 0 ? -(m * (static_cast<double>(K - 1) * past.n - past.j)) / past.n : kMaskedValue;
        case BiasMode::Clamped:
            return -(m * past.d) / cells;
        case BiasMode::Symmetric: {
            const BandSums future = bandSums(p0, p1, j0, j1, -kFar, -1);  // j > p, d < 0
            return -(m * (past.d - future.d)) / cells;
        }
    }
    return kMaskedValue;
}

}  // namespace alibi::detail
