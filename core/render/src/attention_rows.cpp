// PictureRows: sampled float attention rows with cached key vectors.
#include "attention_rows.hpp"

#include <alibi/model/detail/attention_blas.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/attention_kernel.hpp>

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <mutex>
#include <tuple>

namespace alibi::detail {

namespace {

// Key vectors of recent heads, up to this many bytes in all.
constexpr std::size_t kKeyCacheBytes = std::size_t{96} << 20;
// Scratch of one call: rows x K floats.
constexpr std::size_t kChunkBytes = std::size_t{512} << 10;
// Keys too large to cache (K x d_k above a quarter of the cache, e.g. 1 GiB at K = 65536 and
// d_k = 4096) are drawn panel by panel for every call instead: a call then takes up to this many
// bytes of rows, so the draws (K x d_k normals per call) are shared by many rows: a 1080-pixel
// grid's tile (540 rows at K = 65536, 135 MiB) in one call, one draw of its head's keys.
constexpr std::size_t kUncachedChunkBytes = std::size_t{160} << 20;
constexpr std::int64_t kUncachedMaxRows = 640;
// Bytes of one panel of keys drawn at a time (uncached keys).
constexpr std::size_t kPanelBytes = std::size_t{4} << 20;

using KeyId = std::tuple<std::uint64_t, int, std::int64_t, int, int>;  // seed, d_k, K, head, generator

struct KeyEntry {
    std::once_flag drawn;
    std::vector<float> keys;  // (K, d_k)
};

struct KeyCache {
    std::mutex mutex;
    std::map<KeyId, std::shared_ptr<KeyEntry>> entries;
    std::list<KeyId> order;  // most recently used last
    std::size_t bytes = 0;
};

KeyCache& keyCache() {
    static KeyCache cache;
    return cache;
}

std::shared_ptr<const KeyEntry> cachedKeys(std::uint64_t seed, int dk, std::int64_t K, int head, int generator) {
    const KeyId id{seed, dk, K, head, generator};
    const std::size_t size = static_cast<std::size_t>(K) * static_cast<std::size_t>(dk) * sizeof(float);
    std::shared_ptr<KeyEntry> entry;
    {
        KeyCache& cache = keyCache();
        std::lock_guard lock(cache.mutex);
        auto it = cache.entries.find(id);
        if (it != cache.entries.end()) {
            entry = it->second;
            cache.order.remove(id);
            cache.order.push_back(id);
        } else {
            entry = std::make_shared<KeyEntry>();
            if (size <= kKeyCacheBytes / 4) {
                cache.entries.emplace(id, entry);
                cache.order.push_back(id);
                cache.bytes += size;
                while (cache.bytes > kKeyCacheBytes && cache.order.size() > 1) {
                    cache.entries.erase(cache.order.front());
                    cache.order.pop_front();
                    cache.bytes -= size;  // every entry of one picture has the same size
                }
            }
        }
    }
    // Drawn once, outside the lock, by whichever thread gets here first; the others wait.
    std::call_once(entry->drawn, [&] {
        entry->keys.resize(static_cast<std::size_t>(K) * static_cast<std::size_t>(dk));
        fillNormals(seed, kStreamKeys, static_cast<std::uint64_t>(head) * static_cast<std::uint64_t>(K) * dk,
                    static_cast<std::uint64_t>(K) * dk, 1.0, entry->keys.data(), generator);
    });
    return entry;
}

bool isDistanceMode(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Symmetric || mode == BiasMode::Clamped;
}

}  // namespace

void clearPictureKeyCache() {
    KeyCache& cache = keyCache();
    std::lock_guard lock(cache.mutex);
    cache.entries.clear();
    cache.order.clear();
    cache.bytes = 0;
}

struct PictureRows::Impl {
    AttentionParams params;
    std::vector<double> slopes;
    std::int64_t Q = 0, K = 0;
    int dk = 1;
    float alpha = 1;
    int templateHead = -1;
    std::vector<float> bias;  // the head's bias template divided by the temperature
    std::vector<float> q;
    std::vector<float> panel;    // uncached keys: one panel of key vectors
    int keyStep = 1;             // > 1: content of one key in keyStep (a preview)
    std::vector<float> sampled;  // keyStep > 1: one panel's content logits, rows x sampled keys
    bool cachedKeys = true;      // whether the head's key vectors fit the key cache
    std::vector<double> reference;
    std::unique_ptr<ReferenceRows> referenceRows;

