// Diagnosis of a user's bias tensor. For every way the shape can be read (hqk, qkh, 1hqk,
// flat, and the qkh-data-in-an-hqk-shape mix-up) and every form of the bias (mode, sign,
// query alignment), per-head slopes are read off the last query row as intervals that the
// dtype's rounding allows, the mask value is read off a masked cell, and the slopes are matched
// against the schemes (and the known buggy variants). Each candidate is checked first on a
// strided sample of cells, then on every cell; the first candidate that reproduces the whole
// tensor is the match. Candidates are tried from the most ordinary to the most unusual, so a
// correct tensor is never reported as a bug.
#include <alibi/model/bias.hpp>
#include <alibi/analysis/diagnose.hpp>
#include <alibi/model/slopes.hpp>

#include "analysis/batch_match.hpp"
#include "analysis/profile_match.hpp"
#include "base/parallel.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>

namespace alibi {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kSampleCells = 4096;
constexpr double kRelTolerance = 1e-6;  // f32 / f64

// ---------------------------------------------------------------------------
// Tolerance

// Spacing of the dtype's representable values at magnitude |x| (f16 / bf16 only).
double ulpOf(DType dtype, double x) {
    const int mant = dtype == DType::F16 ? 10 : 7;
    const int minExp = dtype == DType::F16 ? -14 : -126;
    int e2 = 0;
    (void)std::frexp(std::fabs(x), &e2);
    const int e = x == 0 ? minExp : std::max(e2 - 1, minExp);
    return std::ldexp(1.0, e - mant);
}

// How far a stored value may sit from the exact value. `scale` (a slope) keeps the tolerance
// of a zero entry from collapsing to nothing when another library computes m*i - m*j.
double tolerance(DType dtype, double exact, double scale) {
    if (dtype == DType::F32 || dtype == DType::F64) return kRelTolerance * std::max(std::fabs(exact), scale);
    // Half an ulp, with a hair of slack for slopes that were themselves read off the tensor.
    return 0.5 * ulpOf(dtype, exact) * (1 + 1e-3);
}

bool agrees(double stored, double exact, DType dtype, double scale) {
    if (stored == exact) return true;  // also equal infinities
    if (std::isnan(stored) || std::isnan(exact)) return false;
    if (stored == roundTo(dtype, exact)) return true;  // e.g. -1e9 that overflowed f16 to -inf
    if (!std::isfinite(stored) || !std::isfinite(exact)) return false;
    return std::fabs(stored - exact) <= tolerance(dtype, exact, scale);
}

// |stored - expected| with the convention that the same infinity is no error.
double absError(double stored, double expected) {
    if (stored == expected) return 0;
    if (std::isnan(stored) || std::isnan(expected)) return kInf;
    return std::fabs(stored - expected);
}

// ---------------------------------------------------------------------------
// Candidates

// One way to read the tensor's shape and memory.
struct Reading {
    Layout declared = Layout::Hqk;  // what the shape says (reported)
    Layout memory = Layout::Hqk;    // the order the data is in (Hqk or Qkh)
    std::int64_t heads = 1, queries = 1, keys = 1;
    bool qkhAsHqk = false;
    bool noHeadAxis = false;  // a 2-D (Q, K) tensor
};

// Everything about a candidate but its slopes and mask.
struct Form {
    BiasMode mode = BiasMode::Causal;
    double sign = 1;          // -1: the sign-flipped bug
    std::int64_t offset = 0;  // query i sits at p_i = i + offset (K - Q is right; 0 is top-left)
    bool topLeft = false;
};

struct SlopeCandidate {
    SlopeScheme scheme = SlopeScheme::Custom;
    double maxBias = 8;
    std::vector<double> slopes;
    std::vector<Finding> findings;
    std::string description;  // for the summary
    // The slopes were rounded to the tensor's dtype before multiplying (PyTorch arithmetic in
    // f16/bf16): the scheme is right, but buildBias (which multiplies in double) differs by an ulp.
    bool roundedFirst = false;
};

struct Candidate {
    Reading reading;
    Form form;
    SlopeCandidate slopes;
    MaskValue mask;
    bool maskSeen = false;  // false: the tensor has no masked entry, so any mask reproduces it
    std::vector<double> inferred;
    std::uint64_t sampleMismatches = 0;
};

// Reads the tensor under one Reading.
class View {
public:
    View(const Tensor& tensor, const Reading& r) : m_t(tensor), m_r(r) {}

