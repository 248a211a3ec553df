// See tensor_export.hpp. The core's exportTensor writes a temporary file and renames it, so
// a cancelled or failed export leaves nothing at the target.
#include "tensor_export.hpp"

#include "progress_bar.hpp"

#include <alibi/io/export_plan.hpp>
#include <alibi/io/tensor_io.hpp>

#include <fmt/format.h>

namespace alibi::cli {

Result<void> exportSource(const TensorSource& source, const OutputTarget& target, const std::string& tensorName,
                          bool allowNonFinite, std::optional<Layout> layout, std::optional<MaskValue> mask) {
    ExportRequest request;
    request.path = target.path;
    request.format = target.format;
    request.tensorName = tensorName;
    request.allowNonFinite = allowNonFinite;
    request.layout = layout;
    request.mask = mask;
    if (auto ok = planExport(source, request).check(); !ok) return ok;
    ProgressBar bar(fmt::format("writing {}", target.toStdout() ? std::string("stdout") : target.path),
                    ProgressBar::Unit::Bytes);
    ExportOptions options;
    options.format = target.format;
    options.tensorName = tensorName;
    options.allowNonFinite = allowNonFinite;
    options.progress = bar.callback();
    auto result = exportTensor(source, target.path, options);
    bar.finish();
    return result;
}

}  // namespace alibi::cli
