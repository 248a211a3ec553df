// The fast path of the attention simulation, shared by computeAttention (attention_blocked.cpp)
// and the streaming source (attention_source.cpp): BlockKernel works on blocks of query rows of
// one head. One matrix product writes the q.k logits straight into the output rows, then one
// pass adds the bias (a slice of a per-head template, as in bias.cpp) and finds the row maximum,
// a second takes the exponentials and their sum, and a third normalises in place, while the
// block is still in cache. Causal modes skip the products of masked key columns; masked keys
// take the mask value's share (see ReferenceRows::logits).
#pragma once

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <alibi/model/detail/attention_blas.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/attention_kernel.hpp>
#include "attention_product.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

namespace alibi::detail {

// Rows per block: the block (rows x K values) stays within half the L2 cache of one core.
inline constexpr std::uint64_t kBlockBytes = std::uint64_t{512} << 10;
inline constexpr std::int64_t kMaxBlockRows = 256;
// Key vectors of one head are cached up to this size; beyond it they are drawn per key panel.
inline constexpr std::uint64_t kKeyCacheBytes = std::uint64_t{64} << 20;
inline constexpr std::int64_t kKeyPanel = 1024;

inline void gemm(int m, int n, int k, const float* a, const float* b, float* c, int ldc) {
    detail::gemmNT(m, n, k, a, b, c, ldc);
}
inline void gemm(int m, int n, int k, const double* a, const double* b, double* c, int ldc) {
    detail::gemmNT(m, n, k, a, b, c, ldc);
}

inline bool isDistanceMode(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Symmetric || mode == BiasMode::Clamped;
}

// What one head needs: its bias template already divided by the temperature, and (qk) its
// key vectors when they are small enough to keep.
template <class T>
struct HeadData {
    std::vector<T> bias;
    std::vector<T> keys;  // (K, dk), or packed in panels (keySize), or empty
};

template <class T>
struct Scratch {
    std::vector<T> q;
    std::vector<T> k;
    std::vector<T> block;
    std::vector<double> row;
    std::optional<detail::ReferenceRows> reference;
};

template <class T>
class BlockKernel {
public:
    BlockKernel(const AttentionParams& params, const std::vector<double>& slopes)
        : m_params(params),
          m_slopes(slopes),
          m_heads(params.bias.slopes.heads),
          m_queries(params.bias.queries),
          m_keys(params.bias.keyCount()),
          m_dk(params.content.dk) {
        const auto rows = kBlockBytes / (static_cast<std::uint64_t>(m_keys) * sizeof(T));
        m_blockRows = std::clamp<std::int64_t>(static_cast<std::int64_t>(rows), 1, kMaxBlockRows);
        const double t = params.content.temperature;
        m_alpha = static_cast<T>(
            params.content.kind == ContentKind::Qk ? 1.0 / (std::sqrt(static_cast<double>(m_dk)) * t) : 1.0 / t);
        m_mask = static_cast<T>(detail::maskLogit(params.bias));
        m_packed = std::is_same_v<T, float> && params.content.kind == ContentKind::Qk && detail::packedProductRuns();
        m_cacheKeys = params.content.kind == ContentKind::Qk && keySize(m_keys) * sizeof(T) <= kKeyCacheBytes;
    }

    [[nodiscard]] std::int64_t blockRows() const { return m_blockRows; }
    [[nodiscard]] std::int64_t blockCount() const { return (m_queries + m_blockRows - 1) / m_blockRows; }
    [[nodiscard]] bool cachesKeys() const { return m_cacheKeys; }
    [[nodiscard]] std::uint64_t headBytes() const {
        const std::uint64_t n = static_cast<std::uint64_t>(templateLength()) + (m_cacheKeys ? keySize(m_keys) : 0);
        return n * sizeof(T);
    }