    [[nodiscard]] std::uint64_t index(std::int64_t h, std::int64_t i, std::int64_t j) const {
        return layoutIndex(m_r.memory, m_r.heads, m_r.queries, m_r.keys, h, i, j);
    }
    [[nodiscard]] double at(std::int64_t h, std::int64_t i, std::int64_t j) const { return m_t.at(index(h, i, j)); }
    void decode(std::uint64_t n, std::int64_t& h, std::int64_t& i, std::int64_t& j) const {
        const auto H = static_cast<std::uint64_t>(m_r.heads), Q = static_cast<std::uint64_t>(m_r.queries),
                   K = static_cast<std::uint64_t>(m_r.keys);
        if (m_r.memory == Layout::Qkh) {
            h = static_cast<std::int64_t>(n % H);
            const std::uint64_t r = n / H;
            j = static_cast<std::int64_t>(r % K);
            i = static_cast<std::int64_t>(r / K);
        } else {
            j = static_cast<std::int64_t>(n % K);
            const std::uint64_t r = n / K;
            i = static_cast<std::int64_t>(r % Q);
            h = static_cast<std::int64_t>(r / Q);
        }
    }
    [[nodiscard]] const Tensor& tensor() const { return m_t; }
    [[nodiscard]] const Reading& reading() const { return m_r; }

private:
    const Tensor& m_t;
    Reading m_r;
};

// The exact (unrounded) value a form gives cell (i, j) for slope m; nullopt when masked.
std::optional<double> formCell(const Form& f, double m, std::int64_t i, std::int64_t j, std::int64_t keys) {
    const auto v = biasCell(f.mode, m, i + f.offset, j, keys);
    if (!v) return std::nullopt;
    return f.sign * *v;
}

double expectedExact(const Candidate& c, DType dtype, std::int64_t h, std::int64_t i, std::int64_t j) {
    const auto v = formCell(c.form, c.slopes.slopes[static_cast<std::size_t>(h)], i, j, c.reading.keys);
    return v ? *v : maskDouble(c.mask, dtype);
}

// ---------------------------------------------------------------------------
// Reading slopes and the mask off the tensor

struct SlopeRead {
    std::vector<double> lo, hi, estimate;
    bool valid = true;  // every head has a positive, finite, self-consistent slope
    bool free = false;  // the tensor holds no cell that depends on the slope
};

SlopeRead readSlopes(const View& view, const Form& form) {
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
            const double v = view.at(static_cast<std::int64_t>(h), i, j);
            if (!std::isfinite(v)) {
                out.valid = false;
                continue;
            }
            const double m = v / *coef;
            const double slack = tolerance(dtype, v, 0) / std::fabs(*coef);
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

std::string slopeList(const std::vector<double>& slopes) {
    std::string s;
    const std::size_t shown = std::min<std::size_t>(slopes.size(), 4);
    for (std::size_t h = 0; h < shown; ++h) s += (h ? ", " : "") + fmt::format("{:.6g}", slopes[h]);
    if (slopes.size() > shown) s += ", ...";
    return s;
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
        out.push_back({SlopeScheme::Linear, 8, linearSlopes(heads), {}, "linear slopes (0.05 to 0.5)"});

    if (tryScheme(SlopeScheme::Press, -c * std::log2(m[0]), [&](double b) { return pressSlopes(heads, b); }))
        named(out.back(), fmt::format("press slopes (max_bias {})", out.back().maxBias));

    if (!pow2 && tryScheme(SlopeScheme::Geometric, -heads * std::log2(m[0]),
                           [&](double b) { return geometricSlopes(heads, b); })) {
        auto& g = out.back();
        named(g, fmt::format("geometric slopes (max_bias {})", g.maxBias));
        g.findings.push_back(
            {kNaiveSlopesNonPow2,
             fmt::format(
                 "The slopes are 2^(-B(h+1)/H) for all {} heads (geometric, max_bias {}). {} is not a power of "
                 "two: the paper's reference code, BLOOM and MPT use the press rule instead (the first {} slopes "
                 "of the {}-head list, then every other slope of the {}-head list). Use --scheme press unless "
                 "you mean to reproduce a geometric implementation.",
                 heads, g.maxBias, heads, c, c, 2 * c)});
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
            o.findings.push_back(
                {kSlopeOffByOne,
                 fmt::format(
                     "The slope exponent is off by one: head h has 2^(-{} h/{}) instead of 2^(-{} (h+1)/{}), so "
                     "head 0 has slope 1.0 and every head is one step steeper than ALiBi's. Compute the slopes "
                     "from h + 1 (or use --scheme press).",
                     o.maxBias, n, o.maxBias, n)});
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
                               fmt::format("{} / sqrt({})", name, d)});
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

// The mask value a masked cell holds, classified as the spellings in use.
struct MaskRead {
    MaskValue mask;
    bool seen = false;
    bool valid = true;
};

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

// ---------------------------------------------------------------------------
// Checking a candidate

// Stops counting once past `limit`: such a candidate can no longer be the best.
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
        const double slope = c.slopes.slopes[static_cast<std::size_t>(h)];
        if (!agrees(view.tensor().at(idx), expectedExact(c, dtype, h, i, j), dtype, slope) && ++bad > limit) break;
    }
    return bad;
}

