// The attention simulation: softmax((content + bias) / temperature) per row.
//
// Two paths compute the same numbers. The reference path (ReferenceRows, in double) follows
// the formulas cell by cell and serves attentionRow, attentionStages, the statistics, and any
// row the fast path cannot handle. The fast path (BlockKernel) works on blocks of query rows of
// one head: one matrix product writes the q.k logits straight into the output rows, then one
// pass adds the bias (a slice of a per-head template, as in bias.cpp), finds the row maximum,
// a second takes the exponentials and their sum, and a third normalises in place, while the
// block is still in cache. Causal modes skip the products of masked key columns.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include "model/attention_detail.hpp"
#include "model/attention_kernel.hpp"
#include "base/parallel.hpp"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <mutex>
#include <numbers>
#include <optional>

namespace alibi {

// ---------------------------------------------------------------------------
// Generator

std::uint64_t splitMix64(std::uint64_t x) {
    std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

namespace {

std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream) { return splitMix64(splitMix64(seed) + stream); }

double uniformFromKey(std::uint64_t key, std::uint64_t index) {
    const std::uint64_t bits = splitMix64(key + index) >> 11;
    // 0 would make log(u) infinite; it happens once in 2^53 draws.
    return bits == 0 ? 0x1p-54 : static_cast<double>(bits) * 0x1p-53;
}

// Both Box-Muller outputs of pair n: (r cos t, r sin t).
std::pair<double, double> normalPair(std::uint64_t key, std::uint64_t n) {
    const double u1 = uniformFromKey(key, 2 * n);
    const double u2 = uniformFromKey(key, 2 * n + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 2.0 * std::numbers::pi * u2;
    return {r * std::cos(t), r * std::sin(t)};
}

}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return uniformFromKey(streamKey(seed, stream), index);
}

double standardNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    const auto [c, s] = normalPair(streamKey(seed, stream), index >> 1);
    return (index & 1) ? s : c;
}

namespace detail {

template <class T>
void fillNormals(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::uint64_t count,
                 double scale, T* out) {
    if (count == 0) return;
    const std::uint64_t key = streamKey(seed, stream);
    std::uint64_t idx = first;
    const std::uint64_t end = first + count;
    if (idx & 1) {
        *out++ = static_cast<T>(scale * normalPair(key, idx >> 1).second);
        ++idx;
    }
    for (; idx + 1 < end; idx += 2) {
        const auto [c, s] = normalPair(key, idx >> 1);
        *out++ = static_cast<T>(scale * c);
        *out++ = static_cast<T>(scale * s);
    }
    if (idx < end) *out = static_cast<T>(scale * normalPair(key, idx >> 1).first);
}

template void fillNormals<float>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, float*);
template void fillNormals<double>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, double*);

}  // namespace detail

// ---------------------------------------------------------------------------
// Validation and metadata

Result<std::vector<double>> validateAttention(const AttentionParams& params) {
    auto slopes = validateBias(params.bias);
    if (!slopes) return slopes;
    if (auto ok = checkContentLimits(params.content); !ok) return std::unexpected(ok.error());
    return slopes;
}

std::map<std::string, std::string> attentionMetadata(const AttentionParams& params) {
    auto m = biasMetadata(params.bias);
    m["kind"] = "attention";
    m["content"] = std::string(contentName(params.content.kind));
    m["seed"] = std::to_string(params.content.seed);
    m["sigma"] = fmt::format("{}", params.content.sigma);
    m["dk"] = std::to_string(params.content.dk);
    m["temperature"] = fmt::format("{}", params.content.temperature);
    return m;
}

// ---------------------------------------------------------------------------
// Reference path

namespace detail {

std::int64_t allowedKeys(const BiasParams& params, std::int64_t i) {
    const std::int64_t K = params.keyCount();
    if (!modeMasks(params.mode)) return K;
    return std::clamp<std::int64_t>(params.queryPosition(i) + 1, 0, K);
}

void softmaxReference(std::span<double> x, std::int64_t n) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const auto un = static_cast<std::size_t>(n);
    double max = -inf;
    for (std::size_t j = 0; j < un; ++j) {
        if (std::isnan(x[j])) x[j] = -inf;  // only from +inf content meeting a -inf bias
        max = std::max(max, x[j]);
    }
    std::fill(x.begin() + static_cast<std::ptrdiff_t>(un), x.end(), 0.0);
    if (max == -inf) {
        std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(un), 0.0);
        return;
    }
    if (max == inf) {
        const auto count = static_cast<double>(std::count(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(un), inf));
        for (std::size_t j = 0; j < un; ++j) x[j] = x[j] == inf ? 1.0 / count : 0.0;
        return;
    }
    double sum = 0;
    for (std::size_t j = 0; j < un; ++j) {
        x[j] = std::exp(x[j] - max);
        sum += x[j];
    }
    for (std::size_t j = 0; j < un; ++j) x[j] /= sum;
}

