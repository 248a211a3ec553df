// Checking a candidate against the tensor (see candidate_check.hpp).
#include "candidate_check.hpp"

#include <alibi/base/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>

namespace alibi::detail {
namespace {

constexpr double kRelTolerance = 1e-6;  // f32 / f64

// Spacing of the dtype's representable values at magnitude |x| (f16 / bf16 only).
double ulpOf(DType dtype, double x) {
    const int mant = dtype == DType::F16 ? 10 : 7;
    const int minExp = dtype == DType::F16 ? -14 : -126;
    int e2 = 0;
    (void)std::frexp(std::fabs(x), &e2);
    const int e = x == 0 ? minExp : std::max(e2 - 1, minExp);
    return std::ldexp(1.0, e - mant);
}

bool agrees(double stored, double exact, DType dtype, double scale) {
    if (stored == exact) return true;  // also equal infinities
    if (std::isnan(stored) || std::isnan(exact)) return false;
    if (stored == roundTo(dtype, exact)) return true;  // e.g. -1e9 that overflowed f16 to -inf
    if (!std::isfinite(stored) || !std::isfinite(exact)) return false;
    return std::fabs(stored - exact) <= tolerance(dtype, exact, scale);
}

// One cell of candidate c: a row offset widens the tolerance to the offset's own rounding, and a
// mixed f16 mask accepts either of its two values.
bool cellAgrees(const Candidate& c, DType dtype, double stored, double exact, std::int64_t h, std::int64_t i) {
    double scale = c.slopes.slopes[static_cast<std::size_t>(h)];
    if (c.form.rowOffset) {
        const double offset = c.rowOffsets[static_cast<std::size_t>(h * c.reading.queries + i)];
        scale = std::max(scale, std::fabs(offset));
        if (dtype == DType::F16 || dtype == DType::BF16) {
            if (std::fabs(stored - exact) <= tolerance(dtype, exact, scale) + tolerance(dtype, offset, scale))
                return true;
        }
    }
    if (c.mixedMask) {
        const double lowest = dtypeLowest(dtype);
        const bool maskedExact = exact == lowest || exact == -kInf || roundTo(dtype, exact) == -kInf;
        if (maskedExact && (stored == lowest || stored == -kInf)) return true;
    }
    return agrees(stored, exact, dtype, scale);
}

}  // namespace

double tolerance(DType dtype, double exact, double scale) {
    if (dtype == DType::F32 || dtype == DType::F64) return kRelTolerance * std::max(std::fabs(exact), scale);
    // Half an ulp, with a hair of slack for slopes that were themselves read off the tensor.
    return 0.5 * ulpOf(dtype, exact) * (1 + 1e-3);
}

double absError(double stored, double expected) {
    if (stored == expected) return 0;
    if (std::isnan(stored) || std::isnan(expected)) return kInf;
    return std::fabs(stored - expected);
}

std::uint64_t sampleMismatches(const View& view, const Candidate& c, std::uint64_t limit) {
    const std::uint64_t n = view.tensor().size();
    const std::uint64_t samples = std::min(n, kSampleCells);
    const DType dtype = view.tensor().dtype();
    std::uint64_t bad = 0;
    for (std::uint64_t k = 0; k < samples; ++k) {
        // Strided over the whole tensor, plus the very last cell (the last row of the last head).
        const std::uint64_t idx = k + 1 == samples ? n - 1 : k * n / samples;
        std::int64_t h = 0, i = 0, j = 0;
        view.decode(idx, h, i, j);
        if (!cellAgrees(c, dtype, view.tensor().at(idx), expectedExact(c, dtype, h, i, j), h, i) && ++bad > limit)
            break;
    }
    return bad;
}

FullCheck fullCheck(const View& view, const Candidate& c, bool stopEarly) {
    const DType dtype = view.tensor().dtype();
    const Tensor& t = view.tensor();
    const Reading& r = view.reading();
    const bool qkh = r.memory == Layout::Qkh;
    // A memory row: the K keys of (h, i) in hqk order, the H heads of (i, j) in qkh order.
    const std::uint64_t rows = qkh ? static_cast<std::uint64_t>(r.queries) * static_cast<std::uint64_t>(r.keys)
                                   : static_cast<std::uint64_t>(r.heads) * static_cast<std::uint64_t>(r.queries);
    const auto rowLength = static_cast<std::uint64_t>(qkh ? r.heads : r.keys);
    std::atomic<std::uint64_t> firstBad{std::numeric_limits<std::uint64_t>::max()};
    std::mutex merge;
    FullCheck out;

    detail::parallelFor(rows, 0, std::max<std::uint64_t>(1, 65536 / rowLength), [&](std::uint64_t b, std::uint64_t e) {
        FullCheck local;
        for (std::uint64_t row = b; row < e; ++row) {
            if (stopEarly && row * rowLength > firstBad.load(std::memory_order_relaxed)) break;
            for (std::uint64_t k = 0; k < rowLength; ++k) {
                std::int64_t h = 0, i = 0, j = 0;
                if (qkh) {
                    i = static_cast<std::int64_t>(row / static_cast<std::uint64_t>(r.keys));
                    j = static_cast<std::int64_t>(row % static_cast<std::uint64_t>(r.keys));
                    h = static_cast<std::int64_t>(k);
                } else {
                    h = static_cast<std::int64_t>(row / static_cast<std::uint64_t>(r.queries));
                    i = static_cast<std::int64_t>(row % static_cast<std::uint64_t>(r.queries));
                    j = static_cast<std::int64_t>(k);
                }
                const std::uint64_t idx = row * rowLength + k;
                const double stored = t.at(idx);
                const double exact = expectedExact(c, dtype, h, i, j);
                if (stored == exact) continue;  // the common case, and the same infinity
                const double rounded = roundTo(dtype, exact);
                const bool mixedMasked = c.mixedMask && (stored == -kInf || stored == dtypeLowest(dtype)) &&
                                         (rounded == -kInf || rounded == dtypeLowest(dtype));
                if (!mixedMasked) local.maxAbsError = std::max(local.maxAbsError, absError(stored, rounded));
                if (cellAgrees(c, dtype, stored, exact, h, i)) continue;
                local.ok = false;
                if (!local.firstMismatch) {
                    local.firstMismatch = idx;
                    local.actual = stored;
                    local.expected = rounded;
                    std::uint64_t seen = firstBad.load(std::memory_order_relaxed);
                    while (idx < seen && !firstBad.compare_exchange_weak(seen, idx, std::memory_order_relaxed)) {
                    }
                }
                if (stopEarly) break;
            }
            if (stopEarly && !local.ok) break;
        }
        const std::lock_guard lock(merge);
        out.ok = out.ok && local.ok;
        out.maxAbsError = std::max(out.maxAbsError, local.maxAbsError);
        if (local.firstMismatch && (!out.firstMismatch || *local.firstMismatch < *out.firstMismatch)) {
            out.firstMismatch = local.firstMismatch;
            out.actual = local.actual;
            out.expected = local.expected;
        }
    });
    return out;
}

}  // namespace alibi::detail
