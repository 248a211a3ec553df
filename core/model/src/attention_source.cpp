// attentionSource: the probabilities streamed in the reader's order for exports of any size,
// computed by the same BlockKernel as computeAttention, so the numbers are the same.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <alibi/base/parallel.hpp>
#include "attention_blocked.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace alibi {

namespace {
using detail::BlockKernel;
using detail::computesInPlace;
using detail::HeadData;
using detail::Scratch;
}  // namespace

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
    AttentionSource(AttentionParams params, std::vector<double> slopes, unsigned threads)
        : m_params(std::move(params)),
          m_slopes(std::move(slopes)),
          m_kernel(m_params, m_slopes),
          m_threads(detail::resolveThreads(threads)) {
        const BiasParams& b = m_params.bias;
        const std::uint64_t blockBytes = static_cast<std::uint64_t>(m_kernel.blockRows()) * b.keyCount() * sizeof(T);
        // A sequential reader (hqk, 1hqk, flat) needs the blocks of one batch at a time; qkh
        // needs every head's block of the current query rows, kept while they fit.
        m_batch = b.layout == Layout::Qkh ? 1 : std::max<std::int64_t>(1, 2 * static_cast<std::int64_t>(m_threads));
        m_blockSlots = b.layout == Layout::Qkh ? std::max<std::uint64_t>(1, kSourceCacheBytes / 2 / blockBytes)
                                               : 2 * static_cast<std::uint64_t>(m_batch);
        m_headSlots =
            std::max<std::uint64_t>(1, kSourceCacheBytes / 2 / std::max<std::uint64_t>(m_kernel.headBytes(), 1));
        // A sequential reader moves from head to head: the current and the previous one suffice.
        if (b.layout != Layout::Qkh) m_headSlots = std::min<std::uint64_t>(m_headSlots, 2);
    }

    Shape shape() const override { return biasShape(m_params.bias); }
    DType dtype() const override { return m_params.bias.dtype; }
    std::map<std::string, std::string> metadata() const override { return attentionMetadata(m_params); }
    std::uint64_t preferredChunk() const override {
        const BiasParams& b = m_params.bias;
        // Whole blocks for the sequential layouts, so read() can compute them in place.
        const std::uint64_t unit =
            static_cast<std::uint64_t>(b.keyCount()) *
            (b.layout == Layout::Qkh ? static_cast<std::uint64_t>(b.slopes.heads)
                                     : static_cast<std::uint64_t>(std::min(m_kernel.blockRows(), b.queries)));
        return std::max<std::uint64_t>(unit, (std::uint64_t{4} << 20) / unit * unit);
    }

    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        const BiasParams& b = m_params.bias;
        const std::int64_t H = b.slopes.heads, Q = b.queries, K = b.keyCount();
        const std::size_t es = dtypeSize(b.dtype);
        if (first + count > static_cast<std::uint64_t>(H) * Q * K)
            return fail(ErrorCode::Internal, "attention source: read past the end");
        std::lock_guard lock(m_mutex);
        try {
            const std::uint64_t end = first + count;
            if (b.layout != Layout::Qkh) {
                // Whole blocks inside the range are computed straight into `out` (no cache, no
                // copy), all blocks of a head at once on the source's threads; the pieces of
                // blocks at either end go through the block cache.
                const std::int64_t B = m_kernel.blockRows();
                std::vector<Direct> direct;
                for (std::uint64_t e = first; e < end;) {
                    const std::uint64_t row = e / K;
                    const auto h = static_cast<std::int64_t>(row / Q), i = static_cast<std::int64_t>(row % Q);
                    const auto j0 = static_cast<std::int64_t>(e % K);
                    const std::int64_t i1 = std::min(Q, i + B);
                    if (computesInPlace<T>(b) && j0 == 0 && i % B == 0 &&
                        e + static_cast<std::uint64_t>((i1 - i) * K) <= end) {
                        direct.push_back(Direct{h, i, i1, reinterpret_cast<T*>(out + (e - first) * es)});
                        e += static_cast<std::uint64_t>((i1 - i) * K);
                        continue;
                    }
                    const auto j1 = static_cast<std::int64_t>(std::min<std::uint64_t>(K, j0 + (end - e)));
                    const T* values = rowOf(h, i);
                    std::byte* dst = out + (e - first) * es;
                    if (computesInPlace<T>(b))
                        std::memcpy(dst, values + j0, static_cast<std::size_t>(j1 - j0) * sizeof(T));
                    else
                        for (std::int64_t j = j0; j < j1; ++j)
                            storeAs(b.dtype, static_cast<double>(values[j]),
                                    dst + static_cast<std::size_t>(j - j0) * es);
                    e += static_cast<std::uint64_t>(j1 - j0);
                }
                computeDirect(direct);
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

    struct Direct {
        std::int64_t head, i0, i1;
        T* out;
    };

    // Blocks written straight into the reader's buffer, grouped by head (their head data is
    // fetched once per head, before the threads start).
    void computeDirect(const std::vector<Direct>& direct) const {
        for (std::size_t g0 = 0; g0 < direct.size();) {
            std::size_t g1 = g0;
            while (g1 < direct.size() && direct[g1].head == direct[g0].head) ++g1;
            const HeadData<T>& d = headData(direct[g0].head);
            // Blocks are claimed one at a time, the last (costliest under a causal mask: they
            // have the most allowed keys) first, so the threads finish together instead of one
            // waiting for another's larger half.
            std::atomic<std::size_t> next{0};
            const std::size_t n = g1 - g0;
            detail::parallelFor(std::min<std::size_t>(n, m_threads), m_threads, 1, [&](std::uint64_t, std::uint64_t) {
                Scratch<T> scratch;
                for (std::size_t x = next.fetch_add(1, std::memory_order_relaxed); x < n;
                     x = next.fetch_add(1, std::memory_order_relaxed)) {
                    const Direct& blk = direct[g1 - 1 - x];
                    m_kernel.compute(blk.head, blk.i0, blk.i1, d, blk.out, scratch);
                }
            });
            g0 = g1;
        }
    }

    // Row i of head h, computing (and caching) its block when needed, together with the next
    // blocks of the head that a sequential reader asks for next, on the source's threads.
    // Evicted blocks lend their buffers to new ones, so memory is touched once, not per block.
    const T* rowOf(std::int64_t h, std::int64_t i) const {
        const std::int64_t B = m_kernel.blockRows(), K = m_params.bias.keyCount();
        const std::int64_t index = i / B;
        if (const T* v = cached(h, index)) return v + (i - index * B) * K;
        const HeadData<T>& d = headData(h);
        std::vector<std::size_t> slots;
        for (std::int64_t x = index; x < std::min(m_kernel.blockCount(), index + m_batch); ++x)
            if (x == index || !cached(h, x)) slots.push_back(takeSlot(h, x));
        detail::parallelFor(slots.size(), m_threads, 1, [&](std::uint64_t b0, std::uint64_t b1) {
            Scratch<T> scratch;
            for (std::uint64_t k = b0; k < b1; ++k) {
                Block& blk = m_blocks[slots[k]];
                const std::int64_t i0 = blk.index * B, i1 = std::min(m_params.bias.queries, i0 + B);
                m_kernel.compute(h, i0, i1, d, blk.values.data(), scratch);
            }
        });
        return m_blocks[slots.front()].values.data() + (i - index * B) * K;
    }

    const T* cached(std::int64_t h, std::int64_t index) const {
        for (const auto& blk : m_blocks)
            if (blk.head == h && blk.index == index) return blk.values.data();
        return nullptr;
    }

    // A block slot for (h, index): a new one while there is room, else the oldest, reused.
    std::size_t takeSlot(std::int64_t h, std::int64_t index) const {
        const std::int64_t B = m_kernel.blockRows(), K = m_params.bias.keyCount();
        const auto size = static_cast<std::size_t>((std::min(m_params.bias.queries, (index + 1) * B) - index * B) * K);
        std::size_t slot = m_blocks.size();
        if (m_blocks.size() < m_blockSlots) {
            m_blocks.push_back(Block{h, index, {}});
        } else {
            slot = m_nextVictim;
            m_nextVictim = (m_nextVictim + 1) % m_blocks.size();
            m_blocks[slot].head = h;
            m_blocks[slot].index = index;
        }
        m_blocks[slot].values.resize(size);
        return slot;
    }

    const HeadData<T>& headData(std::int64_t h) const {
        for (const auto& hd : m_headCache)
            if (hd.head == h) return hd.data;
        Head hd{h, {}};
        if (m_headCache.size() >= m_headSlots) {
            // The evicted head lends its buffers (same sizes): no fresh memory, no page faults.
            hd.data = std::move(m_headCache.front().data);
            m_headCache.erase(m_headCache.begin());
        }
        m_kernel.buildTemplate(h, hd.data);
        if (m_kernel.cachesKeys()) {
            // Drawn in panels on the source's threads (a multiple of 16 keys from the start, so
            // packed panels land where the whole head's packing puts them; the draws are
            // counter-based, so the numbers do not depend on the split).
            const std::int64_t K = m_params.bias.keyCount();
            hd.data.keys.resize(m_kernel.keySize(K));
            const std::int64_t panels = (K + detail::kKeyPanel - 1) / detail::kKeyPanel;
            detail::parallelFor(
                static_cast<std::uint64_t>(panels), m_threads, 1, [&](std::uint64_t b, std::uint64_t e) {
                    const auto j0 = static_cast<std::int64_t>(b) * detail::kKeyPanel;
                    const std::int64_t j1 = std::min(K, static_cast<std::int64_t>(e) * detail::kKeyPanel);
                    m_kernel.drawKeys(h, j0, j1, hd.data.keys.data() + m_kernel.keySize(j0));
                });
        }
        m_headCache.push_back(std::move(hd));
        return m_headCache.back().data;
    }

    AttentionParams m_params;
    std::vector<double> m_slopes;
    BlockKernel<T> m_kernel;
    unsigned m_threads = 1;
    std::int64_t m_batch = 1;
    std::uint64_t m_blockSlots = 1;
    mutable std::size_t m_nextVictim = 0;
    std::uint64_t m_headSlots = 1;
    mutable std::mutex m_mutex;
    mutable std::vector<Block> m_blocks;
    mutable std::vector<Head> m_headCache;
};

}  // namespace

Result<std::unique_ptr<TensorSource>> attentionSource(const AttentionParams& params, unsigned threads) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    if (params.bias.dtype == DType::F64)
        return std::make_unique<AttentionSource<double>>(params, std::move(*slopes), threads);
    return std::make_unique<AttentionSource<float>>(params, std::move(*slopes), threads);
}

}  // namespace alibi
