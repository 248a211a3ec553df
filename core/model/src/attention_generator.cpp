// The counter-based Gaussian generator of attention.hpp (SplitMix64 uniforms, Box-Muller
// normals): the documented recipe that gives the same numbers on every platform, in any order.
//
// Recipe 2 evaluates its logarithm, sine and cosine with the fixed polynomials below, one IEEE
// double operation per step, so the AVX-512 and AVX2 loops and the scalar loop give the same
// bits, and so does any other x86-64 (or any IEEE machine). This file is compiled with
// -ffp-contract=off (core/CMakeLists.txt): a fused multiply-add would round differently.
// Recipe 1 (the C library's log, cos and sin) stays for sessions written before recipe 2.
#include <alibi/model/attention.hpp>

#include <alibi/model/detail/attention_detail.hpp>

#include <bit>
#include <cmath>
#include <numbers>
#include <type_traits>
#include <utility>

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics seed their results with _mm512_undefined_*(), which trips
// -Wuninitialized inside the header itself (GCC bug 105593); nothing here reads those values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // clang has no such warning (and warns about the unknown name)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop
#define ALIBI_GENERATOR_X86 1
#endif

namespace alibi {

std::uint64_t splitMix64(std::uint64_t x) {
    std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

namespace {

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kMix1 = 0xBF58476D1CE4E5B9ULL;
constexpr std::uint64_t kMix2 = 0x94D049BB133111EBULL;

std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream) {
    return splitMix64(splitMix64(seed) + stream);
}

double uniformFromBits(std::uint64_t bits) {
    // 0 would make log(u) infinite; it happens once in 2^53 draws.
    return bits == 0 ? 0x1p-54 : static_cast<double>(bits) * 0x1p-53;
}

double uniformFromKey(std::uint64_t key, std::uint64_t index) {
    return uniformFromBits(splitMix64(key + index) >> 11);
}

// ---------------------------------------------------------------------------
// Recipe 1: the C library's functions.

std::pair<double, double> normalPairLibm(std::uint64_t key, std::uint64_t n) {
    const double u1 = uniformFromKey(key, 2 * n);
    const double u2 = uniformFromKey(key, 2 * n + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 2.0 * std::numbers::pi * u2;
    return {r * std::cos(t), r * std::sin(t)};
}

// ---------------------------------------------------------------------------
// Recipe 2: the generator's own polynomials (Taylor series, rounded to the nearest double;
// their truncation errors are below 2^-56 on the reduced ranges).

// log(m) = 2 atanh(s), s = (m - 1) / (m + 1): 2/(2k+1) for k = 0..10, |s| <= 0.1716.
constexpr double kLog[11] = {0x1.0000000000000p+1, 0x1.5555555555555p-1, 0x1.999999999999ap-2, 0x1.2492492492492p-2,
                             0x1.c71c71c71c71cp-3, 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3, 0x1.1111111111111p-3,
                             0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4, 0x1.8618618618618p-4};
// ln 2 in two parts: the high part has 21 significant bits, so e * kLn2Hi is exact.
constexpr double kLn2Hi = 0x1.62e42p-1;
constexpr double kLn2Lo = 0x1.fdf473de6af28p-22;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;
// sin((pi/2) f) / f: (-1)^k (pi/2)^(2k+1) / (2k+1)! for k = 0..8, |f| <= 1/2.
constexpr double kSin[9] = {0x1.921fb54442d18p+0,  -0x1.4abbce625be53p-1,  0x1.466bc6775aae2p-4,
                            -0x1.32d2cce62bd86p-8, 0x1.50783487ee782p-13,  -0x1.e3074fde8871fp-19,
                            0x1.e8f434d018d63p-25, -0x1.6fadb9f155744p-31, 0x1.aaec32af93359p-38};
// cos((pi/2) f): (-1)^k (pi/2)^(2k) / (2k)! for k = 0..9.
constexpr double kCos[10] = {0x1.0000000000000p+0,  -0x1.3bd3cc9be45dep+0,  0x1.03c1f081b5ac4p-2,
                             -0x1.55d3c7e3cbffap-6, 0x1.e1f506891babbp-11,  -0x1.a6d1f2a204a8cp-16,
                             0x1.f9d38a3763cc3p-22, -0x1.b6e24f44b128fp-28, 0x1.20c62c2f2d7f5p-34,
                             -0x1.2a0c591af8314p-41};

constexpr std::uint64_t kHalfTurnBits = std::uint64_t{1} << 50;  // 1/8 of a turn in b2 units
constexpr int kQuarterShift = 51;                                // 2^51 b2 units = 1/4 turn

// The scalar recipe 2 from the two 53-bit uniforms: (r cos t, r sin t).
std::pair<double, double> polynomialPair(std::uint64_t b1, std::uint64_t b2) {
    // r = sqrt(-2 log u1)
    const double u1 = uniformFromBits(b1);
    const auto u1bits = std::bit_cast<std::uint64_t>(u1);
    double e = static_cast<double>(static_cast<std::int64_t>(u1bits >> 52) - 1023);
    double m = std::bit_cast<double>((u1bits & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);
    if (m > kSqrt2) {
        m = m * 0.5;
        e = e + 1.0;
    }
    const double s = (m - 1.0) / (m + 1.0);
    const double z = s * s;
    double p = kLog[10];
    for (int k = 9; k >= 0; --k) p = p * z + kLog[k];
    const double log = e * kLn2Hi + (e * kLn2Lo + s * p);
    const double r = std::sqrt(-2.0 * log);
    // t = (pi/2) (k + f)
    const std::uint64_t quarter = (b2 + kHalfTurnBits) >> kQuarterShift;
    const auto d = static_cast<std::int64_t>(b2 - (quarter << kQuarterShift));
    const double f = static_cast<double>(d) * 0x1p-51;
    const double g = f * f;
    double ps = kSin[8];
    for (int k = 7; k >= 0; --k) ps = ps * g + kSin[k];
    const double sine = f * ps;
    double pc = kCos[9];
    for (int k = 8; k >= 0; --k) pc = pc * g + kCos[k];
    const double cosine = pc;
    double c = 0, sn = 0;
    switch (quarter & 3) {
        case 0:
            c = cosine, sn = sine;
            break;
        case 1:
            c = -sine, sn = cosine;
            break;
        case 2:
            c = -cosine, sn = -sine;
            break;
        default:
            c = sine, sn = -cosine;
            break;
    }
    return {r * c, r * sn};
}

std::pair<double, double> normalPair(std::uint64_t key, std::uint64_t n, int generator) {
    if (generator == kGeneratorLibm) return normalPairLibm(key, n);
    return polynomialPair(splitMix64(key + 2 * n) >> 11, splitMix64(key + 2 * n + 1) >> 11);
}

// Pairs [pair0, pair0 + pairs) into out (2 * pairs values): scale * (r cos t), scale * (r sin t).
template <class T>
void pairsScalar(std::uint64_t key, std::uint64_t pair0, std::uint64_t pairs, double scale, T* out) {
    for (std::uint64_t k = 0; k < pairs; ++k) {
        const std::uint64_t n = pair0 + k;
        const auto [c, s] = polynomialPair(splitMix64(key + 2 * n) >> 11, splitMix64(key + 2 * n + 1) >> 11);
        out[2 * k] = static_cast<T>(scale * c);
        out[2 * k + 1] = static_cast<T>(scale * s);
    }
}

#if ALIBI_GENERATOR_X86

// ---------------------------------------------------------------------------
// AVX-512 (F + DQ): eight pairs per step, the same operations lane by lane.

#define ALIBI_AVX512 __attribute__((target("avx512f,avx512dq")))

ALIBI_AVX512 inline __m512i splitMix512(__m512i x) {
    __m512i z = _mm512_add_epi64(x, _mm512_set1_epi64(static_cast<long long>(kGamma)));
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                           _mm512_set1_epi64(static_cast<long long>(kMix1)));
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                           _mm512_set1_epi64(static_cast<long long>(kMix2)));
    return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

ALIBI_AVX512 inline __m512d horner512(__m512d x, const double* c, int top) {
    __m512d p = _mm512_set1_pd(c[top]);
    for (int k = top - 1; k >= 0; --k) p = _mm512_add_pd(_mm512_mul_pd(p, x), _mm512_set1_pd(c[k]));
    return p;
}

// (r cos t, r sin t) of eight pairs whose uniforms' 53-bit integers are b1 and b2.
ALIBI_AVX512 inline void polynomialPairs512(__m512i b1, __m512i b2, __m512d& outC, __m512d& outS) {
    const __mmask8 zero = _mm512_cmpeq_epi64_mask(b1, _mm512_setzero_si512());
    const __m512d u1 = _mm512_mask_blend_pd(zero, _mm512_mul_pd(_mm512_cvtepu64_pd(b1), _mm512_set1_pd(0x1p-53)),
                                            _mm512_set1_pd(0x1p-54));
    const __m512i bits = _mm512_castpd_si512(u1);
    __m512d e = _mm512_cvtepi64_pd(_mm512_sub_epi64(_mm512_srli_epi64(bits, 52), _mm512_set1_epi64(1023)));
    __m512d m = _mm512_castsi512_pd(_mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi64(0x000FFFFFFFFFFFFFLL)),
                                                    _mm512_set1_epi64(0x3FF0000000000000LL)));
    const __mmask8 big = _mm512_cmp_pd_mask(m, _mm512_set1_pd(kSqrt2), _CMP_GT_OQ);
    m = _mm512_mask_mul_pd(m, big, m, _mm512_set1_pd(0.5));
    e = _mm512_mask_add_pd(e, big, e, _mm512_set1_pd(1.0));
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512d s = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one));
    const __m512d p = horner512(_mm512_mul_pd(s, s), kLog, 10);
    const __m512d log = _mm512_add_pd(_mm512_mul_pd(e, _mm512_set1_pd(kLn2Hi)),
                                      _mm512_add_pd(_mm512_mul_pd(e, _mm512_set1_pd(kLn2Lo)), _mm512_mul_pd(s, p)));
    const __m512d r = _mm512_sqrt_pd(_mm512_mul_pd(_mm512_set1_pd(-2.0), log));

    const __m512i quarter = _mm512_srli_epi64(
        _mm512_add_epi64(b2, _mm512_set1_epi64(static_cast<long long>(kHalfTurnBits))), kQuarterShift);
    const __m512i d = _mm512_sub_epi64(b2, _mm512_slli_epi64(quarter, kQuarterShift));
    const __m512d f = _mm512_mul_pd(_mm512_cvtepi64_pd(d), _mm512_set1_pd(0x1p-51));
    const __m512d g = _mm512_mul_pd(f, f);
    const __m512d sine = _mm512_mul_pd(f, horner512(g, kSin, 8));
    const __m512d cosine = horner512(g, kCos, 9);
    const __m512i q = _mm512_and_si512(quarter, _mm512_set1_epi64(3));
    const __mmask8 swap = _mm512_test_epi64_mask(q, _mm512_set1_epi64(1));
    // cos t is negative in quarters 1 and 2, sin t in quarters 2 and 3.
    const __mmask8 negC = _mm512_test_epi64_mask(_mm512_add_epi64(q, _mm512_set1_epi64(1)), _mm512_set1_epi64(2));
    const __mmask8 negS = _mm512_test_epi64_mask(q, _mm512_set1_epi64(2));
    __m512d c = _mm512_mask_blend_pd(swap, cosine, sine);
    __m512d sn = _mm512_mask_blend_pd(swap, sine, cosine);
    const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ULL));
    c = _mm512_castsi512_pd(_mm512_mask_xor_epi64(_mm512_castpd_si512(c), negC, _mm512_castpd_si512(c), sign));
    sn = _mm512_castsi512_pd(_mm512_mask_xor_epi64(_mm512_castpd_si512(sn), negS, _mm512_castpd_si512(sn), sign));
    outC = _mm512_mul_pd(r, c);
    outS = _mm512_mul_pd(r, sn);
}

