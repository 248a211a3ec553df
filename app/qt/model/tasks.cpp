// Export and diagnosis tasks over the core.
#include "tasks.hpp"

#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <QFileInfo>

namespace alibi::qt {

Result<Tensor> slopesTensor(const SlopeParams& params) {
    auto slopes = computeSlopes(params);
    if (!slopes) return std::unexpected(slopes.error());
    Tensor t(Shape{static_cast<std::int64_t>(slopes->size())}, DType::F64);
    for (std::size_t h = 0; h < slopes->size(); ++h) t.set(h, (*slopes)[h]);
    t.metadata["what"] = "slopes";
    t.metadata["scheme"] = std::string(schemeName(params.scheme));
    t.metadata["heads"] = std::to_string(params.heads);
    return t;
}

Result<void> exportSessionTensor(const Session& session, ExportWhat what, const std::string& path, FileFormat format,
                                 const ProgressFn& progress) {
    ExportOptions options;
    options.format = format;
    options.progress = progress;
    options.allowNonFinite = true;
    switch (what) {
        case ExportWhat::Bias:
        case ExportWhat::Attention: {
            auto e = what == ExportWhat::Bias ? sessionBiasExport(session, path, format)
                                              : sessionAttentionExport(session, path, format);
            if (!e) return std::unexpected(e.error());
            options.tensorName = e->request.tensorName;
            return exportTensor(*e->source, path, options);
        }
        case ExportWhat::Slopes: {
            auto tensor = slopesTensor(session.attention.bias.slopes);
            if (!tensor) return std::unexpected(tensor.error());
            options.tensorName = "slopes";
            return exportTensor(*tensorSource(*tensor), path, options);
        }
    }
    return fail(ErrorCode::Internal, "unknown export kind");
}

Result<DiagnosisReport> diagnoseTensor(std::shared_ptr<const Tensor> kept, const QString& source,
                                       const std::function<bool()>& cancelled) {
    const Tensor& tensor = *kept;
    DiagnosisReport report;
    report.source = source;
    report.shape = tensor.shape();
    report.dtype = tensor.dtype();
    auto diagnosis = diagnose(tensor);
    if (!diagnosis) return std::unexpected(diagnosis.error());
    report.diagnosis = std::move(*diagnosis);
    if (cancelled && cancelled()) return fail(ErrorCode::Cancelled, "the diagnosis was cancelled");
    report.tensor = std::move(kept);
    return report;
}

Result<DiagnosisReport> diagnoseFile(const QString& path, const ReadOptions& read, std::uint64_t budget) {
    auto loaded = loadTensor(path.toStdString(), TensorReadOptions{.tensorName = {}, .budget = budget, .read = read});
    if (!loaded) return std::unexpected(loaded.error());
    if (read.cancelled && read.cancelled()) return fail(ErrorCode::Cancelled, "the diagnosis was cancelled");
    return diagnoseTensor(std::make_shared<const Tensor>(std::move(loaded->tensor)), QFileInfo(path).fileName(),
                          read.cancelled);
}

}  // namespace alibi::qt