namespace {
// Above this many doubles the reference path draws key vectors on the fly instead of caching.
constexpr std::uint64_t kReferenceKeyCache = std::uint64_t{1} << 22;  // 32 MiB
}  // namespace

ReferenceRows::ReferenceRows(const AttentionParams& params, std::vector<double> slopes)
    : m_params(params), m_slopes(std::move(slopes)) {}

const double* ReferenceRows::keys(std::int64_t head) {
    const std::int64_t K = m_params.bias.keyCount(), dk = m_params.content.dk;
    if (static_cast<std::uint64_t>(K) * dk > kReferenceKeyCache) return nullptr;
    if (m_keysHead != head) {
        m_keys.resize(static_cast<std::size_t>(K * dk));
        fillNormals(m_params.content.seed, kStreamKeys, static_cast<std::uint64_t>(head * K) * dk,
                    static_cast<std::uint64_t>(K * dk), 1.0, m_keys.data());
        m_keysHead = head;
    }
    return m_keys.data();
}

void ReferenceRows::content(std::int64_t head, std::int64_t query, std::span<double> out) {
    const ContentParams& c = m_params.content;
    const std::int64_t Q = m_params.bias.queries, K = m_params.bias.keyCount();
    switch (c.kind) {
        case ContentKind::Zero: std::fill(out.begin(), out.end(), 0.0); return;
        case ContentKind::Gaussian:
            fillNormals(c.seed, kStreamGaussian, static_cast<std::uint64_t>(head * Q + query) * K,
                        static_cast<std::uint64_t>(K), c.sigma, out.data());
            return;
        case ContentKind::Qk: break;
    }
    const auto dk = static_cast<std::size_t>(c.dk);
    m_q.resize(dk);
    fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(head * Q + query) * dk, dk, 1.0, m_q.data());
    const double* cached = keys(head);
    const double scale = std::sqrt(static_cast<double>(c.dk));
    for (std::int64_t j = 0; j < K; ++j) {
        const double* k = cached;
        if (k) {
            k += static_cast<std::size_t>(j) * dk;
        } else {
            m_k.resize(dk);
            fillNormals(c.seed, kStreamKeys, static_cast<std::uint64_t>(head * K + j) * dk, dk, 1.0, m_k.data());
            k = m_k.data();
        }
        double dot = 0;
        for (std::size_t x = 0; x < dk; ++x) dot += m_q[x] * k[x];
        out[static_cast<std::size_t>(j)] = dot / scale;
    }
}

void ReferenceRows::probabilities(std::int64_t head, std::int64_t query, std::span<double> out) {
    const std::int64_t n = allowedKeys(m_params.bias, query);
    content(head, query, out);
    const double slope = m_slopes[static_cast<std::size_t>(head)];
    for (std::int64_t j = 0; j < n; ++j) {
        const double b = biasValue(m_params.bias, slope, head, query, j);
        auto& x = out[static_cast<std::size_t>(j)];
        // A -inf bias (an f16 overflow) is a mask as the model sees it, whatever the content.
        x = b == -std::numeric_limits<double>::infinity() ? b : (x + b) / m_params.content.temperature;
    }
    softmaxReference(out, n);
}

}  // namespace detail

double contentLogit(const AttentionParams& params, std::int64_t head, std::int64_t query, std::int64_t key) {
    const ContentParams& c = params.content;
    const std::int64_t Q = params.bias.queries, K = params.bias.keyCount();
    switch (c.kind) {
        case ContentKind::Zero: return 0.0;
        case ContentKind::Gaussian:
            return c.sigma * standardNormal(c.seed, kStreamGaussian,
                                            static_cast<std::uint64_t>(head * Q + query) * K + key);
        case ContentKind::Qk: break;
    }
    const auto dk = static_cast<std::size_t>(c.dk);
    std::vector<double> q(dk), k(dk);
    detail::fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(head * Q + query) * dk, dk, 1.0, q.data());
    detail::fillNormals(c.seed, kStreamKeys, static_cast<std::uint64_t>(head * K + key) * dk, dk, 1.0, k.data());
    double dot = 0;
    for (std::size_t x = 0; x < dk; ++x) dot += q[x] * k[x];
    return dot / std::sqrt(static_cast<double>(c.dk));
}

