// Row passes of the attention softmax. The float versions exist for AVX-512, AVX2+FMA (one
// source, attention_kernel_passes.inc, compiled for each) and plain C++, and are picked once at
// run time from the CPU's features, so the default build needs no -march flag. The vector exponential is the Cephes
// expf polynomial (about 1 ulp); inputs are x - max <= 0, so only underflow needs care: results in the subnormal range
// are kept (as PyTorch's float softmax keeps them) and -inf gives exactly 0.
#include <alibi/model/detail/attention_kernel.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 intrinsics seed their results with _mm512_undefined_*(), which trips
// -Wuninitialized inside the header itself (GCC bug 105593); nothing here reads those values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // clang has no such warning (and warns about the unknown name)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop
#define ALIBI_X86 1
#endif

namespace alibi::detail {
namespace {

// Cephes expf: exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 (ln 2 split in two
// parts so n * C1 is exact), exp(r) = 1 + r + r^2 * P(r).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kC1 = 0.693359375f;
constexpr float kC2 = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f;
constexpr float kP1 = 1.3981999507e-3f;
constexpr float kP2 = 8.3334519073e-3f;
constexpr float kP3 = 4.1665795894e-2f;
constexpr float kP4 = 1.6666665459e-1f;
constexpr float kP5 = 5.0000001201e-1f;
// exp(x) for x below this is under half the smallest subnormal float and rounds to 0.
constexpr float kExpZero = -104.0f;

// ---------------------------------------------------------------------------
// Portable

// The portable loops, for float (when no vector unit is found) and for double (always).
template <class T>
T logitsMaxPortable(T* row, const T* content, T alpha, const T* bias, std::int64_t n) {
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
        const T x = content ? content[j] * alpha + bias[j] : bias[j];
        row[j] = x;
        if (x > m) m = x;
    }
    return m;
}

template <class T>
double expSumPortable(T* row, T max, std::int64_t n) {
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
        const T e = std::exp(row[j] - max);
        row[j] = e;
        sum += e;
    }
    return sum;
}

template <class T>
void scaleRowPortable(T* row, T factor, std::int64_t n) {
    for (std::int64_t j = 0; j < n; ++j) row[j] *= factor;
}

#if ALIBI_X86

// The vector passes are written once, in attention_kernel_passes.inc, against an `Isa` struct
// of vector operations, and compiled twice: for AVX-512 and for AVX2 + FMA. Each copy is
// compiled for its own instruction set (a pragma around the include; a template would not do:
// GCC inlines the intrinsics only into functions compiled for their instruction set). Both
// copies handle a row's last partial vector the same way: padded loads (-inf for logits and
// exponent arguments, 0 for content), so padding lanes add nothing to a maximum or a sum,
// and stores of the valid lanes only.

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace avx512 {

struct Isa {
    using F = __m512;   // 16 floats
    using D = __m512d;  // 8 double partial sums
    static constexpr int kLanes = 16;

    static F set1(float x) { return _mm512_set1_ps(x); }
    static F load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, F v) { _mm512_storeu_ps(p, v); }
    static __mmask16 lanes(std::int64_t n) { return static_cast<__mmask16>((1U << n) - 1U); }
    // The first n < kLanes values of p, the other lanes `fill`.
    static F loadTail(const float* p, std::int64_t n, float fill) {
        return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), lanes(n), p);
    }
    static void storeTail(float* p, F v, std::int64_t n) { _mm512_mask_storeu_ps(p, lanes(n), v); }
    static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
    static F max(F a, F b) { return _mm512_max_ps(a, b); }
    static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
    static float hmax(F v) { return _mm512_reduce_max_ps(v); }

    // Cephes expf (see the constants above). Subnormal results are kept (PyTorch keeps them):
    // scalef rounds y * 2^n into the subnormal range correctly. Below kExpZero the exact result
    // rounds to 0 anyway. max(lo, x) returns x when x is NaN, so a NaN reaches the sum and the
    // caller sees it.
    static F exp(F x) {
        const __mmask16 nonzero = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpZero), _CMP_NLT_UQ);
        x = _mm512_max_ps(_mm512_set1_ps(kExpZero), x);
        const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kC1), x);
        r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kC2), r);
        __m512 p = _mm512_set1_ps(kP0);
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
        const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
        return _mm512_maskz_mov_ps(nonzero, _mm512_scalef_ps(y, n));
    }

    static D zero() { return _mm512_setzero_pd(); }
    // sum + the 16 floats of v in double, pairwise (lane k with lane k + 8).
    static D accumulate(D sum, F v) {
        const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        return _mm512_add_pd(sum, _mm512_add_pd(lo, hi));
    }
    static double hsum(D v) { return _mm512_reduce_add_pd(v); }
};

