// Framework arithmetic profiles (see arith.hpp and docs/ARITHMETIC.md). Each profile repeats the
// framework's own float operations in the framework's order: which values are Python doubles,
// where a float32 rounding happens, which pow runs. The exact profile instead carries every
// slope as a double-double so that slope * n is rounded once, from the exact product.
#include <alibi/model/arith.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

// SLEEF 3.5 (Debian's libsleef-dev) exports its scalar 1-ulp powf in two builds. The header
// declares the FMA one only when compiling with -mfma, so both are declared here; the FMA build
// gives the same bits as the AVX2 vector kernel PyTorch runs (checked over every BLOOM and
// llm-foundry exponent), the plain one differs in rare cases.
extern "C" {
float Sleef_powf1_u10purec(float, float);
#if defined(__x86_64__)
float Sleef_powf1_u10purecfma(float, float);
#endif
}

namespace alibi {
namespace {

// ---------------------------------------------------------------------------
// Profiles

constexpr std::array kAriths{Arith::Exact,      Arith::HfBloom, Arith::HfFalcon,
                             Arith::LlmFoundry, Arith::Fairseq, Arith::Ggml};

using PowFn = float (*)(float, float);

PowFn sleefPow() {
#if defined(__x86_64__)
    static const PowFn picked = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma") ? &Sleef_powf1_u10purecfma : &Sleef_powf1_u10purec;
    }();
    return picked;
#else
    return &Sleef_powf1_u10purec;
#endif
}

// The C library's powf, never a compiler builtin that could be folded differently.
float libmPowf(float base, float exponent) {
    return ::powf(base, exponent);
}

float toF32(double x) {
    return static_cast<float>(x);
}

// Python: 2 ** (-(2 ** -(math.log2(n) - 3))), the start of BLOOM's and fairseq's slopes, in
// double with the C library's pow and log2, exactly as CPython evaluates it.
double pythonStart(double n) {
    return std::pow(2.0, -std::pow(2.0, -(std::log2(n) - 3.0)));
}

// fairseq get_slopes_power_of_2: [start * ratio**i for i in range(n)] in Python doubles.
std::vector<double> fairseqPowerOfTwo(int n) {
    const double start = pythonStart(n);
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(start * (i == 0 ? 1.0 : std::pow(start, static_cast<double>(i))));
    return out;
}

std::vector<double> fairseqSlopes(int heads) {
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<double> doubles = fairseqPowerOfTwo(c);
    if (c != heads) {
        // get_slopes(2c)[0::2][:n - c]; 2c is a power of two, so the recursion is one level.
        const std::vector<double> twice = fairseqPowerOfTwo(2 * c);
        for (int k = 0; k < heads - c; ++k) doubles.push_back(twice[static_cast<std::size_t>(2 * k)]);
    }
    std::vector<double> out;  // torch.Tensor(list): one float32 rounding of each double
    for (const double m : doubles) out.push_back(toF32(m));
    return out;
}

// HF build_alibi_tensor (BLOOM and Falcon share it up to the product).
std::vector<double> hfSlopes(int heads) {
    const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
    std::vector<float> powers(static_cast<std::size_t>(c));
    for (int k = 0; k < c; ++k) powers[static_cast<std::size_t>(k)] = static_cast<float>(k + 1);
    std::vector<float> slopes = torchPow(toF32(pythonStart(c)), powers);
    if (c != heads) {
        const int remaining = std::min(c, heads - c);
        std::vector<float> odd(static_cast<std::size_t>(remaining));
        for (int k = 0; k < remaining; ++k) odd[static_cast<std::size_t>(k)] = static_cast<float>(2 * k + 1);
        const std::vector<float> extra = torchPow(toF32(pythonStart(2.0 * c)), odd);
        slopes.insert(slopes.end(), extra.begin(), extra.end());
    }
    return {slopes.begin(), slopes.end()};
}

// llm-foundry gen_slopes.
std::vector<double> llmFoundrySlopes(int heads, double maxBias) {
    const int n = static_cast<int>(std::bit_ceil(static_cast<unsigned>(heads)));
    const float step = toF32(maxBias / n);  // m.mul(alibi_bias_max / _n_heads): the scalar as float32
    std::vector<float> m(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) m[static_cast<std::size_t>(k)] = static_cast<float>(k + 1) * step;
    const std::vector<float> powers = torchPow(2.0f, m);
    std::vector<float> slopes;
    for (const float p : powers) slopes.push_back(1.0f / p);  // 1.0 / t is t.reciprocal() * 1.0
    if (n != heads) {
        std::vector<float> mixed;
        for (std::size_t k = 1; k < slopes.size(); k += 2) mixed.push_back(slopes[k]);
        for (std::size_t k = 0; k < slopes.size(); k += 2) mixed.push_back(slopes[k]);
        mixed.resize(static_cast<std::size_t>(heads));
        slopes = std::move(mixed);
    }
    return {slopes.begin(), slopes.end()};
}

// ggml soft_max with max_bias: float32 throughout, the C library's powf.
std::vector<double> ggmlSlopes(int heads, double maxBias) {
    const auto n2 = static_cast<std::uint32_t>(std::bit_floor(static_cast<unsigned>(heads)));
    const float b = toF32(maxBias);
    const float m0 = libmPowf(2.0f, -b / static_cast<float>(n2));
    const float m1 = libmPowf(2.0f, -(b / 2.0f) / static_cast<float>(n2));
    std::vector<double> out;
    for (std::uint32_t h = 0; h < static_cast<std::uint32_t>(heads); ++h) {
        const float slope = b > 0.0f ? (h < n2 ? libmPowf(m0, static_cast<float>(h + 1))
                                               : libmPowf(m1, static_cast<float>(2 * (h - n2) + 1)))
                                     : 1.0f;
        out.push_back(slope);
    }
    return out;
}

// ---------------------------------------------------------------------------
// Double-double arithmetic for the exact slopes: about 100 bits, enough that slope * n
// (n < 2^21) rounds as the exact product does.

struct DD {
    double hi = 0, lo = 0;
};

DD twoSum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
DD quickTwoSum(double a, double b) {
    const double s = a + b;
    return {s, b - (s - a)};
}
DD add(DD a, DD b) {
    DD s = twoSum(a.hi, b.hi);
    s.lo += a.lo + b.lo;
    return quickTwoSum(s.hi, s.lo);
}
DD mul(DD a, DD b) {
    const double p = a.hi * b.hi;
    const double e = std::fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
    return quickTwoSum(p, e);
}
DD mul(DD a, double b) {
    return mul(a, DD{b, 0});
}
DD div(DD a, double b) {
    const double q1 = a.hi / b;
    const double r = std::fma(-q1, b, a.hi) + a.lo;  // exact remainder of the high part, plus the low
    return quickTwoSum(q1, r / b);
}

// 2^x for x = num / den (num given as a double-double), as a double-double.
DD exp2dd(DD num, double den) {
    const DD x = div(num, den);
    const double whole = std::nearbyint(x.hi);
    const DD frac = add(x, DD{-whole, 0});  // |frac| <= 1/2
    constexpr DD kLn2{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
    // exp(y) = exp(y / 16)^16: the scaled argument is below 0.022, so 16 Taylor terms reach
    // 2^-110 and the four squarings lose about 4 bits.
    const DD y = mul(mul(frac, kLn2), 1.0 / 16.0);
    DD term{1, 0}, sum{1, 0};
    for (int k = 1; k <= 16; ++k) {
        term = div(mul(term, y), k);
        sum = add(sum, term);
    }
    for (int k = 0; k < 4; ++k) sum = mul(sum, sum);
    return {std::ldexp(sum.hi, static_cast<int>(whole)), std::ldexp(sum.lo, static_cast<int>(whole))};
}

// 2^(-B * e / den) for a whole e, the exponent carried exactly into the division.
double exactTail(double hi, double maxBias, int e, double den) {
    const double p = -maxBias * e;
    const DD num{p, std::fma(-maxBias, static_cast<double>(e), -p)};
    const DD m = exp2dd(num, den);
    return (m.hi - hi) + m.lo;
}

// Rounds s + r (|r| <= ulp(s)/2, s > 0) to odd at double precision: truncation, then the last
// bit set when anything was cut. Rounding that once more into a format of at most 51 bits gives
// the correct rounding of s + r itself (the round-to-odd property).
double roundToOdd(double s, double r) {
    if (r == 0) return s;
    double t = r > 0 ? s : std::nextafter(s, 0.0);
    if ((std::bit_cast<std::uint64_t>(t) & 1U) == 0) t = std::nextafter(t, std::numeric_limits<double>::infinity());
    return t;
}

double exactProduct(DType dtype, double hi, double lo, std::int64_t n) {
    const double a = std::fabs(static_cast<double>(n));
    const double p = hi * a;
    const double e = std::fma(hi, a, -p);  // p + e == hi * a exactly
    const double t = e + lo * a;
    const double s = p + t;
    const double r = t - (s - p);  // s + r == p + t exactly (|p| >= |t|)
    const double magnitude = dtype == DType::F64 ? s : roundTo(dtype, roundToOdd(s, r));
    return n < 0 ? -magnitude : magnitude;
}

// The framework's float32 value of the product, then its `.to(dtype)`.
double castFrom32(DType dtype, float v) {
    if (dtype == DType::F16 || dtype == DType::BF16) return roundTo(dtype, v);
    return v;
}

}  // namespace

std::span<const Arith> allAriths() {
    return kAriths;
}

std::vector<float> torchPow(float base, std::span<const float> exponents) {
    const std::size_t vectorised = exponents.size() / 16 * 16;
    const PowFn sleef = sleefPow();
    std::vector<float> out(exponents.size());
    for (std::size_t i = 0; i < exponents.size(); ++i)
        out[i] = i < vectorised ? sleef(base, exponents[i]) : libmPowf(base, exponents[i]);
    return out;
}

std::vector<float> torchPow(std::span<const float> bases, float exponent) {
    const std::size_t vectorised = bases.size() / 16 * 16;
    const PowFn sleef = sleefPow();
    std::vector<float> out(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i)
        out[i] = i < vectorised ? sleef(bases[i], exponent) : libmPowf(bases[i], exponent);
    return out;
}

Result<std::vector<double>> frameworkSlopes(Arith arith, int heads, double maxBias) {
    const bool fixedEight = arith == Arith::HfBloom || arith == Arith::HfFalcon || arith == Arith::Fairseq;
    if (fixedEight && maxBias != 8.0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--arith {} computes slopes with max_bias 8 written into the code; --max-bias {} "
                                "has no {} equivalent (use --arith exact, llm-foundry or ggml)",
                                arithName(arith), maxBias, arithName(arith)));
    switch (arith) {
        case Arith::Exact:
            return pressSlopes(heads, maxBias);
        case Arith::HfBloom:
        case Arith::HfFalcon:
            return hfSlopes(heads);
        case Arith::Fairseq:
            return fairseqSlopes(heads);
        case Arith::LlmFoundry:
            return llmFoundrySlopes(heads, maxBias);
        case Arith::Ggml:
            return ggmlSlopes(heads, maxBias);
    }
    return pressSlopes(heads, maxBias);
}