namespace {

Result<void> checkCell(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    if (head < 0 || head >= params.bias.slopes.heads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--head must be between 0 and {}, got {}", params.bias.slopes.heads - 1, head));
    if (query < 0 || query >= params.bias.queries)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query must be between 0 and {}, got {}", params.bias.queries - 1, query));
    return {};
}

}  // namespace

Result<std::vector<double>> attentionRow(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    auto slopes = validateAttention(params);
    if (!slopes) return slopes;
    if (auto ok = checkCell(params, head, query); !ok) return std::unexpected(ok.error());
    detail::ReferenceRows rows(params, std::move(*slopes));
    std::vector<double> out(static_cast<std::size_t>(params.bias.keyCount()));
    rows.probabilities(head, query, out);
    return out;
}

Result<AttentionStages> attentionStages(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    if (auto ok = checkCell(params, head, query); !ok) return std::unexpected(ok.error());
    const auto K = static_cast<std::size_t>(params.bias.keyCount());
    const double slope = (*slopes)[static_cast<std::size_t>(head)];
    detail::ReferenceRows rows(params, std::move(*slopes));
    AttentionStages s;
    s.content.resize(K);
    rows.content(head, query, s.content);
    s.withBias.resize(K);
    s.masked.resize(K);
    const auto n = static_cast<std::size_t>(detail::allowedKeys(params.bias, query));
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < K; ++j) {
        const double b = biasValue(params.bias, slope, head, query, static_cast<std::int64_t>(j));
        s.withBias[j] = s.content[j] + b;
        s.masked[j] = j >= n ? -inf : b == -inf ? -inf : s.withBias[j] / params.content.temperature;
    }
    s.probabilities.resize(K);
    rows.probabilities(head, query, s.probabilities);
    return s;
}

// ---------------------------------------------------------------------------
// Fast path

namespace {

// Rows per block: the block (rows x K values) stays within half the L2 cache of one core.
constexpr std::uint64_t kBlockBytes = std::uint64_t{512} << 10;
constexpr std::int64_t kMaxBlockRows = 256;
// Key vectors of one head are cached up to this size; beyond it they are drawn per key panel.
constexpr std::uint64_t kKeyCacheBytes = std::uint64_t{64} << 20;
constexpr std::int64_t kKeyPanel = 1024;

void gemm(int m, int n, int k, const float* a, const float* b, float* c, int ldc) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, k, b, k, 0.0f, c, ldc);
}
void gemm(int m, int n, int k, const double* a, const double* b, double* c, int ldc) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, ldc);
}

