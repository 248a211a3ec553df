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
        const double v = std::round(x * k) / k + 0.0;  // never -0
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

// Press's interleaved rule with one block off by one: `block` 0 gives the first c heads
// 2^(-B h/c), block 1 takes the extra heads from the wrong entries of the 2c-head list
// (press(2c)[1::2]: 2^(-B(2k+2)/(2c))).
std::vector<double> pressBlockOffByOne(int heads, double b, int block) {
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<double> s;
    for (int h = 0; h < c; ++h) s.push_back(std::exp2(-b * (block == 0 ? h : h + 1) / c));
    for (int k = 0; k < heads - c; ++k) s.push_back(std::exp2(-b * (block == 1 ? 2 * k + 2 : 2 * k + 1) / (2.0 * c)));
    return s;
}

std::string g6(double x) {
    return fmt::format("{:.6g}", x);
}

// One tensor-parallel rank's slice of a larger head count's press set (informational: correct
// for that rank only). Tried before the 1/sqrt(d) scaling, which the slice of rank r also fits.
void appendTensorParallelSlice(const SlopeRead& read, int heads, std::vector<SlopeCandidate>& out) {
    if (heads < 2) return;
    // One rank's slice of a larger set (informational: correct for that rank only).
    for (const int tp : {2, 4, 8}) {
        const int total = heads * tp;
        if (total > 4096) continue;
        const auto full = pressSlopes(total, 8.0);
        for (int r = 0; r < tp; ++r) {
            std::vector<double> s(full.begin() + r * heads, full.begin() + (r + 1) * heads);
            if (!withinIntervals(read, s)) continue;
            SlopeCandidate sc{SlopeScheme::Custom, 8, s, {}, "", false, SlopeScheme::Custom};
            sc.correctSlopes = s;
            sc.description =
                fmt::format("press slopes (max_bias 8) of {} heads, rank {} of tp {}'s slice", total, r, tp);
            Finding f{
                kTensorParallelSlopes,
                fmt::format("The slopes are heads {} to {} of the {}-head press set: rank {} of a tensor-parallel "
                            "split over {} ranks. Correct for rank {} only; on any other rank it is that rank "
                            "taking another shard's slopes, and a model of {} heads wants press({}).",
                            r * heads, (r + 1) * heads - 1, total, r, tp, r, heads, heads)};
            f.informational = true;
            sc.findings.push_back(std::move(f));
            out.push_back(std::move(sc));
            return;
        }
    }
}

