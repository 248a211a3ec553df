// Export and diagnosis tasks over the core.
#include "tasks.hpp"

#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <QFileInfo>

#include <algorithm>
#include <cmath>

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

Result<DiagnosisReport> diagnoseTensor(std::shared_ptr<const Tensor> kept, const QString& source, QSize pixels) {
    const Tensor& tensor = *kept;
    DiagnosisReport report;
    report.tensor = std::move(kept);
    report.source = source;
    report.shape = tensor.shape();
    report.dtype = tensor.dtype();
    auto diagnosis = diagnose(tensor);
    if (!diagnosis) return std::unexpected(diagnosis.error());
    report.diagnosis = std::move(*diagnosis);
    const Diagnosis& d = report.diagnosis;
    if (!d.bestParams || d.heads <= 0 || d.queries <= 0 || d.keys <= 0) return report;
    // Against correct ALiBi, not the (possibly buggy) reproduction that matched.
    auto error = correctAlibiError(tensor, d);
    if (!error) return report;  // the words still stand without the heatmap

    const Shape& shape = error->shape();  // (H, Q, K), or (B*H, T, T) for a batch
    const std::int64_t q = shape[1], k = shape[2];
    double maxError = 0;
    for (std::uint64_t n = 0; n < error->size(); ++n) {
        const double e = error->at(n);
        if (std::isfinite(e)) maxError = std::max(maxError, e);
    }
    report.errorMax = maxError;
    const double hi = maxError > 0 ? maxError : 1.0;
    const Heatmap map = renderValueGrid(
        {static_cast<int>(shape[0]), q, k, Colormap::Magma, 0, hi, std::max(16, pixels.width()), std::max(16, pixels.height()), 4},
        [&](int h, std::int64_t i, std::int64_t j) { return error->at((static_cast<std::uint64_t>(h) * q + i) * k + j); });
    report.errorImage = map.image;
    report.tiles = map.tiles;
    return report;
}

Result<DiagnosisReport> diagnoseFile(const QString& path, QSize pixels, std::uint64_t budget) {
    auto loaded = loadTensor(path.toStdString(), budget);
    if (!loaded) return std::unexpected(loaded.error());
    return diagnoseTensor(std::make_shared<const Tensor>(std::move(loaded->tensor)), QFileInfo(path).fileName(), pixels);
}

}  // namespace alibi::qt