// We parallelise over (head, row block) ourselves; BLAS threads on top would oversubscribe
// the cores, and a single-threaded product gives the same bits on any thread count.
void singleThreadedBlas() {
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

bool isDistanceMode(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Symmetric || mode == BiasMode::Clamped;
}

// What one head needs: its bias template already divided by the temperature, and (qk) its
// key vectors when they are small enough to keep.
template <class T>
struct HeadData {
    std::vector<T> bias;
    std::vector<T> keys;  // (K, dk) or empty
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
        : m_params(params), m_slopes(slopes), m_heads(params.bias.slopes.heads), m_queries(params.bias.queries),
          m_keys(params.bias.keyCount()), m_dk(params.content.dk) {
        const auto rows = kBlockBytes / (static_cast<std::uint64_t>(m_keys) * sizeof(T));
        m_blockRows = std::clamp<std::int64_t>(static_cast<std::int64_t>(rows), 1, kMaxBlockRows);
        const double t = params.content.temperature;
        m_alpha = static_cast<T>(params.content.kind == ContentKind::Qk
                                     ? 1.0 / (std::sqrt(static_cast<double>(m_dk)) * t)
                                     : 1.0 / t);
        m_cacheKeys = params.content.kind == ContentKind::Qk &&
                      static_cast<std::uint64_t>(m_keys) * m_dk * sizeof(T) <= kKeyCacheBytes;
    }

    [[nodiscard]] std::int64_t blockRows() const { return m_blockRows; }
    [[nodiscard]] std::int64_t blockCount() const { return (m_queries + m_blockRows - 1) / m_blockRows; }
    [[nodiscard]] bool cachesKeys() const { return m_cacheKeys; }
    [[nodiscard]] std::uint64_t headBytes() const {
        const std::uint64_t n = static_cast<std::uint64_t>(templateLength()) +
                                (m_cacheKeys ? static_cast<std::uint64_t>(m_keys) * m_dk : 0);
        return n * sizeof(T);
    }

    // The bias template of head h (see bias.cpp): distance modes hold the cell at distance
    // K - 1 - x at x, so row p is the slice starting at K - 1 - p; key modes hold key j's value.
    void buildTemplate(std::int64_t h, HeadData<T>& d) const {
        const BiasParams& b = m_params.bias;
        const double slope = m_slopes[static_cast<std::size_t>(h)];
        d.bias.resize(static_cast<std::size_t>(templateLength()));
        for (std::int64_t x = 0; x < templateLength(); ++x) {
            const auto cell = biasCell(b.mode, slope, m_keys - 1, x, m_keys);
            // Cells past the last key in causal distance templates are never read.
            const double v = cell ? roundTo(b.dtype, *cell) : 0.0;
            d.bias[static_cast<std::size_t>(x)] = static_cast<T>(v / m_params.content.temperature);
        }
    }

    // Key vectors [j0, j1) of head h.
    void drawKeys(std::int64_t h, std::int64_t j0, std::int64_t j1, T* out) const {
        detail::fillNormals(m_params.content.seed, kStreamKeys, static_cast<std::uint64_t>(h * m_keys + j0) * m_dk,
                            static_cast<std::uint64_t>((j1 - j0) * m_dk), 1.0, out);
    }

    // Probabilities of rows [i0, i1) of head h into out (row stride K).
    void compute(std::int64_t h, std::int64_t i0, std::int64_t i1, const HeadData<T>& d, T* out,
                 Scratch<T>& s) const {
        const BiasParams& b = m_params.bias;
        const ContentParams& c = m_params.content;
        const auto M = i1 - i0;
        const std::int64_t nMax = detail::allowedKeys(b, i1 - 1);
        bool hasContent = true;
        switch (c.kind) {
            case ContentKind::Zero: hasContent = false; break;
            case ContentKind::Gaussian:
                for (std::int64_t i = i0; i < i1; ++i)
                    detail::fillNormals(c.seed, kStreamGaussian, static_cast<std::uint64_t>(h * m_queries + i) * m_keys,
                                        static_cast<std::uint64_t>(detail::allowedKeys(b, i)), c.sigma,
                                        out + (i - i0) * m_keys);
                break;
            case ContentKind::Qk:
                if (nMax == 0) break;
                s.q.resize(static_cast<std::size_t>(M * m_dk));
                detail::fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(h * m_queries + i0) * m_dk,
                                    static_cast<std::uint64_t>(M * m_dk), 1.0, s.q.data());
                if (!d.keys.empty()) {
                    gemm(static_cast<int>(M), static_cast<int>(nMax), static_cast<int>(m_dk), s.q.data(),
                         d.keys.data(), out, static_cast<int>(m_keys));
                } else {
                    s.k.resize(static_cast<std::size_t>(kKeyPanel * m_dk));
                    for (std::int64_t j0 = 0; j0 < nMax; j0 += kKeyPanel) {
                        const std::int64_t j1 = std::min(nMax, j0 + kKeyPanel);
                        drawKeys(h, j0, j1, s.k.data());
                        gemm(static_cast<int>(M), static_cast<int>(j1 - j0), static_cast<int>(m_dk), s.q.data(),
                             s.k.data(), out + j0, static_cast<int>(m_keys));
                    }
                }
                break;
        }
        for (std::int64_t i = i0; i < i1; ++i) {
            T* row = out + (i - i0) * m_keys;
            const std::int64_t n = detail::allowedKeys(b, i);
            const T* bias = d.bias.data() + (isDistanceMode(b.mode) ? m_keys - 1 - b.queryPosition(i) : 0);
            bool ok = true;
            if (n > 0) {
                const T max = detail::logitsMax(row, hasContent ? row : nullptr, m_alpha, bias, n);
                ok = std::isfinite(max);
                if (ok) {
                    const double sum = detail::expSum(row, max, n);
                    ok = std::isfinite(sum) && sum > 0;
                    if (ok) detail::scaleRow(row, static_cast<T>(1.0 / sum), n);
                }
            }
            if (!ok) {
                // Rare: infinite logits (an overflowing dtype bias, a huge sigma or a tiny
                // temperature). The reference path gives the defined answer.
                if (!s.reference) s.reference.emplace(m_params, m_slopes);
                s.row.resize(static_cast<std::size_t>(m_keys));
                s.reference->probabilities(h, i, s.row);
                for (std::int64_t j = 0; j < n; ++j) row[j] = static_cast<T>(s.row[static_cast<std::size_t>(j)]);
            }
            std::fill(row + n, row + m_keys, T(0));
        }
    }

private:
    [[nodiscard]] std::int64_t templateLength() const {
        return isDistanceMode(m_params.bias.mode) ? m_queries + m_keys - 1 : m_keys;
    }

    const AttentionParams& m_params;
    const std::vector<double>& m_slopes;
    std::int64_t m_heads, m_queries, m_keys, m_dk;
    std::int64_t m_blockRows = 1;
    T m_alpha{};
    bool m_cacheKeys = false;
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

template <class T>
Result<void> runAttention(const AttentionParams& params, const std::vector<double>& slopes, Tensor& tensor,
                          unsigned threads, const ProgressFn& progress) {
    singleThreadedBlas();
    const BiasParams& b = params.bias;
    const std::int64_t H = b.slopes.heads, Q = b.queries, K = b.keyCount(), dk = params.content.dk;
    const BlockKernel<T> kernel(params, slopes);
    const std::int64_t B = kernel.blockRows(), nb = kernel.blockCount();
    const bool inPlace = computesInPlace<T>(b);
    const unsigned workers = detail::resolveThreads(threads);
    const std::uint64_t totalRows = static_cast<std::uint64_t>(H) * Q;
    // Heads are processed in groups whose templates and key vectors fit a fixed cache budget.
    const std::int64_t group = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(kKeyCacheBytes / std::max<std::uint64_t>(kernel.headBytes(), 1)), 1, H);

    std::atomic<bool> cancelled{false};
    std::atomic<std::uint64_t> rowsDone{0};
    std::mutex errorMutex;
    std::optional<Error> error;
    auto record = [&](Error e) {
        std::lock_guard lock(errorMutex);
        if (!error) error = std::move(e);
        cancelled = true;
    };

    std::vector<HeadData<T>> heads;
    for (std::int64_t h0 = 0; h0 < H && !cancelled; h0 += group) {
        const std::int64_t h1 = std::min(H, h0 + group);
        try {
            heads.assign(static_cast<std::size_t>(h1 - h0), {});
            for (std::int64_t h = h0; h < h1; ++h) {
                kernel.buildTemplate(h, heads[static_cast<std::size_t>(h - h0)]);
                if (kernel.cachesKeys()) heads[static_cast<std::size_t>(h - h0)].keys.resize(static_cast<std::size_t>(K * dk));
            }
        } catch (const std::bad_alloc&) {
            return fail(ErrorCode::TooLarge, "out of memory for the attention working buffers");
        }
        if (kernel.cachesKeys()) {
            // Key vectors of the group, drawn in parallel in panels of rows.
            const std::uint64_t panels = static_cast<std::uint64_t>(h1 - h0) * ((K + kKeyPanel - 1) / kKeyPanel);
            const std::uint64_t perHead = (K + kKeyPanel - 1) / kKeyPanel;
            detail::parallelFor(panels, workers, 1, [&](std::uint64_t p0, std::uint64_t p1) {
                for (std::uint64_t p = p0; p < p1; ++p) {
                    const auto h = static_cast<std::int64_t>(p / perHead);
                    const auto j0 = static_cast<std::int64_t>(p % perHead) * kKeyPanel;
                    const std::int64_t j1 = std::min(K, j0 + kKeyPanel);
                    kernel.drawKeys(h0 + h, j0, j1, heads[static_cast<std::size_t>(h)].keys.data() + j0 * dk);
                }
            });
        }
        const std::uint64_t items = static_cast<std::uint64_t>(h1 - h0) * nb;
        std::atomic<std::uint64_t> next{0};
        detail::parallelFor(workers, workers, 1, [&](std::uint64_t w, std::uint64_t) {
            try {
                Scratch<T> s;
                if (!inPlace) s.block.resize(static_cast<std::size_t>(B * K));
                for (std::uint64_t it = next++; it < items && !cancelled; it = next++) {
                    const std::int64_t h = h0 + static_cast<std::int64_t>(it / nb);
                    const std::int64_t i0 = static_cast<std::int64_t>(it % nb) * B, i1 = std::min(Q, i0 + B);
                    T* dst = inPlace ? reinterpret_cast<T*>(tensor.bytes()) + (h * Q + i0) * K : s.block.data();
                    kernel.compute(h, i0, i1, heads[static_cast<std::size_t>(h - h0)], dst, s);
                    if (!inPlace) storeBlock(b, h, i0, i1, dst, tensor.bytes());
                    const std::uint64_t done = rowsDone += static_cast<std::uint64_t>(i1 - i0);
                    // Only the calling thread reports, so the callback never runs concurrently.
                    if (w == 0 && progress && !progress(done, totalRows)) cancelled = true;
                }
            } catch (const std::bad_alloc&) {
                record(Error{ErrorCode::TooLarge, "out of memory for the attention working buffers"});
            } catch (const std::exception& e) {
                record(Error{ErrorCode::Internal, fmt::format("attention: {}", e.what())});
            }
        });
    }
    if (error) return std::unexpected(*error);
    if (cancelled) return fail(ErrorCode::Cancelled, "attention computation cancelled");
    if (progress) (void)progress(totalRows, totalRows);
    return {};
}

}  // namespace

