// The explorer's one-shot tasks, as plain functions over the core so the menus, the tests and
// the storm test all take the same path: exporting the current tensor (streamed, atomic,
// cancellable through the progress callback) and diagnosing a user's tensor file.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/io/read_progress.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>

#include <QString>

#include <functional>
#include <memory>
#include <string>

namespace alibi::qt {

enum class ExportWhat { Bias, Attention, Slopes };

// Streams the session's bias, attention probabilities or slopes to `path` in `format`.
// The progress callback returning false cancels; the core then leaves no file behind.
[[nodiscard]] Result<void> exportSessionTensor(const Session& session, ExportWhat what, const std::string& path,
                                               FileFormat format, const ProgressFn& progress = {});

// The slopes as a 1-D tensor (H,) in f64, exactly as computeSlopes returns them.
[[nodiscard]] Result<Tensor> slopesTensor(const SlopeParams& params);

struct DiagnosisReport {
    QString source;  // file name, or a description for in-memory tensors
    Shape shape;
    DType dtype = DType::F32;
    Diagnosis diagnosis;
    // The tensor diagnosed: the view draws its error map (explore::diagnosisErrorMap) at its own
    // size, and File > Export figure draws it.
    std::shared_ptr<const Tensor> tensor;
};

// `cancelled` (optional) is asked after the diagnosis: true gives ErrorCode::Cancelled.
[[nodiscard]] Result<DiagnosisReport> diagnoseTensor(std::shared_ptr<const Tensor> tensor, const QString& source,
                                                     const std::function<bool()>& cancelled = {});
// Reads the file with the core's progress and cancel (`read`), then diagnoses it.
[[nodiscard]] Result<DiagnosisReport> diagnoseFile(const QString& path, const ReadOptions& read = {},
                                                   std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi::qt