void appendPortCandidates(const SlopeRead& read, int heads, DType dtype, std::vector<SlopeCandidate>& out) {
    (void)dtype;
    const auto& m = read.estimate;
    if (heads < 2) return;
    const bool pow2 = std::has_single_bit(static_cast<unsigned>(heads));
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    const double m0 = m[0];
    bool allSame = true;
    for (const double x : m) allSame = allSame && std::fabs(x - m0) <= 1e-9 * m0;
    if (allSame) return;

    // 1. slope-off-by-one confined to one block of the interleaved rule (non-powers of two).
    if (!pow2) {
        for (const int block : {0, 1}) {
            const double b0 = block == 0 ? -c * std::log2(m[1]) : -c * std::log2(m[0]);
            for (const double b : niceValues(b0)) {
                if (!(b > 0)) continue;
                auto s = pressBlockOffByOne(heads, b, block);
                if (!withinIntervals(read, s)) continue;
                SlopeCandidate sc{SlopeScheme::Custom, b, std::move(s), {}, "", false, SlopeScheme::Press};
                sc.description = fmt::format("press slopes (max_bias {}) with the {} block off by one", b,
                                             block == 0 ? std::string("power-of-two") : std::string("extra"));
                const std::string what =
                    block == 0 ? fmt::format(
                                     "The first {} of the {} heads have 2^(-{} h/{}) instead of 2^(-{} (h+1)/{}): the "
                                     "power-of-two block of the interleaved rule is off by one (head 0 has slope 1), "
                                     "while the {} extra heads are right.",
                                     c, heads, b, c, b, c, heads - c)
                               : fmt::format(
                                     "The {} extra heads (beyond the power of two {}) take press({})[1::2] = "
                                     "2^(-{} (2k+2)/{}) instead of press({})[0::2] = 2^(-{} (2k+1)/{}): the extra "
                                     "block of the interleaved rule is off by one, while the first {} heads are right.",
                                     heads - c, c, 2 * c, b, 2 * c, 2 * c, b, 2 * c, c);
                sc.findings.push_back(
                    {kSlopeOffByOne, what + " Take the extra slopes from the even entries (0, 2, 4, ...) "
                                            "of the 2c-head list and compute exponents from h + 1."});
                out.push_back(std::move(sc));
                return;
            }
        }
    }

    // 2. scaled-bias: a scheme times a constant c != 1 (the ratio of slopes keeps B).
    {
        const double ratio = m[1] / m[0];
        std::vector<std::pair<SlopeScheme, double>> bases{{SlopeScheme::Press, -c * std::log2(ratio)}};
        if (!pow2) bases.push_back({SlopeScheme::Geometric, -heads * std::log2(ratio)});
        for (const auto& [scheme, b0] : bases) {
            // max_bias as a round number (a quarter at the finest): a scale on a round scheme.
            const double b = std::round(b0 * 4) / 4;
            if (!(b > 0) || b > 64 || std::fabs(b - b0) > 1e-3 * b) continue;
            const auto base = scheme == SlopeScheme::Press ? pressSlopes(heads, b) : geometricSlopes(heads, b);
            const double k = m[0] / base[0];
            if (std::fabs(k - 1) < 1e-6) continue;
            std::vector<double> scaled = base;
            for (auto& x : scaled) x *= k;
            if (!withinIntervals(read, scaled)) continue;
            // A round factor (the layer number, 1/2) is shown as such.
            double shown = k;
            for (const double q : {1.0, 2.0, 4.0, 8.0, 10.0, 100.0})
                if (std::fabs(std::round(k * q) / q - k) <= 1e-6 * k) {
                    shown = std::round(k * q) / q;
                    break;
                }
            SlopeCandidate sc{SlopeScheme::Custom, b, std::move(scaled), {}, "", false, SlopeScheme::Press};
            const std::string name = fmt::format("{} slopes (max_bias {})", schemeName(scheme), b);
            sc.description = fmt::format("{} times {}", name, g6(shown));
            sc.findings.push_back(
                {kScaledBias,
                 fmt::format("Every slope is {} times {}'s: the whole bias is multiplied by c = {} (for example by the "
                             "layer number, a temperature, or an extra scale on the attention logits applied to the "
                             "bias too). Add the bias unscaled, after the logits are scaled.",
                             g6(shown), name, g6(shown))});
            out.push_back(std::move(sc));
            return;
        }
    }

    // 4. The right slopes in another head order (reversed, or permuted).
    {
        std::vector<double> sorted = m;
        std::sort(sorted.begin(), sorted.end());
        const double top = sorted.back();
        for (const double b0 : {-c * std::log2(top), -2 * c * std::log2(top)}) {
            for (const double b : niceValues(b0)) {
                if (!(b > 0)) continue;
                const auto base = pressSlopes(heads, b);
                // Each head takes the nearest press slope; a permutation when all differ.
                std::vector<int> perm(static_cast<std::size_t>(heads));
                std::vector<bool> used(static_cast<std::size_t>(heads), false);
                bool ok = true;
                for (int h = 0; h < heads && ok; ++h) {
                    int bestK = -1;
                    for (int k = 0; k < heads; ++k)
                        if (!used[static_cast<std::size_t>(k)] &&
                            (bestK < 0 ||
                             std::fabs(std::log(base[static_cast<std::size_t>(k)] / m[static_cast<std::size_t>(h)])) <
                                 std::fabs(
                                     std::log(base[static_cast<std::size_t>(bestK)] / m[static_cast<std::size_t>(h)]))))
                            bestK = k;
                    if (bestK < 0)
                        ok = false;
                    else {
                        perm[static_cast<std::size_t>(h)] = bestK;
                        used[static_cast<std::size_t>(bestK)] = true;
                    }
                }
                if (!ok) continue;
                std::vector<double> s;
                bool identity = true, reversed = true;
                for (int h = 0; h < heads; ++h) {
                    s.push_back(base[static_cast<std::size_t>(perm[static_cast<std::size_t>(h)])]);
                    identity = identity && perm[static_cast<std::size_t>(h)] == h;
                    reversed = reversed && perm[static_cast<std::size_t>(h)] == heads - 1 - h;
                }
                if (identity || !withinIntervals(read, s)) continue;
                std::string order;
                for (int h = 0; h < std::min(heads, 16); ++h)
                    order += fmt::format("{}{}", h ? "," : "", perm[static_cast<std::size_t>(h)]);
                if (heads > 16) order += ",...";
                SlopeCandidate sc{SlopeScheme::Custom, b, std::move(s), {}, "", false, SlopeScheme::Press};
                sc.description =
                    fmt::format("press slopes (max_bias {}) in {} head order", b, reversed ? "reversed" : "permuted");
                sc.findings.push_back(
                    {reversed ? kReversedHeads : kPermutedHeads,
                     reversed
                         ? fmt::format("The slopes are press slopes (max_bias {}) in reversed head order: head 0 "
                                       "has the flattest slope and head {} the steepest. Index the slopes by h, not "
                                       "H - 1 - h (a flip, or a descending sort, of the slope vector).",
                                       b, heads - 1)
                         : fmt::format("The slopes are press slopes (max_bias {}) in another head order: head h has "
                                       "press slope number ({}). Do not sort the slopes (the interleaved rule is "
                                       "deliberately unsorted) and index them by head.",
                                       b, order)});
                out.push_back(std::move(sc));
                return;
            }
        }
    }

    // 3. slope-ratio: a geometric sequence s * r^h with another start or ratio (three heads or more).
    if (heads >= 3) {
        const double r = m[1] / m[0];
        std::vector<double> s;
        for (int h = 0; h < heads; ++h) s.push_back(m0 * std::pow(r, h));
        if (r > 0 && r < 1 && withinIntervals(read, s)) {
            const double wantRatio = std::exp2(-8.0 / c);
            SlopeCandidate sc{SlopeScheme::Custom, 8, std::move(s), {}, "", false, SlopeScheme::Press};
            sc.description = fmt::format("geometric slopes starting at {} with ratio {}", g6(m0), g6(r));
            sc.findings.push_back(
                {kSlopeRatio,
                 fmt::format("The slopes form a geometric sequence starting at {} (2^{}) with ratio {} (2^{}); ALiBi's "
                             "start and ratio are both 2^(-8/{}) = {}{}. Compute the start as 2^(-8/n) with n the "
                             "closest power of two to the head count, and the ratio as the start.",
                             g6(m0), g6(std::log2(m0)), g6(r), g6(std::log2(r)), c, g6(wantRatio),
                             pow2 ? "" : " for the first heads (then the interleaved rule)")});
            out.push_back(std::move(sc));
            return;
        }
    }

    // 5. Tensor parallelism: the H heads are tp blocks, each rank's slopes wrong (the rule applied
    // to H / tp, or another rank's slice); or the whole tensor is one rank's slice of a larger set.
    for (const int tp : {2, 4, 8}) {
        if (heads % tp != 0) continue;
        const int per = heads / tp;
        for (const double b : {8.0}) {
            const auto full = pressSlopes(heads, b);
            const auto local = pressSlopes(per, b);
            std::vector<double> s;
            std::vector<int> took;  // -1: the per-rank rule; r: rank r's slice
            for (int k = 0; k < tp; ++k) {
                int chosen = -2;
                const auto fits = [&](const std::vector<double>& v, int from) {
                    for (int x = 0; x < per; ++x) {
                        const auto h = static_cast<std::size_t>(k * per + x);
                        const double y = v[static_cast<std::size_t>(from + x)];
                        if (!(y >= read.lo[h] - 1e-12 * y && y <= read.hi[h] + 1e-12 * y)) return false;
                    }
                    return true;
                };
                if (fits(full, k * per))
                    chosen = k;
                else if (fits(local, 0))
                    chosen = -1;
                else
                    for (int r = 0; r < tp && chosen == -2; ++r)
                        if (fits(full, r * per)) chosen = r;
                if (chosen == -2) break;
                took.push_back(chosen);
                for (int x = 0; x < per; ++x)
                    s.push_back(chosen == -1 ? local[static_cast<std::size_t>(x)]
                                             : full[static_cast<std::size_t>(chosen * per + x)]);
            }
            if (static_cast<int>(took.size()) != tp) continue;
            std::string wrong;
            for (int k = 0; k < tp; ++k) {
                if (took[static_cast<std::size_t>(k)] == k) continue;
                wrong += fmt::format("{}rank {} {}", wrong.empty() ? "" : "; ", k,
                                     took[static_cast<std::size_t>(k)] < 0
                                         ? fmt::format("computes press slopes for its {} heads", per)
                                         : fmt::format("takes rank {}'s slice", took[static_cast<std::size_t>(k)]));
            }
            if (wrong.empty()) continue;  // the correct gathered set (matched as press before)
            SlopeCandidate sc{SlopeScheme::Custom, b, std::move(s), {}, "", false, SlopeScheme::Press};
            sc.description = fmt::format("tensor-parallel slopes (tp {}, {} heads per rank)", tp, per);
            sc.findings.push_back(
                {kTensorParallelSlopes,
                 fmt::format("The {} heads are {} tensor-parallel ranks of {} heads, and their slopes are not the "
                             "ranks' slices of the {}-head set: {}. Compute the slopes for all {} heads and give rank "
                             "r the slice [r * {}, (r + 1) * {}) (as BLOOM's and MPT's tensor-parallel code do).",
                             heads, tp, per, heads, wrong, heads, per, per)});
            out.push_back(std::move(sc));
            return;
        }
    }
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
        out.push_back({SlopeScheme::Linear,
                       8,
                       linearSlopes(heads),
                       {},
                       "linear slopes (0.05 to 0.5)",
                       false,
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

    appendTensorParallelSlice(read, heads, out);

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
                // max_bias 0 makes every slope 1: one slope for all heads, not a scaled scheme.
                if (!(b > 0) && base.scheme != SlopeScheme::Linear) continue;
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

    // The rarer shapes of real ports (issue 24): press blocks off by one, the whole bias scaled,
    // another geometric ratio, heads in another order, tensor-parallel slices.
    appendPortCandidates(read, heads, dtype, out);

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