template <class T>
ALIBI_AVX512 void pairs512(std::uint64_t key, std::uint64_t pair0, std::uint64_t pairs, double scale, T* out) {
    const __m512i lane = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512d sc = _mm512_set1_pd(scale);
    // Interleaving (c0, s0, c1, s1, ...): lanes 0..7 of c are indices 0..7, of s 8..15.
    const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    std::uint64_t k = 0;
    for (; k + 8 <= pairs; k += 8) {
        const __m512i even = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(key + 2 * (pair0 + k))), lane);
        const __m512i b1 = _mm512_srli_epi64(splitMix512(even), 11);
        const __m512i b2 = _mm512_srli_epi64(splitMix512(_mm512_add_epi64(even, _mm512_set1_epi64(1))), 11);
        __m512d c, s;
        polynomialPairs512(b1, b2, c, s);
        c = _mm512_mul_pd(sc, c);
        s = _mm512_mul_pd(sc, s);
        const __m512d first = _mm512_permutex2var_pd(c, lo, s);
        const __m512d second = _mm512_permutex2var_pd(c, hi, s);
        if constexpr (std::is_same_v<T, float>) {
            _mm256_storeu_ps(out + 2 * k, _mm512_cvtpd_ps(first));
            _mm256_storeu_ps(out + 2 * k + 8, _mm512_cvtpd_ps(second));
        } else {
            _mm512_storeu_pd(out + 2 * k, first);
            _mm512_storeu_pd(out + 2 * k + 8, second);
        }
    }
    pairsScalar(key, pair0 + k, pairs - k, scale, out + 2 * k);
}

