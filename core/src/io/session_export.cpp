// Session exports for the explorers (see session_export.hpp).
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>

#include <fmt/format.h>

namespace alibi {

namespace {

// The batch as a source: shape, dtype and metadata at once (so planning an export costs nothing),
// the tensor itself built whole on the first read, within the memory budget checked up front.
class BatchBiasSource final : public TensorSource {
public:
    BatchBiasSource(BiasParams bias, BatchParams batch, std::uint64_t budget)
        : m_bias(std::move(bias)), m_batch(std::move(batch)), m_budget(budget) {}
    [[nodiscard]] Shape shape() const override {
        const std::int64_t t = m_bias.queries;
        return {m_batch.batchSize(), m_bias.slopes.heads, t, t};
    }
    [[nodiscard]] DType dtype() const override { return m_bias.dtype; }
    [[nodiscard]] std::map<std::string, std::string> metadata() const override {
        auto m = biasMetadata(m_bias);
        for (auto& [key, value] : batchMetadata(m_batch)) m[key] = value;
        return m;
    }
    [[nodiscard]] Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        if (!m_view) {
            auto tensor = buildBatchBias(m_bias, m_batch, m_budget);
            if (!tensor) return std::unexpected(tensor.error());
            m_tensor = std::make_unique<Tensor>(std::move(*tensor));
            m_view = tensorSource(*m_tensor);
        }
        return m_view->read(first, count, out);
    }

private:
    BiasParams m_bias;
    BatchParams m_batch;
    std::uint64_t m_budget;
    mutable std::unique_ptr<Tensor> m_tensor;
    mutable std::unique_ptr<TensorSource> m_view;
};

}  // namespace

Result<SessionExport> sessionBiasExport(const Session& session, std::string path, FileFormat format) {
    const BiasParams& bias = session.attention.bias;
    SessionExport out;
    if (session.batch.active()) {
        if (auto ok = validateBias(bias); !ok) return std::unexpected(ok.error());
        if (auto ok = validateBatch(bias, session.batch); !ok) return std::unexpected(ok.error());
        auto source = std::make_unique<BatchBiasSource>(bias, session.batch, session.maxMemory);
        const std::uint64_t bytes = source->size() * dtypeSize(bias.dtype);
        if (bytes > session.maxMemory)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("the batch tensor takes {} bytes, more than the memory budget of {} bytes (a batch "
                                    "is built whole before it is written): lower B, H or T, or raise max_memory",
                                    bytes, session.maxMemory));
        out.source = std::move(source);
        out.request.path = std::move(path);
        out.request.format = format;
        out.request.tensorName = "bias";
        out.request.mask = bias.mask;  // padding and other documents hold it whatever the mode
        return out;
    }
    auto source = biasSource(bias);
    if (!source) return std::unexpected(source.error());
    out.source = std::move(*source);
    out.request = biasExportRequest(bias, std::move(path), format);
    return out;
}

Result<SessionExport> sessionAttentionExport(const Session& session, std::string path, FileFormat format) {
    if (session.batch.active())
        return fail(ErrorCode::InvalidArgument,
                    "the explorer shows a batch's attention but does not export it yet: export the bias (Show: bias), "
                    "whose (B, H, T, T) batch tensor the frameworks feed to their softmax");
    auto source = attentionSource(session.attention);
    if (!source) return std::unexpected(source.error());
    SessionExport out;
    out.source = std::move(*source);
    out.request.path = std::move(path);
    out.request.format = format;
    out.request.tensorName = "attention";
    out.request.layout = session.attention.bias.layout;
    return out;
}

}  // namespace alibi