    // The bias template of head h (see bias.cpp): distance modes hold the cell at distance
    // K - 1 - x at x, so row p is the slice starting at K - 1 - p; key modes hold key j's value.
    void buildTemplate(std::int64_t h, HeadData<T>& d) const {
        const BiasParams& b = m_params.bias;
        const double slope = m_slopes[static_cast<std::size_t>(h)];
        d.bias.resize(static_cast<std::size_t>(templateLength()));
        for (std::int64_t x = 0; x < templateLength(); ++x) {
            const auto cell = biasAllowedValue(b, slope, h, m_keys - 1, x);
            // Cells past the last key in causal distance templates are never read.
            const double v = cell ? *cell : 0.0;
            d.bias[static_cast<std::size_t>(x)] = static_cast<T>(v / m_params.content.temperature);
        }
    }

    // Values that n key vectors take in storage: n * dk, or whole packed panels.
    [[nodiscard]] std::size_t keySize(std::int64_t n) const {
        return m_packed ? detail::packedKeysSize(n, m_dk) : static_cast<std::size_t>(n * m_dk);
    }

    // Key vectors [j0, j1) of head h, at out (packed for the packed product, where keys from
    // j0 = a multiple of 16 land exactly where the whole head's packing puts them).
    void drawKeys(std::int64_t h, std::int64_t j0, std::int64_t j1, T* out) const {
        const auto first = static_cast<std::uint64_t>(h * m_keys + j0) * m_dk;
        const auto count = static_cast<std::uint64_t>((j1 - j0) * m_dk);
        if constexpr (std::is_same_v<T, float>) {
            if (m_packed) {
                thread_local std::vector<float> plain;
                plain.resize(count);
                detail::fillNormals(m_params.content.seed, kStreamKeys, first, count, 1.0, plain.data(),
                                    m_params.content.generator);
                detail::packKeys(plain.data(), j1 - j0, m_dk, out);
                return;
            }
        }
        detail::fillNormals(m_params.content.seed, kStreamKeys, first, count, 1.0, out, m_params.content.generator);
    }