// ---------------------------------------------------------------------------
// AVX2: four pairs per step. AVX2 has no 64-bit multiply or 64-bit integer conversion, so
// both are built from exact 32-bit pieces; every double operation is the scalar one.

#define ALIBI_AVX2 __attribute__((target("avx2")))

// x * c modulo 2^64 from 32 x 32 -> 64 bit products.
ALIBI_AVX2 inline __m256i mul64(__m256i x, std::uint64_t c) {
    const __m256i cLo = _mm256_set1_epi64x(static_cast<long long>(c & 0xFFFFFFFFULL));
    const __m256i cHi = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
    const __m256i lo = _mm256_mul_epu32(x, cLo);
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), cLo), _mm256_mul_epu32(x, cHi));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

ALIBI_AVX2 inline __m256i splitMix256(__m256i x) {
    __m256i z = _mm256_add_epi64(x, _mm256_set1_epi64x(static_cast<long long>(kGamma)));
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), kMix1);
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), kMix2);
    return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

// Exact conversion of integers in [0, 2^52) to double: 2^52 + x has x as its mantissa.
ALIBI_AVX2 inline __m256d small64ToDouble(__m256i x) {
    const __m256d magic = _mm256_set1_pd(0x1p52);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, _mm256_castpd_si256(magic))), magic);
}