    // As computeAttention: distance modes hold the cell at distance K - 1 - x at x, so row p is
    // the slice starting at K - 1 - p; key modes hold key j's value.
    void buildTemplate(int head) {
        if (templateHead == head) return;
        const BiasParams& b = params.bias;
        const double slope = slopes[static_cast<std::size_t>(head)];
        const std::int64_t length = isDistanceMode(b.mode) ? Q + K - 1 : K;
        bias.resize(static_cast<std::size_t>(length));
        for (std::int64_t x = 0; x < length; ++x) {
            const auto cell = biasCell(b.mode, slope, K - 1, x, K);
            const double v = cell ? roundTo(b.dtype, *cell) : 0.0;
            bias[static_cast<std::size_t>(x)] = static_cast<float>(v / params.content.temperature);
        }
        templateHead = head;
    }

    bool sampledContent(int head, std::int64_t M, std::int64_t nMax, std::span<float> out, const PanelFn& panel);
};

// A preview's content (keyStep > 1): q.k for keys 0, s, 2 s, ... (each key's d_k normals drawn
// alone: the generator is counter-based, so they are the exact rows' vectors), a panel of them
// at a time, each logit copied to the keys up to the next sampled one.
bool PictureRows::Impl::sampledContent(int head, std::int64_t M, std::int64_t nMax, std::span<float> out,
                                       const PanelFn& panel) {
    Impl& d = *this;
    const ContentParams& c = d.params.content;
    const std::int64_t K = d.K, s = d.keyStep;
    const std::int64_t count = (nMax + s - 1) / s;
    const std::int64_t panelKeys = std::max<std::int64_t>(
        16, static_cast<std::int64_t>(kPanelBytes / (static_cast<std::size_t>(d.dk) * sizeof(float))));
    const std::int64_t width = std::min(panelKeys, count);
    d.panel.resize(static_cast<std::size_t>(width * d.dk));
    d.sampled.resize(static_cast<std::size_t>(M * width));
    for (std::int64_t k0 = 0; k0 < count; k0 += panelKeys) {
        const std::int64_t k1 = std::min(count, k0 + panelKeys);
        for (std::int64_t k = k0; k < k1; ++k)
            fillNormals(c.seed, kStreamKeys, (static_cast<std::uint64_t>(head) * K + k * s) * d.dk,
                        static_cast<std::uint64_t>(d.dk), 1.0, d.panel.data() + (k - k0) * d.dk, c.generator);
        gemmNT(static_cast<int>(M), static_cast<int>(k1 - k0), d.dk, d.q.data(), d.panel.data(), d.sampled.data(),
               static_cast<int>(k1 - k0));
        for (std::int64_t r = 0; r < M; ++r) {
            float* row = out.data() + r * K;
            const float* logits = d.sampled.data() + r * (k1 - k0);
            for (std::int64_t k = k0; k < k1; ++k)
                std::fill(row + k * s, row + std::min(nMax, (k + 1) * s), logits[k - k0]);
        }
        if (panel && !panel(k1, count)) return false;
    }
    return true;
}

PictureRows::PictureRows(const AttentionParams& params, std::vector<double> slopes, int keyStep)
    : m_impl(std::make_unique<Impl>()) {
    Impl& d = *m_impl;
    d.params = params;
    d.keyStep = params.content.kind == ContentKind::Qk ? std::max(1, keyStep) : 1;
    d.slopes = std::move(slopes);
    d.Q = params.bias.queries;
    d.K = params.bias.keyCount();
    d.dk = params.content.dk;
    const double t = params.content.temperature;
    d.alpha = static_cast<float>(
        params.content.kind == ContentKind::Qk ? 1.0 / (std::sqrt(static_cast<double>(d.dk)) * t) : 1.0 / t);
    d.cachedKeys = static_cast<std::size_t>(d.K) * static_cast<std::size_t>(d.dk) * sizeof(float) <= kKeyCacheBytes / 4;
}

PictureRows::~PictureRows() = default;

std::int64_t PictureRows::chunkRows() const {
    const Impl& d = *m_impl;
    const std::size_t row = static_cast<std::size_t>(d.K) * sizeof(float);
    if (d.params.content.kind == ContentKind::Qk && !d.cachedKeys)
        return std::clamp<std::int64_t>(static_cast<std::int64_t>(kUncachedChunkBytes / row), 1, kUncachedMaxRows);
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(kChunkBytes / row), 1, 64);
}

