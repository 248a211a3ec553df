// Session exports for the explorers (see session_export.hpp).
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/bias.hpp>

#include <fmt/format.h>

#include <functional>

namespace alibi {

namespace {

// A batch tensor as a source: shape, dtype and metadata at once (so planning an export costs
// nothing), the tensor itself built whole by `build` on the first read (the memory budget is
// checked up front by the caller).
class BatchSource final : public TensorSource {
public:
    BatchSource(Shape shape, DType dtype, std::map<std::string, std::string> metadata,
                std::function<Result<Tensor>()> build)
        : m_shape(std::move(shape)), m_dtype(dtype), m_metadata(std::move(metadata)), m_build(std::move(build)) {}
    [[nodiscard]] Shape shape() const override { return m_shape; }
    [[nodiscard]] DType dtype() const override { return m_dtype; }
    [[nodiscard]] std::map<std::string, std::string> metadata() const override { return m_metadata; }
    [[nodiscard]] Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        if (!m_view) {
            auto tensor = m_build();
            if (!tensor) return std::unexpected(tensor.error());
            m_tensor = std::make_unique<Tensor>(std::move(*tensor));
            m_view = tensorSource(*m_tensor);
        }
        return m_view->read(first, count, out);
    }

private:
    Shape m_shape;
    DType m_dtype;
    std::map<std::string, std::string> m_metadata;
    std::function<Result<Tensor>()> m_build;
    mutable std::unique_ptr<Tensor> m_tensor;
    mutable std::unique_ptr<TensorSource> m_view;
};

// The budget check both batch exports make before anything is built.
Result<void> checkBatchBudget(const Session& session, const char* what) {
    const BiasParams& bias = session.attention.bias;
    const std::uint64_t bytes =
        static_cast<std::uint64_t>(session.batch.batchSize()) * static_cast<std::uint64_t>(bias.slopes.heads) *
        static_cast<std::uint64_t>(bias.queries) * static_cast<std::uint64_t>(bias.queries) * dtypeSize(bias.dtype);
    if (bytes > session.maxMemory)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the batch {} tensor takes {} bytes, more than the memory budget of {} bytes (a batch "
                                "is built whole before it is written): lower B, H or T, or raise max_memory",
                                what, bytes, session.maxMemory));
    return {};
}

}  // namespace

Result<SessionExport> sessionBiasExport(const Session& session, std::string path, FileFormat format) {
    const BiasParams& bias = session.attention.bias;
    SessionExport out;
    if (session.batch.active()) {
        if (auto ok = validateBias(bias); !ok) return std::unexpected(ok.error());
        if (auto ok = validateBatch(bias, session.batch); !ok) return std::unexpected(ok.error());
        if (auto ok = checkBatchBudget(session, "bias"); !ok) return std::unexpected(ok.error());
        auto metadata = biasMetadata(bias);
        for (auto& [key, value] : batchMetadata(session.batch)) metadata[key] = value;
        const std::int64_t t = bias.queries;
        out.source = std::make_unique<BatchSource>(
            Shape{session.batch.batchSize(), bias.slopes.heads, t, t}, bias.dtype, std::move(metadata),
            [bias, batch = session.batch, budget = session.maxMemory] { return buildBatchBias(bias, batch, budget); });
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
    if (session.batch.active()) {
        if (auto ok = validateAttention(session.attention); !ok) return std::unexpected(ok.error());
        if (auto ok = validateBatch(session.attention.bias, session.batch); !ok) return std::unexpected(ok.error());
        if (auto ok = checkBatchBudget(session, "attention"); !ok) return std::unexpected(ok.error());
        auto metadata = attentionMetadata(session.attention);
        for (auto& [key, value] : batchMetadata(session.batch)) metadata[key] = value;
        const std::int64_t t = session.attention.bias.queries;
        SessionExport out;
        out.source = std::make_unique<BatchSource>(
            Shape{session.batch.batchSize(), session.attention.bias.slopes.heads, t, t}, session.attention.bias.dtype,
            std::move(metadata), [params = session.attention, batch = session.batch, budget = session.maxMemory] {
                return buildBatchAttention(params, batch, budget);
            });
        out.request.path = std::move(path);
        out.request.format = format;
        out.request.tensorName = "attention";
        return out;
    }
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
