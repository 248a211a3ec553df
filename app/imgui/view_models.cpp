// Stages and diagnosis: requests from the state, results from the core.
#include "view_models.hpp"

#include "app_state.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/io/session_export.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/slopes.hpp>

#include <algorithm>
#include <filesystem>

namespace alibi::imgui {

std::optional<CompareRequest> compareRequest(const AppState& state) {
    if (state.compareWidth <= 0 || state.compareHeight <= 0) return std::nullopt;
    Session a = state.session;
    a.compare.reset();  // B is the spec; A's copy of it would only re-run an unchanged picture
    return CompareRequest{std::move(a), state.compareB, state.compareWidth, state.compareHeight,
                          state.compareLabelBand};
}

std::shared_ptr<const CompareResult> computeCompareResult(const CompareRequest& request, const CancelFlag& cancel) {
    auto cancelled = [&cancel] { return cancel.cancelled(); };
    auto result = std::make_shared<CompareResult>();
    result->request = request;
    result->snapshot = explore::computeCompare(request.a, request.spec, request.width, request.height, cancelled, 4,
                                               request.labelBand);
    if (cancelled()) return nullptr;
    result->colorBar = renderColorBar(Colormap::Diverging, 8, std::max(request.height, 2), true);
    return result;
}

ExtrapolationRequest extrapolationRequest(const AppState& state) {
    Session session = state.session;
    session.compare.reset();  // Compare's B does not change the extrapolation
    return ExtrapolationRequest{std::move(session), detailHead(state.session)};
}

std::shared_ptr<const ExtrapolationResult> computeExtrapolationResult(const ExtrapolationRequest& request,
                                                                      const CancelFlag& cancel) {
    auto cancelled = [&cancel] { return cancel.cancelled(); };
    auto result = std::make_shared<ExtrapolationResult>();
    result->request = request;
    result->snapshot = explore::computeExtrapolation(request.session, request.head, cancelled);
    if (cancelled()) return nullptr;
    if (auto slopes = computeSlopes(request.session.attention.bias.slopes)) result->slopes = std::move(*slopes);
    result->colorBar = renderColorBar(result->snapshot.headAtLParams.colormap, 8, kColorBarSteps, true);
    return result;
}

ExportPlan planSessionExport(const Session& session, const std::string& path, FileFormat format,
                             const FreeSpaceFn& freeSpace) {
    const bool attention = session.what == RenderWhat::Attention;
    // A session's batch plans as the whole (B, H, T, T) batch, as `alibi bias` writes it.
    auto e = attention ? sessionAttentionExport(session, path, format) : sessionBiasExport(session, path, format);
    if (!e) {
        ExportPlan refused;
        refused.refusal = ExportRefusal::NoSpace;
        refused.reason = e.error().message;
        return refused;
    }
    e->request.allowNonFinite = true;  // the explorer's exports keep -inf masks in JSON as the file format allows
    return planExport(*e->source, e->request, freeSpace);
}

ExplorerView toExplorerView(View view) {
    switch (view) {
        case View::Grid:
            return ExplorerView::Grid;
        case View::Detail:
            return ExplorerView::Detail;
        case View::Curves:
            return ExplorerView::Curves;
        case View::Stages:
            return ExplorerView::Stages;
        case View::Compare:
            return ExplorerView::Compare;
        case View::Extrapolation:
            return ExplorerView::Extrapolation;
        case View::Diagnose:
            return ExplorerView::Diagnose;
        case View::PositionSchemes:
            return ExplorerView::PositionSchemes;
        // The attention maps are a file the session does not hold: a session saved there opens
        // on the head grid.
        case View::Maps:
        case View::Fit:
        case View::Model:
            return ExplorerView::Grid;
    }
    return ExplorerView::Grid;
}

View fromExplorerView(ExplorerView view) {
    switch (view) {
        case ExplorerView::Grid:
            return View::Grid;
        case ExplorerView::Detail:
            return View::Detail;
        case ExplorerView::Curves:
            return View::Curves;
        case ExplorerView::Stages:
            return View::Stages;
        case ExplorerView::Compare:
            return View::Compare;
        case ExplorerView::Extrapolation:
            return View::Extrapolation;
        case ExplorerView::Diagnose:
            return View::Diagnose;
        case ExplorerView::Stats:
            return View::Grid;
        case ExplorerView::PositionSchemes:
            return View::PositionSchemes;
    }
    return View::Grid;
}

std::optional<CompareOverrides> sessionCompare(const CompareOverrides& b) {
    if (b == explore::geometricCompare()) return std::nullopt;
    return b;
}

std::optional<DiagnoseRequest> diagnoseRequest(const AppState& state) {
    if (state.diagnoseSerial == 0 || state.diagnoseWidth <= 0 || state.diagnoseHeight <= 0) return std::nullopt;
    return DiagnoseRequest{state.diagnoseUseExample ? std::string() : state.diagnosePath,
                           state.diagnoseUseExample ? state.diagnoseExample : std::string(),
                           state.diagnoseSerial,
                           state.diagnoseWidth,
                           state.diagnoseHeight,
                           state.diagnoseLabelBand};
}

std::shared_ptr<const DiagnoseResult> computeDiagnosis(const DiagnoseRequest& request, const CancelFlag& cancel,
                                                       const std::shared_ptr<FileReadProgress>& progress) {
    auto result = std::make_shared<DiagnoseResult>();
    result->request = request;
    if (progress) {
        progress->fraction.store(0.0f);
        std::lock_guard lock(progress->mutex);
        progress->text.clear();
    }
    Tensor tensor;
    if (request.path.empty()) {
        auto built = buildBuggyExample(request.example);
        if (!built) {
            result->error = built.error().message;
            return result;
        }
        tensor = std::move(*built);
        result->source = "example: " + request.example;
    } else {
        auto loaded = loadTensor(
            request.path,
            TensorReadOptions{.tensorName = {}, .budget = kDefaultMemoryBudget, .read = readOptions(cancel, progress)});
        if (!loaded && loaded.error().code == ErrorCode::Cancelled) return nullptr;
        if (!loaded) {
            result->error = loaded.error().message;
            return result;
        }
        tensor = std::move(loaded->tensor);
        result->source = std::filesystem::path(request.path).filename().string();
    }
    if (cancel.cancelled()) return nullptr;
    result->shape = tensor.shape();
    result->dtype = tensor.dtype();
    auto diagnosis = diagnose(tensor);
    if (!diagnosis) {
        result->error = diagnosis.error().message;
        return result;
    }
    result->diagnosis = std::move(*diagnosis);
    if (cancel.cancelled()) return nullptr;
    // Square cells as large as the room allows; the core crops the picture to its tiles.
    auto error = explore::diagnosisErrorMap(tensor, *result->diagnosis, request.width, request.height, 4,
                                            request.labelBand, true);
    if (!error) return result;  // the words still stand without the heatmap
    result->errorMax = error->errorMax;
    result->anyMasked = error->anyMasked;
    result->mapCaption = error->caption;
    result->barTitle = error->barTitle;
    result->errorMap = std::move(error->map);
    result->tileLabels = std::move(error->tileLabels);
    result->colorBar = renderColorBar(Colormap::Magma, 8, std::max(request.height, 2), true);
    return result;
}

}  // namespace alibi::imgui