ALIBI_AVX2 inline __m256d horner256(__m256d x, const double* c, int top) {
    __m256d p = _mm256_set1_pd(c[top]);
    for (int k = top - 1; k >= 0; --k) p = _mm256_add_pd(_mm256_mul_pd(p, x), _mm256_set1_pd(c[k]));
    return p;
}

ALIBI_AVX2 inline void polynomialPairs256(__m256i b1, __m256i b2, __m256d& outC, __m256d& outS) {
    // u1 = b1 * 2^-53, converted exactly in two 32-bit halves (b1 < 2^53).
    const __m256d b1d = _mm256_add_pd(_mm256_mul_pd(small64ToDouble(_mm256_srli_epi64(b1, 32)), _mm256_set1_pd(0x1p32)),
                                      small64ToDouble(_mm256_and_si256(b1, _mm256_set1_epi64x(0xFFFFFFFFLL))));
    const __m256d zero = _mm256_castsi256_pd(_mm256_cmpeq_epi64(b1, _mm256_setzero_si256()));
    const __m256d u1 = _mm256_blendv_pd(_mm256_mul_pd(b1d, _mm256_set1_pd(0x1p-53)), _mm256_set1_pd(0x1p-54), zero);
    const __m256i bits = _mm256_castpd_si256(u1);
    __m256d e = _mm256_sub_pd(small64ToDouble(_mm256_srli_epi64(bits, 52)), _mm256_set1_pd(1023.0));
    __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)),
                                                    _mm256_set1_epi64x(0x3FF0000000000000LL)));
    const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(kSqrt2), _CMP_GT_OQ);
    m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
    e = _mm256_blendv_pd(e, _mm256_add_pd(e, _mm256_set1_pd(1.0)), big);
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
    const __m256d p = horner256(_mm256_mul_pd(s, s), kLog, 10);
    const __m256d log = _mm256_add_pd(_mm256_mul_pd(e, _mm256_set1_pd(kLn2Hi)),
                                      _mm256_add_pd(_mm256_mul_pd(e, _mm256_set1_pd(kLn2Lo)), _mm256_mul_pd(s, p)));
    const __m256d r = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), log));

    const __m256i quarter = _mm256_srli_epi64(
        _mm256_add_epi64(b2, _mm256_set1_epi64x(static_cast<long long>(kHalfTurnBits))), kQuarterShift);
    // d in [-2^50, 2^50): d + 2^51 converts exactly, then 2^51 comes off exactly.
    const __m256i d = _mm256_sub_epi64(b2, _mm256_slli_epi64(quarter, kQuarterShift));
    const __m256d dd =
        _mm256_sub_pd(small64ToDouble(_mm256_add_epi64(d, _mm256_set1_epi64x(1LL << 51))), _mm256_set1_pd(0x1p51));
    const __m256d f = _mm256_mul_pd(dd, _mm256_set1_pd(0x1p-51));
    const __m256d g = _mm256_mul_pd(f, f);
    const __m256d sine = _mm256_mul_pd(f, horner256(g, kSin, 8));
    const __m256d cosine = horner256(g, kCos, 9);
    const __m256i q = _mm256_and_si256(quarter, _mm256_set1_epi64x(3));
    const __m256i oneI = _mm256_set1_epi64x(1), twoI = _mm256_set1_epi64x(2);
    const __m256d swap = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, oneI), oneI));
    const __m256i negC = _mm256_slli_epi64(_mm256_and_si256(_mm256_add_epi64(q, oneI), twoI), 62);
    const __m256i negS = _mm256_slli_epi64(_mm256_and_si256(q, twoI), 62);
    const __m256d c = _mm256_xor_pd(_mm256_blendv_pd(cosine, sine, swap), _mm256_castsi256_pd(negC));
    const __m256d sn = _mm256_xor_pd(_mm256_blendv_pd(sine, cosine, swap), _mm256_castsi256_pd(negS));
    outC = _mm256_mul_pd(r, c);
    outS = _mm256_mul_pd(r, sn);
}