    // Probabilities of rows [i0, i1) of head h into out (row stride K).
    void compute(std::int64_t h, std::int64_t i0, std::int64_t i1, const HeadData<T>& d, T* out, Scratch<T>& s) const {
        const BiasParams& b = m_params.bias;
        const ContentParams& c = m_params.content;
        const auto M = i1 - i0;
        const std::int64_t nMax = detail::allowedKeys(b, i1 - 1);
        bool hasContent = true;
        switch (c.kind) {
            case ContentKind::Zero:
                hasContent = false;
                break;
            case ContentKind::Gaussian:
                for (std::int64_t i = i0; i < i1; ++i)
                    detail::fillNormals(c.seed, kStreamGaussian, static_cast<std::uint64_t>(h * m_queries + i) * m_keys,
                                        static_cast<std::uint64_t>(detail::allowedKeys(b, i)), c.sigma,
                                        out + (i - i0) * m_keys, c.generator);
                break;
            case ContentKind::Qk:
                if (nMax == 0) break;
                s.q.resize(static_cast<std::size_t>(M * m_dk));
                detail::fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(h * m_queries + i0) * m_dk,
                                    static_cast<std::uint64_t>(M * m_dk), 1.0, s.q.data(), c.generator);
                if (!d.keys.empty()) {
                    product(M, nMax, s.q.data(), d.keys.data(), out);
                } else {
                    s.k.resize(keySize(kKeyPanel));
                    for (std::int64_t j0 = 0; j0 < nMax; j0 += kKeyPanel) {
                        const std::int64_t j1 = std::min(nMax, j0 + kKeyPanel);
                        drawKeys(h, j0, j1, s.k.data());
                        product(M, j1 - j0, s.q.data(), s.k.data(), out + j0);
                    }
                }
                break;
        }
        for (std::int64_t i = i0; i < i1; ++i) {
            T* row = out + (i - i0) * m_keys;
            const std::int64_t n = detail::allowedKeys(b, i);
            const std::int64_t masked = m_keys - n;
            const T* bias = d.bias.data() + (isDistanceMode(b.mode) ? m_keys - 1 - b.queryPosition(i) : 0);
            // Masked keys take the mask value (see ReferenceRows::logits); under -inf they get
            // exactly 0, under a finite mask exp(mask - max) / sum each.
            T max = n > 0 ? detail::logitsMax(row, hasContent ? row : nullptr, m_alpha, bias, n)
                          : -std::numeric_limits<T>::infinity();
            if (masked > 0) max = std::max(max, m_mask);
            bool ok = std::isfinite(max);
            if (ok) {
                const double maskWeight =
                    masked > 0 ? std::exp(static_cast<double>(m_mask) - static_cast<double>(max)) : 0.0;
                const double sum = detail::expSum(row, max, n) + static_cast<double>(masked) * maskWeight;
                ok = std::isfinite(sum) && sum > 0;
                if (ok) {
                    detail::scaleRow(row, static_cast<T>(1.0 / sum), n);
                    std::fill(row + n, row + m_keys, static_cast<T>(maskWeight / sum));
                }
            }
            if (!ok) {
                // Rare: infinite logits (an overflowing dtype bias, a huge sigma or a tiny
                // temperature) or a fully -inf-masked row. The reference path gives the
                // defined answer.
                if (!s.reference) s.reference.emplace(m_params, m_slopes);
                s.row.resize(static_cast<std::size_t>(m_keys));
                s.reference->probabilities(h, i, s.row);
                for (std::int64_t j = 0; j < m_keys; ++j) row[j] = static_cast<T>(s.row[static_cast<std::size_t>(j)]);
            }
        }
    }

private:
    // out (row stride K) = the M query vectors times n keys from keyStorage.
    void product(std::int64_t M, std::int64_t n, const T* q, const T* keys, T* out) const {
        if constexpr (std::is_same_v<T, float>) {
            if (m_packed) {
                detail::packedProduct(M, n, m_dk, q, keys, out, m_keys);
                return;
            }
        }
        gemm(static_cast<int>(M), static_cast<int>(n), static_cast<int>(m_dk), q, keys, out, static_cast<int>(m_keys));
    }

    [[nodiscard]] std::int64_t templateLength() const {
        return isDistanceMode(m_params.bias.mode) ? m_queries + m_keys - 1 : m_keys;
    }

    const AttentionParams& m_params;
    const std::vector<double>& m_slopes;
    std::int64_t m_heads, m_queries, m_keys, m_dk;
    std::int64_t m_blockRows = 1;
    T m_alpha{};
    T m_mask{};  // the masked keys' logit
    bool m_cacheKeys = false;
    bool m_packed = false;  // float qk on AVX-512: keys packed, product by packedProduct
};

// Writes a computed block (rows [i0, i1) of head h, row stride K) into a tensor's bytes in
// the layout and dtype, for every case where the block was not computed in place.
template <class T>
void storeBlock(const BiasParams& b, std::int64_t h, std::int64_t i0, std::int64_t i1, const T* block,
                std::byte* bytes) {
    const std::int64_t H = b.slopes.heads, Q = b.queries, K = b.keyCount();
    const std::size_t es = dtypeSize(b.dtype);
    for (std::int64_t i = i0; i < i1; ++i) {
        const T* row = block + (i - i0) * K;
        for (std::int64_t j = 0; j < K; ++j)
            storeAs(b.dtype, static_cast<double>(row[j]), bytes + layoutIndex(b.layout, H, Q, K, h, i, j) * es);
    }
}

template <class T>
constexpr bool computesInPlace(const BiasParams& b) {
    if (b.layout == Layout::Qkh) return false;
    return std::is_same_v<T, float> ? b.dtype == DType::F32 : b.dtype == DType::F64;
}

}  // namespace alibi::detail