std::vector<double> exactSlopeTails(const SlopeParams& params) {
    std::vector<double> tails(static_cast<std::size_t>(std::max(params.heads, 0)), 0.0);
    if (params.arith != Arith::Exact) return tails;
    const auto slopes = computeSlopes(params);
    if (!slopes) return tails;
    const int heads = params.heads;
    const double b = params.maxBias;
    if (params.scheme == SlopeScheme::Geometric) {
        for (int h = 0; h < heads; ++h) tails[h] = exactTail((*slopes)[h], b, h + 1, heads);
    } else if (params.scheme == SlopeScheme::Press) {
        const int c = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
        for (int h = 0; h < heads; ++h)
            tails[h] =
                h < c ? exactTail((*slopes)[h], b, h + 1, c) : exactTail((*slopes)[h], b, 2 * (h - c) + 1, 2.0 * c);
    }
    return tails;
}

double arithProduct(Arith arith, DType dtype, double slope, double slopeLo, std::int64_t n) {
    if (n == 0) return 0.0;  // +0.0: an integer zero times a positive slope, in every framework
    switch (arith) {
        case Arith::Exact:
            return exactProduct(dtype, slope, slopeLo, n);
        case Arith::HfFalcon: {
            // slopes.bfloat16() * positions: both operands become bfloat16, the product is rounded
            // to bfloat16 (its float product is exact), then .to(dtype).
            const double s = roundTo(DType::BF16, slope);
            const double p = roundTo(DType::BF16, static_cast<double>(n));
            const double v = roundTo(DType::BF16, s * p);
            return dtype == DType::F16 ? roundTo(DType::F16, v) : v;
        }
        case Arith::HfBloom:
        case Arith::LlmFoundry:
        case Arith::Fairseq:
        case Arith::Ggml:
            break;
    }
    // float32 slope times the integer converted to float32 (exact below 2^24), one rounding.
    return castFrom32(dtype, static_cast<float>(slope) * static_cast<float>(n));
}

}  // namespace alibi