Result<Tensor> computeAttention(const AttentionParams& params, std::uint64_t budget, unsigned threads,
                                const ProgressFn& progress) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    auto tensor = Tensor::allocate(biasShape(params.bias), params.bias.dtype, budget, "attention tensor");
    if (!tensor) return tensor;
    auto ok = params.bias.dtype == DType::F64 ? runAttention<double>(params, *slopes, *tensor, threads, progress)
                                              : runAttention<float>(params, *slopes, *tensor, threads, progress);
    if (!ok) return std::unexpected(ok.error());
    tensor->metadata = attentionMetadata(params);
    return tensor;
}

// ---------------------------------------------------------------------------
// Streaming source

namespace {

// Memory the source may keep between reads (computed blocks and per-head data).
constexpr std::uint64_t kSourceCacheBytes = std::uint64_t{256} << 20;

// Computes the same blocks as computeAttention (same boundaries, same kernel), so an export
// streamed from here holds the same numbers as the in-memory tensor. Blocks and head data are
// kept in small first-in-first-out caches: a sequential hqk export computes each block once;
// a qkh export needs every head's block of the current query rows, kept while they fit.
template <class T>
class AttentionSource final : public TensorSource {
public:
    AttentionSource(AttentionParams params, std::vector<double> slopes)
        : m_params(std::move(params)), m_slopes(std::move(slopes)), m_kernel(m_params, m_slopes) {
        const BiasParams& b = m_params.bias;
        const std::uint64_t blockBytes =
            static_cast<std::uint64_t>(m_kernel.blockRows()) * b.keyCount() * sizeof(T);
        m_blockSlots = std::max<std::uint64_t>(1, kSourceCacheBytes / 2 / blockBytes);
        m_headSlots = std::max<std::uint64_t>(1, kSourceCacheBytes / 2 / std::max<std::uint64_t>(m_kernel.headBytes(), 1));
    }

