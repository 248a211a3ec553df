// computeAttention: the whole (H, Q, K) tensor from BlockKernel blocks, on the core's threads,
// heads in groups whose templates and key vectors fit a fixed cache budget.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <alibi/base/parallel.hpp>
#include "attention_blocked.hpp"

#include <fmt/format.h>
#include <atomic>
#include <mutex>
#include <optional>

namespace alibi {

namespace {

using detail::BlockKernel;
using detail::computesInPlace;
using detail::HeadData;
using detail::kKeyCacheBytes;
using detail::kKeyPanel;
using detail::Scratch;
using detail::storeBlock;

template <class T>
Result<void> runAttention(const AttentionParams& params, const std::vector<double>& slopes, Tensor& tensor,
                          unsigned threads, const ProgressFn& progress) {
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
                if (kernel.cachesKeys()) heads[static_cast<std::size_t>(h - h0)].keys.resize(kernel.keySize(K));
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
                // The calling thread asks once before taking work: pool threads may take every
                // item before it takes one, and a cancel must still be heard.
                if (w == 0 && progress && !progress(rowsDone.load(), totalRows)) cancelled = true;
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

}  // namespace alibi
