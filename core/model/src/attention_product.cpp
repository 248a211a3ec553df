// The packed AVX-512 logits product (see attention_product.hpp). One tile is R query rows
// (R <= 4) by P panels of 16 keys (P <= 4): R x P accumulators stay in registers for the whole
// d_k loop, each step loading P key vectors and broadcasting R query values. Tiles sweep the
// query rows of a block for one group of 64 keys, so that group's packed keys (64 x d_k
// floats, 16 KB at d_k = 64) stay in the L1 cache while every row uses them.
#include "attention_product.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

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
#define ALIBI_PRODUCT_X86 1
#endif

namespace alibi::detail {

namespace {

constexpr std::int64_t kPanel = 16;  // keys per panel: one AVX-512 vector
constexpr std::int64_t kTileRows = 4;
constexpr std::int64_t kTilePanels = 4;

#if ALIBI_PRODUCT_X86

template <int R, int P>
__attribute__((target("avx512f"))) void tile(std::int64_t dk, const float* q, const float* packed, float* c,
                                             std::int64_t ldc, __mmask16 lastLanes) {
    // C is usually cold (the export's buffer, the tensor): ask for its lines now, so the read
    // for ownership overlaps the d_k loop instead of stalling the stores at the end.
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p) __builtin_prefetch(c + r * ldc + p * kPanel, 1, 3);
    __m512 acc[R][P];
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p) acc[r][p] = _mm512_setzero_ps();
    for (std::int64_t x = 0; x < dk; ++x) {
        __m512 k[P];
        for (int p = 0; p < P; ++p) k[p] = _mm512_loadu_ps(packed + (p * dk + x) * kPanel);
        for (int r = 0; r < R; ++r) {
            const __m512 qv = _mm512_set1_ps(q[r * dk + x]);
            for (int p = 0; p < P; ++p) acc[r][p] = _mm512_fmadd_ps(qv, k[p], acc[r][p]);
        }
    }
    for (int r = 0; r < R; ++r) {
        for (int p = 0; p + 1 < P; ++p) _mm512_storeu_ps(c + r * ldc + p * kPanel, acc[r][p]);
        _mm512_mask_storeu_ps(c + r * ldc + (P - 1) * kPanel, lastLanes, acc[r][P - 1]);
    }
}

using TileFn = void (*)(std::int64_t, const float*, const float*, float*, std::int64_t, __mmask16);

template <int R>
constexpr TileFn tileOf(int panels) {
    switch (panels) {
        case 1:
            return tile<R, 1>;
        case 2:
            return tile<R, 2>;
        case 3:
            return tile<R, 3>;
        default:
            return tile<R, 4>;
    }
}

TileFn tileFor(std::int64_t rows, std::int64_t panels) {
    const int p = static_cast<int>(panels);
    switch (rows) {
        case 1:
            return tileOf<1>(p);
        case 2:
            return tileOf<2>(p);
        case 3:
            return tileOf<3>(p);
        default:
            return tileOf<4>(p);
    }
}

#endif  // ALIBI_PRODUCT_X86

}  // namespace

bool packedProductRuns() {
#if ALIBI_PRODUCT_X86
    static const bool runs = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    }();
    return runs;
#else
    return false;
#endif
}

std::size_t packedKeysSize(std::int64_t n, std::int64_t dk) {
    return static_cast<std::size_t>((n + kPanel - 1) / kPanel * kPanel * dk);
}

void packKeys(const float* keys, std::int64_t n, std::int64_t dk, float* packed) {
    for (std::int64_t p = 0; p * kPanel < n; ++p) {
        float* panel = packed + p * kPanel * dk;
        const std::int64_t lanes = std::min(kPanel, n - p * kPanel);
        for (std::int64_t x = 0; x < dk; ++x) {
            float* dst = panel + x * kPanel;
            for (std::int64_t l = 0; l < lanes; ++l) dst[l] = keys[(p * kPanel + l) * dk + x];
            for (std::int64_t l = lanes; l < kPanel; ++l) dst[l] = 0.0f;
        }
    }
}

void packedProduct(std::int64_t m, std::int64_t n, std::int64_t dk, const float* q, const float* packed, float* c,
                   std::int64_t ldc) {
#if ALIBI_PRODUCT_X86
    const std::int64_t panels = (n + kPanel - 1) / kPanel;
    for (std::int64_t p0 = 0; p0 < panels; p0 += kTilePanels) {
        const std::int64_t P = std::min(kTilePanels, panels - p0);
        const std::int64_t lanes = std::min(kPanel, n - (p0 + P - 1) * kPanel);
        const auto lastLanes = static_cast<__mmask16>((1U << lanes) - 1U);
        const float* group = packed + p0 * kPanel * dk;
        for (std::int64_t i0 = 0; i0 < m; i0 += kTileRows) {
            const std::int64_t R = std::min(kTileRows, m - i0);
            tileFor(R, P)(dk, q + i0 * dk, group, c + i0 * ldc + p0 * kPanel, ldc, lastLanes);
        }
    }
#else
    (void)m, (void)n, (void)dk, (void)q, (void)packed, (void)c, (void)ldc;
#endif
}

void plainProduct(std::int64_t m, std::int64_t n, std::int64_t dk, const float* q, const float* keys, float* c,
                  std::int64_t ldc) {
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::int64_t x = 0; x < dk; ++x) acc = std::fma(q[i * dk + x], keys[j * dk + x], acc);
            c[i * ldc + j] = acc;
        }
}

}  // namespace alibi::detail
