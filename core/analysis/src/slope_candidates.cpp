// Slope candidates (see slope_candidates.hpp).
#include "slope_candidates.hpp"

#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace alibi::detail {
namespace {

// Round numbers near x, coarsest first (8 before 8.001): max_bias is usually a round number.
std::vector<double> niceValues(double x) {
    std::vector<double> out;
    if (!std::isfinite(x)) return out;
    for (const double k : {1.0, 2.0, 4.0, 8.0, 16.0, 100.0, 1000.0}) {
        const double v = std::round(x * k) / k;
        if (v >= 0 && v <= 1000 && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

// Press's structure with the off-by-one exponent: 2^(-B h/c) for the first c heads, then the
// even entries of the 2c-head list.
std::vector<double> pressOffByOne(int heads, double b) {
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<double> s;
    for (int h = 0; h < c; ++h) s.push_back(std::exp2(-b * h / c));
    for (int k = 0; k < heads - c; ++k) s.push_back(std::exp2(-b * (2 * k) / (2.0 * c)));
    return s;
}

std::vector<double> geometricOffByOne(int heads, double b) {
    std::vector<double> s;
    for (int h = 0; h < heads; ++h) s.push_back(std::exp2(-b * h / heads));
    return s;
}

}  // namespace

std::string slopeList(const std::vector<double>& slopes) {
    std::string s;
    const std::size_t shown = std::min<std::size_t>(slopes.size(), 4);
    for (std::size_t h = 0; h < shown; ++h) s += (h ? ", " : "") + fmt::format("{:.6g}", slopes[h]);
    if (slopes.size() > shown) s += ", ...";
    return s;
}

// Every slope vector worth trying for this read, most ordinary first.
std::vector<SlopeCandidate> slopeCandidates(const SlopeRead& read, int heads, DType dtype) {
    std::vector<SlopeCandidate> out;
    const bool pow2 = std::has_single_bit(static_cast<unsigned>(heads));
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    if (read.free || !read.valid) {
        // Nothing to read (or garbage): the default is the only sensible guess.
        out.push_back({SlopeScheme::Press, 8, pressSlopes(heads, 8), {}, "press slopes (max_bias 8)"});
        return out;
    }
    const auto& m = read.estimate;
    const auto tryScheme = [&](SlopeScheme scheme, double b0, auto&& make) -> bool {
        for (const double b : niceValues(b0)) {
            auto s = make(b);
            if (withinIntervals(read, s)) {
                out.push_back({scheme, b, std::move(s), {}, ""});
                return true;
            }
            if (dtype == DType::F16 || dtype == DType::BF16) {
                for (auto& x : s) x = roundTo(dtype, x);
                if (withinIntervals(read, s)) {
                    out.push_back({scheme, b, std::move(s), {}, "", true});
                    return true;
                }
            }
        }
        return false;
    };
    // The summary's words for a scheme match, noting slopes rounded to the dtype first.
    const auto named = [&](SlopeCandidate& sc, const std::string& words) {
        sc.description =
            sc.roundedFirst ? fmt::format("{} rounded to {} before multiplying", words, dtypeName(dtype)) : words;
    };

    if (withinIntervals(read, linearSlopes(heads)))
        out.push_back({SlopeScheme::Linear, 8, linearSlopes(heads), {}, "linear slopes (0.05 to 0.5)", false,
                       SlopeScheme::Linear});

    if (tryScheme(SlopeScheme::Press, -c * std::log2(m[0]), [&](double b) { return pressSlopes(heads, b); }))
        named(out.back(), fmt::format("press slopes (max_bias {})", out.back().maxBias));

    if (!pow2 && tryScheme(SlopeScheme::Geometric, -heads * std::log2(m[0]),
                           [&](double b) { return geometricSlopes(heads, b); })) {
        auto& g = out.back();
        named(g, fmt::format("geometric slopes (max_bias {})", g.maxBias));
        const std::string what = fmt::format(
            "The slopes are 2^(-B(h+1)/H) for all {} heads (geometric, max_bias {}). {} is not a power of "
            "two: the paper's reference code, BLOOM and MPT use the press rule instead (the first {} slopes "
            "of the {}-head list, then every other slope of the {}-head list).",
            heads, g.maxBias, heads, c, c, 2 * c);
        g.findings.push_back(
            {kNaiveSlopesNonPow2, what + " Use --scheme press unless you mean to reproduce a geometric implementation.",
             what + " Set Scheme to press (Open the corrected parameters does) unless you mean to reproduce a "
                    "geometric implementation."});
    }

    // Slope exponent off by one: head 0 gets 2^0 = 1.
    if (heads >= 2 && read.lo[0] <= 1 && read.hi[0] >= 1) {
        const double b0Geo = -heads * std::log2(m[1]);
        const double b0Press = -c * std::log2(m[1]);
        bool found = tryScheme(SlopeScheme::Custom, b0Geo, [&](double b) { return geometricOffByOne(heads, b); });
        // The press rule with the same slip in its power-of-two helper: 2^(-B h/c) for the first c heads.
        const int n = found ? heads : c;
        if (!found && !pow2)
            found = tryScheme(SlopeScheme::Custom, b0Press, [&](double b) { return pressOffByOne(heads, b); });
        if (found) {
            auto& o = out.back();
            named(o, fmt::format("off-by-one slopes 2^(-B h/{}) (max_bias {})", n, o.maxBias));
            const std::string what = fmt::format(
                "The slope exponent is off by one: head h has 2^(-{} h/{}) instead of 2^(-{} (h+1)/{}), so "
                "head 0 has slope 1.0 and every head is one step steeper than ALiBi's. Compute the slopes "
                "from h + 1",
                o.maxBias, n, o.maxBias, n);
            o.findings.push_back({kSlopeOffByOne, what + " (or use --scheme press).",
                                  what + "; Open the corrected parameters shows the press slopes they should be."});
        }
    }

    // Slopes divided by sqrt(d_k) together with the logits: a known scheme times 1/sqrt(d) for an
    // integer d. With two heads or more, B comes from the ratio of the first two slopes (which the
    // scaling leaves alone); with one head only the common B = 8 is tried.
    {
        struct Base {
            SlopeScheme scheme;
            double b0;
            std::vector<double> (*make)(int, double);
        };
        std::vector<Base> bases;
        const double ratio = heads >= 2 ? m[1] / m[0] : 0;
        bases.push_back({SlopeScheme::Press, heads >= 2 ? -c * std::log2(ratio) : 8.0, &pressSlopes});
        if (!pow2) bases.push_back({SlopeScheme::Geometric, -heads * std::log2(ratio), &geometricSlopes});
        bases.push_back({SlopeScheme::Linear, 8.0, [](int h, double) { return linearSlopes(h); }});
        bool found = false;
        for (const auto& base : bases) {
            for (const double b : niceValues(base.b0)) {
                const auto s = base.make(heads, b);
                const double d0 = (s[0] / m[0]) * (s[0] / m[0]);
                const double d = std::round(d0);
                if (d < 2 || d > 65536 || std::fabs(d0 - d) > 1e-3 * d) continue;
                std::vector<double> scaled = s;
                for (auto& x : scaled) x /= std::sqrt(d);
                if (!withinIntervals(read, scaled)) continue;
                const std::string name = base.scheme == SlopeScheme::Linear
                                             ? std::string("linear slopes")
                                             : fmt::format("{} slopes (max_bias {})", schemeName(base.scheme), b);
                out.push_back({SlopeScheme::Custom,
                               b,
                               std::move(scaled),
                               {{kScaledBySqrtDk,
                                 fmt::format("The slopes are {} divided by sqrt({}) = {:.6g}: the bias was scaled by "
                                             "1/sqrt(d_k) together with the logits, with d_k = {}. ALiBi adds the bias "
                                             "after the scaling (paper, footnote 10), so each head is {:.6g} times "
                                             "flatter than intended.",
                                             name, d, std::sqrt(d), d, std::sqrt(d))}},
                               fmt::format("{} / sqrt({})", name, d),
                               false,
                               base.scheme == SlopeScheme::Linear ? SlopeScheme::Linear : SlopeScheme::Press});
                found = true;
                break;
            }
            if (found) break;
        }
    }

    // One slope for every head (missing per-head broadcast).
    if (heads >= 2) {
        double lo = 0, hi = kInf;
        for (std::size_t h = 0; h < read.lo.size(); ++h) {
            lo = std::max(lo, read.lo[h]);
            hi = std::min(hi, read.hi[h]);
        }
        if (lo <= hi && hi > 0) {
            const double one = std::clamp(m[0], lo, hi);
            out.push_back({SlopeScheme::Custom, 8, std::vector<double>(static_cast<std::size_t>(heads), one), {}, ""});
            out.back().description = fmt::format("one slope {:.6g} for all {} heads", one, heads);
        }
    }

    out.push_back({SlopeScheme::Custom, 8, m, {}, fmt::format("custom slopes ({})", slopeList(m))});

    // For a near-miss, the nearest ordinary scheme is usually the better "closest candidate"
    // than slopes fitted to wrong cells; these only matter when nothing matches.
    for (const double b : {std::round(-c * std::log2(m[0])), 8.0}) {
        if (!(b >= 0 && b <= 1000)) continue;
        const bool have = std::any_of(out.begin(), out.end(), [&](const SlopeCandidate& x) {
            return x.scheme == SlopeScheme::Press && x.maxBias == b;
        });
        if (!have)
            out.push_back(
                {SlopeScheme::Press, b, pressSlopes(heads, b), {}, fmt::format("press slopes (max_bias {})", b)});
    }
    return out;
}

}  // namespace alibi::detail