struct FullCheck {
    bool ok = true;
    double maxAbsError = 0;
    std::optional<std::uint64_t> firstMismatch;
    double actual = 0, expected = 0;
};

// Every cell, in blocks of whole memory rows on the core's threads. With stopEarly the scan
// ends soon after the first disagreement; the reported first mismatch is always the one with
// the lowest memory index.
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
                local.maxAbsError = std::max(local.maxAbsError, absError(stored, rounded));
                if (agrees(stored, exact, dtype, c.slopes.slopes[static_cast<std::size_t>(h)])) continue;
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

// ---------------------------------------------------------------------------
// Readings of a shape

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

// ---------------------------------------------------------------------------
// Findings and words

std::vector<Finding> formFindings(const Candidate& c, DType dtype) {
    std::vector<Finding> out;
    const Reading& r = c.reading;
    if (r.qkhAsHqk)
        out.push_back({kLayoutQkhAsHqk,
                       fmt::format("The shape says (H, Q, K) = ({}, {}, {}), but the data is in (Q, K, H) order: a "
                                   "[seq, seq, heads] tensor was reshaped instead of transposed. Use "
                                   "x.permute(2, 0, 1) (or np.transpose(x, (2, 0, 1))) instead of reshape/view, or "
                                   "save it with --layout qkh.",
                                   r.heads, r.queries, r.keys)});
    if (r.noHeadAxis)
        out.push_back({kSingleSlopeAllHeads,
                       fmt::format("The tensor is 2-D ({} x {}) with no head axis: every head would share one slope. "
                                   "ALiBi gives each head its own slope; build an (H, Q, K) tensor.",
                                   r.queries, r.keys)});
    if (c.form.sign < 0)
        out.push_back({kSignFlipped,
                       "The allowed entries are +m (i - j) instead of -m (i - j): the sign is flipped, so attention "
                       "grows with distance and heads attend to the far past. Negate the bias (or the slopes)."});
    if (c.form.topLeft)
        out.push_back(
            {kTopLeftAligned,
             fmt::format("Query i sits at position i (top-left alignment) although there are {} queries and {} "
                         "keys. With a KV cache the last query faces the last key: query i is at i + K - Q = "
                         "i + {}, as in FlashAttention, MPT and llama.cpp.",
                         r.queries, r.keys, r.keys - r.queries)});
    if (dtype == DType::F16 && c.maskSeen && c.mask.kind == MaskValue::Kind::NegInf)
        out.push_back(
            {kFp16MaskOverflow,
             "The masked entries are -inf in an f16 tensor: a -1e9 mask overflows f16 (largest finite value "
             "65504) and becomes -inf. Use --mask min (-65504) for a finite mask, or --mask -inf deliberately; "
             "with -inf a fully masked row (for example a query before every key, or padding) gives NaN after "
             "softmax unless it is handled."});
    if (c.reading.heads >= 2) {
        bool same = true;
        for (const double s : c.slopes.slopes) same = same && s == c.slopes.slopes[0];
        if (same)
            out.push_back(
                {kSingleSlopeAllHeads,
                 fmt::format("Every one of the {} heads has the same slope {:.6g}: the per-head slopes were not "
                             "broadcast over the head axis (or max_bias is 0). ALiBi needs a different slope "
                             "per head, from steep (local) to flat (global).",
                             c.reading.heads, c.slopes.slopes[0])});
    }
    return out;
}

std::string indexString(const std::vector<std::int64_t>& index) {
    std::string s = "(";
    for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
    return s + (index.size() == 1 ? ",)" : ")");
}

std::vector<std::int64_t> unravel(const Shape& shape, std::uint64_t flat) {
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        index[k] = static_cast<std::int64_t>(flat % static_cast<std::uint64_t>(shape[k]));
        flat /= static_cast<std::uint64_t>(shape[k]);
    }
    return index;
}