#include "attention_kernel_passes.inc"

}  // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace avx2 {

struct Isa {
    using F = __m256;   // 8 floats
    using D = __m256d;  // 4 double partial sums
    static constexpr int kLanes = 8;

    static F set1(float x) { return _mm256_set1_ps(x); }
    static F load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, F v) { _mm256_storeu_ps(p, v); }
    // AVX2 has no masked float loads that tolerate a fill value: a padded copy on the stack.
    static F loadTail(const float* p, std::int64_t n, float fill) {
        alignas(32) float t[kLanes];
        for (int k = 0; k < kLanes; ++k) t[k] = fill;
        std::memcpy(t, p, static_cast<std::size_t>(n) * sizeof(float));
        return _mm256_load_ps(t);
    }
    static void storeTail(float* p, F v, std::int64_t n) {
        alignas(32) float t[kLanes];
        _mm256_store_ps(t, v);
        std::memcpy(p, t, static_cast<std::size_t>(n) * sizeof(float));
    }
    static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
    static F max(F a, F b) { return _mm256_max_ps(a, b); }
    static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
    static float hmax(F v) {
        alignas(32) float t[kLanes];
        _mm256_store_ps(t, v);
        float m = t[0];
        for (int k = 1; k < kLanes; ++k) m = t[k] > m ? t[k] : m;
        return m;
    }

    // Cephes expf. 2^n is built from exponent bits as 2^(n + 64) * 2^-64: the first product
    // is exact, the second rounds once into the subnormal range when the result is that small
    // (subnormals are kept, as PyTorch keeps them), and is exact otherwise. Below kExpZero the
    // result is 0.
    static F exp(F x) {
        const __m256 lo = _mm256_set1_ps(kExpZero);
        const __m256 tooSmall = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
        x = _mm256_max_ps(lo, x);
        const __m256 n =
            _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kC1), x);
        r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kC2), r);
        __m256 p = _mm256_set1_ps(kP0);
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
        const __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
        const __m256i bits =
            _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127 + 64)), 23);
        const __m256 scaled = _mm256_mul_ps(_mm256_mul_ps(y, _mm256_castsi256_ps(bits)), _mm256_set1_ps(0x1p-64f));
        return _mm256_andnot_ps(tooSmall, scaled);
    }

    static D zero() { return _mm256_setzero_pd(); }
    // sum + the 8 floats of v in double, pairwise (lane k with lane k + 4).
    static D accumulate(D sum, F v) {
        return _mm256_add_pd(sum, _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                                                _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))));
    }
    static double hsum(D v) {
        alignas(32) double t[4];
        _mm256_store_pd(t, v);
        return (t[0] + t[1]) + (t[2] + t[3]);
    }
};

#include "attention_kernel_passes.inc"

}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // ALIBI_X86

// ---------------------------------------------------------------------------
// Dispatch, decided once.

using Kernels = SoftmaxKernels;

// Widest first.
std::vector<Kernels> runnable() {
    std::vector<Kernels> all;
#if ALIBI_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        all.push_back({avx512::logitsMax, avx512::expSum, avx512::scaleRow, "avx512"});
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        all.push_back({avx2::logitsMax, avx2::expSum, avx2::scaleRow, "avx2"});
#endif
    all.push_back({logitsMaxPortable<float>, expSumPortable<float>, scaleRowPortable<float>, "generic"});
    return all;
}

const Kernels& kernels() {
    static const Kernels k = runnable().front();
    return k;
}

}  // namespace

std::vector<SoftmaxKernels> runnableSoftmaxKernels() {
    return runnable();
}

float logitsMax(float* row, const float* content, float alpha, const float* bias, std::int64_t n) {
    return kernels().logitsMax(row, content, alpha, bias, n);
}
double expSum(float* row, float max, std::int64_t n) {
    return kernels().expSum(row, max, n);
}
void scaleRow(float* row, float factor, std::int64_t n) {
    kernels().scaleRow(row, factor, n);
}
const char* softmaxKernelName() {
    return kernels().name;
}

double logitsMax(double* row, const double* content, double alpha, const double* bias, std::int64_t n) {
    return logitsMaxPortable(row, content, alpha, bias, n);
}
double expSum(double* row, double max, std::int64_t n) {
    return expSumPortable(row, max, n);
}
void scaleRow(double* row, double factor, std::int64_t n) {
    scaleRowPortable(row, factor, n);
}

}  // namespace alibi::detail