    Shape shape() const override { return biasShape(m_params.bias); }
    DType dtype() const override { return m_params.bias.dtype; }
    std::map<std::string, std::string> metadata() const override { return attentionMetadata(m_params); }
    std::uint64_t preferredChunk() const override {
        const BiasParams& b = m_params.bias;
        const std::uint64_t row = static_cast<std::uint64_t>(b.keyCount()) *
                                  (b.layout == Layout::Qkh ? static_cast<std::uint64_t>(b.slopes.heads) : 1);
        return std::max<std::uint64_t>(row, (std::uint64_t{4} << 20) / row * row);
    }

    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        const BiasParams& b = m_params.bias;
        const std::int64_t H = b.slopes.heads, Q = b.queries, K = b.keyCount();
        const std::size_t es = dtypeSize(b.dtype);
        if (first + count > static_cast<std::uint64_t>(H) * Q * K)
            return fail(ErrorCode::Internal, "attention source: read past the end");
        std::lock_guard lock(m_mutex);
        singleThreadedBlas();
        try {
            const std::uint64_t end = first + count;
            if (b.layout != Layout::Qkh) {
                for (std::uint64_t e = first; e < end;) {
                    const std::uint64_t row = e / K;
                    const auto h = static_cast<std::int64_t>(row / Q), i = static_cast<std::int64_t>(row % Q);
                    const auto j0 = static_cast<std::int64_t>(e % K);
                    const auto j1 = static_cast<std::int64_t>(std::min<std::uint64_t>(K, j0 + (end - e)));
                    const T* values = rowOf(h, i);
                    std::byte* dst = out + (e - first) * es;
                    if (computesInPlace<T>(b))
                        std::memcpy(dst, values + j0, static_cast<std::size_t>(j1 - j0) * sizeof(T));
                    else
                        for (std::int64_t j = j0; j < j1; ++j)
                            storeAs(b.dtype, static_cast<double>(values[j]), dst + static_cast<std::size_t>(j - j0) * es);
                    e += static_cast<std::uint64_t>(j1 - j0);
                }
                return {};
            }
            // qkh: element e is cell e / H of head e % H. Heads outermost, so each head's block
            // is computed at most once per read even when they do not all fit the cache.
            const std::uint64_t cell0 = first / H, cell1 = (end - 1) / H;
            for (std::int64_t h = 0; h < H; ++h)
                for (std::uint64_t cell = cell0; cell <= cell1; ++cell) {
                    const std::uint64_t e = cell * H + static_cast<std::uint64_t>(h);
                    if (e < first || e >= end) continue;
                    const T* values = rowOf(h, static_cast<std::int64_t>(cell / K));
                    storeAs(b.dtype, static_cast<double>(values[cell % K]), out + (e - first) * es);
                }
            return {};
        } catch (const std::bad_alloc&) {
            return fail(ErrorCode::TooLarge, "out of memory for the attention working buffers");
        }
    }

private:
    struct Block {
        std::int64_t head;
        std::int64_t index;
        std::vector<T> values;
    };
    struct Head {
        std::int64_t head;
        HeadData<T> data;
    };

