// Reading shapes, slopes and the mask off the tensor (see readings.hpp).
#include "readings.hpp"

#include "candidate_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::detail {

std::vector<Reading> readings(const Shape& shape, Result<void>& error) {
    std::vector<Reading> out;
    const auto fits = [](const Reading& r) {
        return r.heads >= 1 && r.heads <= kMaxHeads && r.queries >= 1 && r.queries <= kMaxLength && r.keys >= 1 &&
               r.keys <= kMaxLength;
    };
    const auto add = [&](Reading r) {
        if (fits(r)) out.push_back(r);
    };
    const std::string expected = "expected (H, Q, K), (Q, K, H), (1, H, Q, K), (H*T*T,) or (Q, K)";
    switch (shape.size()) {
        case 1: {
            const std::int64_t n = shape[0];
            // Longest sequence first: the smallest T always divides, and reads nearly anything.
            for (auto t = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n))) + 1; t >= 1; --t) {
                if (t * t > n || n % (t * t) != 0) continue;
                Reading r{Layout::Flat, Layout::Hqk, n / (t * t), t, t, false, false};
                add(r);
            }
            if (out.empty())
                error =
                    fail(ErrorCode::InvalidArgument,
                         fmt::format("cannot diagnose a flat tensor of {} elements: a flat ALiBi tensor holds H*T*T "
                                     "values with 1 <= H <= {}",
                                     n, kMaxHeads));
            break;
        }
        case 2:
            add({Layout::Hqk, Layout::Hqk, 1, shape[0], shape[1], false, true});
            break;
        case 3:
            add({Layout::Hqk, Layout::Hqk, shape[0], shape[1], shape[2], false, false});
            add({Layout::Qkh, Layout::Qkh, shape[2], shape[0], shape[1], false, false});
            if (shape[0] > 1) add({Layout::Hqk, Layout::Qkh, shape[0], shape[1], shape[2], true, false});
            break;
        case 4:
            if (shape[0] != 1) {
                error =
                    fail(ErrorCode::InvalidArgument,
                         fmt::format("cannot diagnose a tensor of shape {}: a 4-D ALiBi tensor is (1, H, Q, K) with a "
                                     "leading 1; for a batch, save one element (x[0])",
                                     shapeString(shape)));
                return {};
            }
            add({Layout::OneHqk, Layout::Hqk, shape[1], shape[2], shape[3], false, false});
            break;
        default:
            error = fail(ErrorCode::InvalidArgument, fmt::format("cannot diagnose a {}-D tensor of shape {}: {}",
                                                                 shape.size(), shapeString(shape), expected));
            return {};
    }
    if (out.empty() && error)
        error = fail(ErrorCode::InvalidArgument,
                     fmt::format("cannot diagnose a tensor of shape {}: heads must be 1 to {} and lengths 1 to {} ({})",
                                 shapeString(shape), kMaxHeads, kMaxLength, expected));
    return out;
}

std::vector<double> readRowOffsets(const View& view, const Form& form) {
    const Reading& r = view.reading();
    std::vector<double> out(static_cast<std::size_t>(r.heads * r.queries), 0.0);
    for (std::int64_t h = 0; h < r.heads; ++h)
        for (std::int64_t i = 0; i < r.queries; ++i) {
            std::int64_t ref = std::min(i + form.offset, r.keys - 1);
            while (ref >= 0 && !formCell(form, 1.0, i, ref, r.keys)) --ref;
            if (ref < 0) continue;
            // The form is zero at the query's own position: the constant is the stored value.
            const auto coef = formCell(form, 1.0, i, ref, r.keys);
            const double v = view.at(h, i, ref);
            out[static_cast<std::size_t>(h * r.queries + i)] = *coef == 0 && std::isfinite(v) ? v : 0.0;
        }
    return out;
}

