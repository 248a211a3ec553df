// The explorer's one-shot tasks, as plain functions over the core so the menus, the tests and
// the storm test all take the same path: exporting the current tensor (streamed, atomic,
// cancellable through the progress callback) and diagnosing a user's tensor file.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/io/read_progress.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <QSize>
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
    Image errorImage;  // |tensor - correct ALiBi| per head, grid layout, magma
    std::vector<HeatmapTile> tiles;
    std::vector<std::string> tileLabels;  // "h3", or "b1 h3" for a batch (the core's)
    double errorMax = 0;
    // The core's words for the map (explore::diagnosisErrorMapLabels): the bias error, or the
    // probability change when every finding is harmless.
    std::string mapCaption, barTitle = "|error|";
    // The map's colour bar (explore::diagnosisColorBar): its range, title and the masked swatch
    // when the core painted some cells masked grey.
    ColorBar colorBar;
    std::shared_ptr<const Tensor> tensor;  // the tensor diagnosed (File > Export figure draws it)
};

// `labelBand`: image pixels free above every tile of the error map for its label ("b1 h3"). The
// map's tiles have square cells (the core's squareCells), the image cropped to them.
// `cancelled` (optional) is asked between the diagnosis and its error map: true gives
// ErrorCode::Cancelled.
[[nodiscard]] Result<DiagnosisReport> diagnoseTensor(std::shared_ptr<const Tensor> tensor, const QString& source,
                                                     QSize pixels, int labelBand = 0,
                                                     const std::function<bool()>& cancelled = {});
// Reads the file with the core's progress and cancel (`read`), then diagnoses it.
[[nodiscard]] Result<DiagnosisReport> diagnoseFile(const QString& path, QSize pixels,
                                                   std::uint64_t budget = kDefaultMemoryBudget, int labelBand = 0,
                                                   const ReadOptions& read = {});

}  // namespace alibi::qt