template <class T>
ALIBI_AVX2 void pairs256(std::uint64_t key, std::uint64_t pair0, std::uint64_t pairs, double scale, T* out) {
    const __m256i lane = _mm256_set_epi64x(6, 4, 2, 0);
    const __m256d sc = _mm256_set1_pd(scale);
    std::uint64_t k = 0;
    for (; k + 4 <= pairs; k += 4) {
        const __m256i even = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(key + 2 * (pair0 + k))), lane);
        const __m256i b1 = _mm256_srli_epi64(splitMix256(even), 11);
        const __m256i b2 = _mm256_srli_epi64(splitMix256(_mm256_add_epi64(even, _mm256_set1_epi64x(1))), 11);
        __m256d c, s;
        polynomialPairs256(b1, b2, c, s);
        c = _mm256_mul_pd(sc, c);
        s = _mm256_mul_pd(sc, s);
        // (c0, s0, c2, s2) and (c1, s1, c3, s3), then lanes regrouped to (c0 s0 c1 s1) (c2 s2 c3 s3).
        const __m256d a = _mm256_unpacklo_pd(c, s);
        const __m256d b = _mm256_unpackhi_pd(c, s);
        const __m256d first = _mm256_permute2f128_pd(a, b, 0x20);
        const __m256d second = _mm256_permute2f128_pd(a, b, 0x31);
        if constexpr (std::is_same_v<T, float>) {
            _mm_storeu_ps(out + 2 * k, _mm256_cvtpd_ps(first));
            _mm_storeu_ps(out + 2 * k + 4, _mm256_cvtpd_ps(second));
        } else {
            _mm256_storeu_pd(out + 2 * k, first);
            _mm256_storeu_pd(out + 2 * k + 4, second);
        }
    }
    pairsScalar(key, pair0 + k, pairs - k, scale, out + 2 * k);
}