void PictureRows::compute(int head, std::span<const std::int64_t> queries, std::span<float> out, const PanelFn& panel) {
    Impl& d = *m_impl;
    const BiasParams& b = d.params.bias;
    const ContentParams& c = d.params.content;
    const std::int64_t K = d.K;
    const auto M = static_cast<std::int64_t>(queries.size());
    if (M == 0) return;
    d.buildTemplate(head);
    const std::int64_t nMax = allowedKeys(b, queries.back());
    bool hasContent = true;
    switch (c.kind) {
        case ContentKind::Zero:
            hasContent = false;
            break;
        case ContentKind::Gaussian:
            for (std::int64_t r = 0; r < M; ++r)
                fillNormals(c.seed, kStreamGaussian,
                            static_cast<std::uint64_t>(head * d.Q + queries[static_cast<std::size_t>(r)]) * K,
                            static_cast<std::uint64_t>(allowedKeys(b, queries[static_cast<std::size_t>(r)])), c.sigma,
                            out.data() + r * K, c.generator);
            break;
        case ContentKind::Qk: {
            if (nMax == 0) break;
            d.q.resize(static_cast<std::size_t>(M * d.dk));
            for (std::int64_t r = 0; r < M; ++r)
                fillNormals(c.seed, kStreamQueries,
                            static_cast<std::uint64_t>(head * d.Q + queries[static_cast<std::size_t>(r)]) * d.dk,
                            static_cast<std::uint64_t>(d.dk), 1.0, d.q.data() + r * d.dk, c.generator);
            if (d.keyStep > 1) {
                if (!d.sampledContent(head, M, nMax, out, panel)) return;
                break;
            }
            if (d.cachedKeys) {
                const auto keys = cachedKeys(c.seed, d.dk, K, head, c.generator);
                gemmNT(static_cast<int>(M), static_cast<int>(nMax), d.dk, d.q.data(), keys->keys.data(), out.data(),
                       static_cast<int>(K));
                break;
            }
            // Keys drawn a panel at a time (the same normals as the whole head's draw: the
            // generator is counter-based), never the whole head's gigabyte at once.
            const std::int64_t panelKeys = std::max<std::int64_t>(
                16, static_cast<std::int64_t>(kPanelBytes / (static_cast<std::size_t>(d.dk) * sizeof(float))));
            d.panel.resize(static_cast<std::size_t>(std::min(panelKeys, nMax) * d.dk));
            for (std::int64_t j0 = 0; j0 < nMax; j0 += panelKeys) {
                const std::int64_t j1 = std::min(nMax, j0 + panelKeys);
                fillNormals(c.seed, kStreamKeys, (static_cast<std::uint64_t>(head) * K + j0) * d.dk,
                            static_cast<std::uint64_t>((j1 - j0) * d.dk), 1.0, d.panel.data(), c.generator);
                gemmNT(static_cast<int>(M), static_cast<int>(j1 - j0), d.dk, d.q.data(), d.panel.data(),
                       out.data() + j0, static_cast<int>(K));
                if (panel && !panel(j1, nMax)) return;
            }
            break;
        }
    }
    for (std::int64_t r = 0; r < M; ++r) {
        const std::int64_t i = queries[static_cast<std::size_t>(r)];
        float* row = out.data() + r * K;
        const std::int64_t n = allowedKeys(b, i);
        const float* bias = d.bias.data() + (isDistanceMode(b.mode) ? K - 1 - b.queryPosition(i) : 0);
        bool ok = true;
        if (n > 0) {
            const float max = logitsMax(row, hasContent ? row : nullptr, d.alpha, bias, n);
            ok = std::isfinite(max);
            if (ok) {
                const double sum = expSum(row, max, n);
                ok = std::isfinite(sum) && sum > 0;
                if (ok) scaleRow(row, static_cast<float>(1.0 / sum), n);
            }
        }
        if (!ok) {
            // Infinite logits (an overflowing dtype bias, a huge sigma): the reference answers.
            if (!d.referenceRows) d.referenceRows = std::make_unique<ReferenceRows>(d.params, d.slopes);
            d.reference.resize(static_cast<std::size_t>(K));
            d.referenceRows->probabilities(head, i, d.reference);
            for (std::int64_t j = 0; j < n; ++j) row[j] = static_cast<float>(d.reference[static_cast<std::size_t>(j)]);
        }
        std::fill(row + std::max<std::int64_t>(n, 0), row + K, 0.0f);
    }
}

}  // namespace alibi::detail