SlopeRead readSlopes(const View& view, const Form& form, const std::vector<double>* rowOffsets) {
    const Reading& r = view.reading();
    const DType dtype = view.tensor().dtype();
    SlopeRead out;
    const auto H = static_cast<std::size_t>(r.heads);
    out.lo.assign(H, 0);
    out.hi.assign(H, kInf);
    out.estimate.assign(H, std::numeric_limits<double>::quiet_NaN());
    // The last row sees every distance from 0 to p, so it pins the slope best.
    const std::int64_t i = r.queries - 1;
    std::vector<double> cellSlopes;
    for (std::size_t h = 0; h < H; ++h) {
        cellSlopes.clear();
        for (std::int64_t j = 0; j < r.keys; ++j) {
            const auto coef = formCell(form, 1.0, i, j, r.keys);
            if (!coef || *coef == 0) continue;
            const double raw = view.at(static_cast<std::int64_t>(h), i, j);
            if (!std::isfinite(raw)) {
                out.valid = false;
                continue;
            }
            const double offset =
                rowOffsets ? (*rowOffsets)[h * static_cast<std::size_t>(r.queries) + static_cast<std::size_t>(i)] : 0.0;
            const double v = raw - offset;
            const double m = v / *coef;
            const double slack =
                (tolerance(dtype, raw, std::fabs(offset)) + (rowOffsets ? tolerance(dtype, offset, 0) : 0)) /
                std::fabs(*coef);
            out.lo[h] = std::max(out.lo[h], m - slack);
            out.hi[h] = std::min(out.hi[h], m + slack);
            cellSlopes.push_back(m);
        }
        if (cellSlopes.empty()) {
            out.free = true;
            continue;
        }
        // The median survives a few wrong cells, so a near-miss still names the right scheme.
        std::nth_element(cellSlopes.begin(), cellSlopes.begin() + cellSlopes.size() / 2, cellSlopes.end());
        out.estimate[h] = cellSlopes[cellSlopes.size() / 2];
        if (out.lo[h] <= out.hi[h] && out.hi[h] > 0) out.estimate[h] = 0.5 * (std::max(out.lo[h], 0.0) + out.hi[h]);
        if (!(out.estimate[h] > 0) || !std::isfinite(out.estimate[h])) out.valid = false;
    }
    return out;
}

bool withinIntervals(const SlopeRead& read, const std::vector<double>& slopes) {
    if (slopes.size() != read.lo.size()) return false;
    for (std::size_t h = 0; h < slopes.size(); ++h) {
        const double slack = 1e-12 * slopes[h];
        if (!(slopes[h] >= read.lo[h] - slack && slopes[h] <= read.hi[h] + slack)) return false;
    }
    return true;
}

MaskRead readMask(const View& view, const Form& form) {
    MaskRead out;
    if (!modeMasks(form.mode)) return out;
    const Reading& r = view.reading();
    // The first row with a future key holds a masked cell at its last key.
    for (std::int64_t i = 0; i < r.queries; ++i) {
        if (formCell(form, 1.0, i, r.keys - 1, r.keys)) continue;
        const double v = view.at(0, i, r.keys - 1);
        const DType dtype = view.tensor().dtype();
        out.seen = true;
        // A "mask" of 0 is the clamped mode (future keys get 0), not a mask; nor is NaN or +inf.
        if (std::isnan(v) || v == kInf || v == 0) {
            out.valid = false;
        } else if (v == -kInf) {
            out.mask = {MaskValue::Kind::NegInf, -kInf};
        } else if (v == dtypeLowest(dtype)) {
            out.mask = {MaskValue::Kind::Lowest, 0.0};
        } else if (v == roundTo(dtype, -1e9)) {
            out.mask = {MaskValue::Kind::Finite, -1e9};
        } else if (v == roundTo(dtype, -10000.0)) {
            out.mask = {MaskValue::Kind::Finite, -10000.0};
        } else {
            out.mask = {MaskValue::Kind::Finite, v};
        }
        return out;
    }
    return out;
}

}  // namespace alibi::detail
