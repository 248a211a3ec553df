// Requests and results of the views computed on demand: attention stages of one row, and the
// diagnosis of a tensor (a file or a built-in example with a known bug). Like model.hpp, each
// request is derived from the AppState by a pure function and each result comes from core calls.
#pragma once

#include "app_state.hpp"
#include "model.hpp"

#include <alibi/analysis/corrected_session.hpp>
#include <alibi/analysis/diagnose.hpp>
#include <alibi/explore/snapshot.hpp>
#include <alibi/io/export_plan.hpp>

#include <optional>
#include <string>
#include <vector>

namespace alibi::imgui {

// The stages of one row: part of the details (model.hpp's computeDetailsResult, the core's
// explore::computeDetails).
struct StagesRequest {
    AttentionParams attention;
    int head = 0;
    std::int64_t query = 0;  // resolved (never -1)
    friend bool operator==(const StagesRequest&, const StagesRequest&) = default;
};

struct StagesResult {
    StagesRequest request;
    AttentionStages stages;
    double slope = 0;
    std::string error;
};

// Compare: A (the session) against B (A with the spec's replacements), A - B per cell.
struct CompareRequest {
    Session a;
    CompareOverrides spec = explore::geometricCompare();
    int width = 0, height = 0;
    int labelBand = 0;  // pixels above each tile for its label
    friend bool operator==(const CompareRequest&, const CompareRequest&) = default;
};

struct CompareResult {
    CompareRequest request;
    explore::CompareSnapshot snapshot;
    Image colorBar;  // the diverging map, for the bar beside the difference
};

[[nodiscard]] std::optional<CompareRequest> compareRequest(const AppState& state);
[[nodiscard]] std::shared_ptr<const CompareResult> computeCompareResult(const CompareRequest& request,
                                                                        const CancelFlag& cancel);

// Extrapolation: the selected head's attention as T grows from L to 16 L.
struct ExtrapolationRequest {
    Session session;
    int head = 0;
    friend bool operator==(const ExtrapolationRequest&, const ExtrapolationRequest&) = default;
};

struct ExtrapolationResult {
    ExtrapolationRequest request;
    explore::ExtrapolationSnapshot snapshot;
    std::vector<double> slopes;
    Image colorBar;  // the "head N at T = L" map's gradient (its colour map, hi at the top)
};

[[nodiscard]] ExtrapolationRequest extrapolationRequest(const AppState& state);
[[nodiscard]] std::shared_ptr<const ExtrapolationResult> computeExtrapolationResult(const ExtrapolationRequest& request,
                                                                                    const CancelFlag& cancel);

// What "Export tensor" would write, and whether the core's export rules allow it (the same
// planExport the CLI runs): shape, dtype, layout, bytes and free space, or the refusal and its fix.
// `freeSpace` stands for the file system in tests (empty: the real one).
[[nodiscard]] ExportPlan planSessionExport(const Session& session, const std::string& path, FileFormat format,
                                           const FreeSpaceFn& freeSpace = {});

// The explorer's views and the session's `view.open` names, both ways (the statistics have no view
// of their own here: they sit under the grid).
[[nodiscard]] ExplorerView toExplorerView(View view);
[[nodiscard]] View fromExplorerView(ExplorerView view);
// Compare's B as a session holds it, both ways.
// Session::compare for B: nullopt for the explorer's default B (a fresh session's value).
[[nodiscard]] std::optional<CompareOverrides> sessionCompare(const CompareOverrides& b);

struct DiagnoseRequest {
    std::string path;           // a .npy or .safetensors file, or
    std::string example;        // an example code (when path is empty)
    std::uint64_t serial = 0;   // bumped by each "Diagnose" click, so the same file can be re-read
    int width = 0, height = 0;  // error heatmap pixels
    int labelBand = 0;          // pixels above each tile for its label ("b1 h3")
    friend bool operator==(const DiagnoseRequest&, const DiagnoseRequest&) = default;
};

struct DiagnoseResult {
    DiagnoseRequest request;
    std::string source;  // file name or "example: code"
    Shape shape;
    DType dtype = DType::F32;
    std::optional<Diagnosis> diagnosis;
    Heatmap errorMap;                     // |tensor - correct ALiBi| per cell, magma, [0, errorMax]
    std::vector<std::string> tileLabels;  // "h3", or "b1 h3" for a batch (the core's)
    Image colorBar;                       // magma, for the bar beside it
    double errorMax = 0;
    bool anyMasked = false;  // some cells masked grey: the bar shows the swatch
    // The core's words for the map: the bias error, or the probability change when every finding
    // is harmless (explore::diagnosisErrorMapLabels).
    std::string mapCaption, barTitle = "|error|";
    std::string error;  // the file could not be read or diagnosed
};

// Nothing until the user asked for a diagnosis.
[[nodiscard]] std::optional<DiagnoseRequest> diagnoseRequest(const AppState& state);
// The file is read with the core's progress into `progress` (optional) and stopped by `cancel`;
// a cancelled read or diagnosis gives nullptr (the diagnosis shown before stays).
[[nodiscard]] std::shared_ptr<const DiagnoseResult> computeDiagnosis(
    const DiagnoseRequest& request, const CancelFlag& cancel,
    const std::shared_ptr<FileReadProgress>& progress = nullptr);

}  // namespace alibi::imgui