std::string describeCandidate(const Candidate& c) {
    std::string s = c.slopes.description.empty() ? fmt::format("custom slopes ({})", slopeList(c.slopes.slopes))
                                                 : c.slopes.description;
    s += fmt::format(", {} mode", modeName(c.form.mode));
    s += c.maskSeen ? fmt::format(", mask {}", maskName(c.mask)) : std::string(", no masked entries");
    return s;
}

}  // namespace

// ---------------------------------------------------------------------------
// Public API

Result<Diagnosis> diagnose(const Tensor& tensor) {
    if (tensor.size() == 0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot diagnose an empty tensor of shape {}", shapeString(tensor.shape())));
    // A bare (H,) vector of positive numbers is a slope vector, not a flat bias of H cells.
    if (auto slopes = detail::diagnoseSlopeVector(tensor)) return std::move(*slopes);
    // A (B, H, T, T) batch with B > 1 (padding, documents, window, position rule).
    if (auto batch = detail::diagnoseBatch(tensor)) return std::move(*batch);
    Result<void> shapeError;
    const auto reads = readings(tensor.shape(), shapeError);
    if (!shapeError) return std::unexpected(shapeError.error());
    if (reads.empty())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot diagnose a tensor of shape {}: heads must be 1 to {} and lengths 1 to {}",
                                shapeString(tensor.shape()), kMaxHeads, kMaxLength));

    const DType dtype = tensor.dtype();
    std::optional<Candidate> match, best;
    FullCheck matchCheck;
    // Candidates come from the most ordinary to the most unusual; the first that reproduces
    // every cell wins, so a correct tensor is never reported as a bug.
    for (const Reading& reading : reads) {
        if (match) break;
        const View view(tensor, reading);
        std::vector<Form> forms;
        std::vector<std::int64_t> offsets{reading.keys - reading.queries};
        if (reading.queries < reading.keys) offsets.push_back(0);
        for (const std::int64_t offset : offsets)
            for (const double sign : {1.0, -1.0})
                for (const BiasMode mode :
                     {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
                    forms.push_back({mode, sign, offset, offset != reading.keys - reading.queries});
        for (const Form& form : forms) {
            if (match) break;
            const SlopeRead slopes = readSlopes(view, form);
            const MaskRead mask = readMask(view, form);
            for (auto& sc : slopeCandidates(slopes, static_cast<int>(reading.heads), dtype)) {
                Candidate c;
                c.reading = reading;
                c.form = form;
                c.slopes = std::move(sc);
                c.mask = mask.mask;
                c.maskSeen = mask.seen;
                c.inferred = slopes.estimate;
                c.sampleMismatches = sampleMismatches(view, c, best ? best->sampleMismatches : kSampleCells);
                const bool plausible = mask.valid && (slopes.valid || slopes.free);
                if (plausible && c.sampleMismatches == 0) {
                    FullCheck check = fullCheck(view, c, true);
                    if (check.ok) {
                        match = std::move(c);
                        matchCheck = check;  // a passing check scanned every cell
                        break;
                    }
                }
                if (!best || c.sampleMismatches < best->sampleMismatches) best = std::move(c);
            }
        }
    }

    const Candidate& chosen = match ? *match : *best;
    const View view(tensor, chosen.reading);
    const FullCheck check = match ? matchCheck : fullCheck(view, chosen, false);

    Diagnosis d;
    d.layout = chosen.reading.declared;
    d.heads = chosen.reading.heads;
    d.queries = chosen.reading.queries;
    d.keys = chosen.reading.keys;
    d.dtype = dtype;
    d.maxAbsError = check.maxAbsError;
    d.inferredSlopes = chosen.inferred;
    d.bestSignFlipped = chosen.form.sign < 0;
    d.bestTopLeft = chosen.form.topLeft;

    BiasParams params;
    params.slopes.heads = static_cast<int>(chosen.reading.heads);
    params.slopes.scheme = chosen.slopes.scheme;
    params.slopes.maxBias = chosen.slopes.maxBias;
    if (chosen.slopes.scheme == SlopeScheme::Custom || chosen.slopes.roundedFirst) {
        params.slopes.scheme = SlopeScheme::Custom;
        params.slopes.custom = chosen.slopes.slopes;
    }
    params.queries = chosen.reading.queries;
    params.keys = chosen.reading.keys;
    params.mode = chosen.form.mode;
    params.mask = chosen.mask;
    params.layout = chosen.reading.qkhAsHqk ? Layout::Qkh : chosen.reading.declared;
    params.dtype = dtype;
    d.bestParams = params;

    const std::string head = fmt::format("{} head{}, {} x {}, layout {}, {}.", d.heads, d.heads == 1 ? "" : "s",
                                         d.queries, d.keys, layoutName(d.layout), dtypeName(dtype));
    if (match) {
        d.match = DiagnosisMatch{chosen.slopes.scheme, chosen.slopes.maxBias, chosen.form.mode, chosen.mask,
                                 chosen.maskSeen, chosen.slopes.slopes};
        d.findings = chosen.slopes.findings;
        for (auto& f : formFindings(chosen, dtype)) {
            const bool dup =
                std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& g) { return g.code == f.code; });
            if (!dup) d.findings.push_back(std::move(f));
        }
        // Whose float arithmetic: only a plain match (no sign or alignment bug) can be rebuilt.
        if (!d.bestSignFlipped && !d.bestTopLeft && !chosen.reading.qkhAsHqk) {
            BiasParams rebuilt = params;
            rebuilt.slopes.scheme = chosen.slopes.scheme;
            rebuilt.slopes.custom = chosen.slopes.scheme == SlopeScheme::Custom ? chosen.slopes.slopes : std::vector<double>{};
            d.arithDistances = detail::compareProfiles(tensor, rebuilt);
            for (const ArithDistance& a : d.arithDistances)
                if (a.identical) {
                    d.arith = a.arith;
                    d.maxAbsError = 0;  // the tensor is exactly that profile's build
                    break;
                }
        }
        d.summary = fmt::format("{} Matches {}, max abs error {:.6g}.", head, describeCandidate(chosen), d.maxAbsError);
        if (!d.arithDistances.empty()) d.summary += " " + detail::describeProfiles(d.arithDistances);
        if (!d.findings.empty()) {
            std::string codes;
            for (const auto& f : d.findings) codes += (codes.empty() ? "" : ", ") + f.code;
            d.summary += fmt::format(" Known bug{}: {}.", d.findings.size() == 1 ? "" : "s", codes);
        }
        return d;
    }

    // No match. Findings about the form are only worth saying when the best candidate is close.
    const std::uint64_t samples = std::min<std::uint64_t>(tensor.size(), kSampleCells);
    if (chosen.sampleMismatches * 20 <= samples) d.findings = formFindings(chosen, dtype);
    if (check.firstMismatch) {
        d.firstMismatchIndex = unravel(tensor.shape(), *check.firstMismatch);
        d.firstMismatchActual = check.actual;
        d.firstMismatchExpected = check.expected;
    }
    d.summary = fmt::format(
        "{} No combination of scheme, max_bias, mode, mask and dtype reproduces it. Closest: {}, "
        "max abs error {:.6g}",
        head, describeCandidate(chosen), d.maxAbsError);
    if (d.firstMismatchIndex)
        d.summary += fmt::format("; the first differing entry is {} = {:.9g}, expected {:.9g}",
                                 indexString(*d.firstMismatchIndex), d.firstMismatchActual, d.firstMismatchExpected);
    d.summary += ".";
    return d;
}

Result<Tensor> diagnosisError(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    if (!diagnosis.bestParams)
        return fail(ErrorCode::InvalidArgument, "diagnosisError: the diagnosis has no candidate to compare against");
    const BiasParams& p = *diagnosis.bestParams;
    const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
    if (tensor.size() != static_cast<std::uint64_t>(H) * static_cast<std::uint64_t>(Q) * static_cast<std::uint64_t>(K))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("diagnosisError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                                tensor.size(), H, Q, K));
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto out = Tensor::allocate({H, Q, K}, DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    Form form;
    form.mode = p.mode;
    form.sign = diagnosis.bestSignFlipped ? -1.0 : 1.0;
    form.topLeft = diagnosis.bestTopLeft;
    form.offset = diagnosis.bestTopLeft ? 0 : K - Q;
    const DType dtype = tensor.dtype();
    const double mask = maskDouble(p.mask, dtype);
    auto dst = out->as<float>();
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto v = formCell(form, (*slopes)[static_cast<std::size_t>(h)], i, j, K);
                const double expected = roundTo(dtype, v ? *v : mask);
                const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
                dst[static_cast<std::size_t>((h * Q + i) * K + j)] = static_cast<float>(absError(stored, expected));
            }
    return out;
}

}  // namespace alibi