    // Row i of head h, computing (and caching) its block when needed.
    const T* rowOf(std::int64_t h, std::int64_t i) const {
        const std::int64_t B = m_kernel.blockRows(), K = m_params.bias.keyCount();
        const std::int64_t index = i / B;
        for (const auto& blk : m_blocks)
            if (blk.head == h && blk.index == index) return blk.values.data() + (i - index * B) * K;
        if (m_blocks.size() >= m_blockSlots) m_blocks.erase(m_blocks.begin());
        const std::int64_t i0 = index * B, i1 = std::min(m_params.bias.queries, i0 + B);
        Block blk{h, index, std::vector<T>(static_cast<std::size_t>((i1 - i0) * K))};
        m_kernel.compute(h, i0, i1, headData(h), blk.values.data(), m_scratch);
        m_blocks.push_back(std::move(blk));
        return m_blocks.back().values.data() + (i - i0) * K;
    }

    const HeadData<T>& headData(std::int64_t h) const {
        for (const auto& hd : m_headCache)
            if (hd.head == h) return hd.data;
        if (m_headCache.size() >= m_headSlots) m_headCache.erase(m_headCache.begin());
        Head hd{h, {}};
        m_kernel.buildTemplate(h, hd.data);
        if (m_kernel.cachesKeys()) {
            const std::int64_t K = m_params.bias.keyCount();
            hd.data.keys.resize(static_cast<std::size_t>(K * m_params.content.dk));
            m_kernel.drawKeys(h, 0, K, hd.data.keys.data());
        }
        m_headCache.push_back(std::move(hd));
        return m_headCache.back().data;
    }

    AttentionParams m_params;
    std::vector<double> m_slopes;
    BlockKernel<T> m_kernel;
    std::uint64_t m_blockSlots = 1;
    std::uint64_t m_headSlots = 1;
    mutable std::mutex m_mutex;
    mutable std::vector<Block> m_blocks;
    mutable std::vector<Head> m_headCache;
    mutable Scratch<T> m_scratch;
};

}  // namespace

Result<std::unique_ptr<TensorSource>> attentionSource(const AttentionParams& params) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    if (params.bias.dtype == DType::F64)
        return std::make_unique<AttentionSource<double>>(params, std::move(*slopes));
    return std::make_unique<AttentionSource<float>>(params, std::move(*slopes));
}

}  // namespace alibi