#endif  // ALIBI_GENERATOR_X86

template <class T>
using PairsFn = void (*)(std::uint64_t, std::uint64_t, std::uint64_t, double, T*);

template <class T>
PairsFn<T> pairsFor(detail::GeneratorKernel kernel) {
#if ALIBI_GENERATOR_X86
    if (kernel == detail::GeneratorKernel::Avx512) return pairs512<T>;
    if (kernel == detail::GeneratorKernel::Avx2) return pairs256<T>;
#endif
    (void)kernel;
    return pairsScalar<T>;
}

detail::GeneratorKernel pickKernel() {
#if ALIBI_GENERATOR_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return detail::GeneratorKernel::Avx512;
    if (__builtin_cpu_supports("avx2")) return detail::GeneratorKernel::Avx2;
#endif
    return detail::GeneratorKernel::Scalar;
}

}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return uniformFromKey(streamKey(seed, stream), index);
}

double standardNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, int generator) {
    const auto [c, s] = normalPair(streamKey(seed, stream), index >> 1, generator);
    return (index & 1) ? s : c;
}

namespace detail {

GeneratorKernel generatorKernel() {
    static const GeneratorKernel k = pickKernel();
    return k;
}

bool generatorKernelRuns(GeneratorKernel kernel) {
    switch (kernel) {
        case GeneratorKernel::Scalar:
            return true;
        case GeneratorKernel::Avx2:
            return generatorKernel() != GeneratorKernel::Scalar;
        case GeneratorKernel::Avx512:
            return generatorKernel() == GeneratorKernel::Avx512;
    }
    return false;
}

const char* generatorKernelName(GeneratorKernel kernel) {
    switch (kernel) {
        case GeneratorKernel::Scalar:
            return "scalar";
        case GeneratorKernel::Avx2:
            return "avx2";
        case GeneratorKernel::Avx512:
            return "avx512";
    }
    return "?";
}

template <class T>
void fillNormalsWith(GeneratorKernel kernel, std::uint64_t seed, std::uint64_t stream, std::uint64_t first,
                     std::uint64_t count, double scale, T* out, int generator) {
    if (count == 0) return;
    const std::uint64_t key = streamKey(seed, stream);
    std::uint64_t idx = first;
    const std::uint64_t end = first + count;
    if (idx & 1) {
        *out++ = static_cast<T>(scale * normalPair(key, idx >> 1, generator).second);
        ++idx;
    }
    const std::uint64_t pairs = (end - idx) / 2;
    if (generator == kGeneratorLibm) {
        for (std::uint64_t k = 0; k < pairs; ++k) {
            const auto [c, s] = normalPairLibm(key, (idx >> 1) + k);
            out[2 * k] = static_cast<T>(scale * c);
            out[2 * k + 1] = static_cast<T>(scale * s);
        }
    } else {
        pairsFor<T>(kernel)(key, idx >> 1, pairs, scale, out);
    }
    out += 2 * pairs;
    idx += 2 * pairs;
    if (idx < end) *out = static_cast<T>(scale * normalPair(key, idx >> 1, generator).first);
}

template <class T>
void fillNormals(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::uint64_t count, double scale,
                 T* out, int generator) {
    fillNormalsWith(generatorKernel(), seed, stream, first, count, scale, out, generator);
}

template void fillNormals<float>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, float*, int);
template void fillNormals<double>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, double*, int);
template void fillNormalsWith<float>(GeneratorKernel, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                                     double, float*, int);
template void fillNormalsWith<double>(GeneratorKernel, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                                      double, double*, int);

}  // namespace detail

}  // namespace alibi
