// Figure plans: which picture the open view's figure is, built from the state (the core's figure
// request, its default file name, and why a view has none). Pure: no file is touched.
#include "figure_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <filesystem>
#include <utility>

namespace alibi::imgui {

namespace {

constexpr std::array kCurveKinds{CurveKind::Slopes, CurveKind::BiasDistance, CurveKind::AttentionDistance};

// Default names of the same figure: they differ at most in the extension (PNG or SVG).
bool sameFigureName(const std::string& a, const std::string& b) {
    return std::filesystem::path(a).replace_extension() == std::filesystem::path(b).replace_extension();
}

// "attention" from "assets/attention/attention.npy".
std::string fileStem(const std::string& path) {
    return std::filesystem::path(path).stem().string();
}

// The session's view a figure draws (Diagnose and the attention maps have figures of their own,
// the head fit table none).
std::optional<ExplorerView> figureView(View view) {
    if (view == View::Maps || view == View::Fit || view == View::Model) return std::nullopt;
    const ExplorerView explorerView = toExplorerView(view);
    if (!viewHasFigure(explorerView)) return std::nullopt;
    return explorerView;
}

// The session's views of one head (detail, stages, extrapolation) show the selected head, or
// head 0 when none is selected (-1); the figure is asked for the head on screen.
bool viewOfOneHead(View view) {
    return view == View::Detail || view == View::Stages || view == View::Extrapolation;
}

void planView(FigurePlan& plan, FigureTask& task, const AppState& state, const Session& session, ExplorerView view) {
    ViewFigureRequest& r = task.view;
    r.session = session;
    r.session.width = task.width;
    r.session.height = task.height;
    // Compare's B as the Compare view shows it (the session keeps it only when it is not the default).
    r.session.compare = state.compareB;
    if (viewOfOneHead(state.view)) r.session.head = detailHead(session);
    // The grid's and detail's log colour scale of attention, as the views draw it.
    r.logScale = state.logColors && session.what == RenderWhat::Attention &&
                 (view == ExplorerView::Grid || view == ExplorerView::Detail);
    r.view = view;
    r.curves = kCurveKinds[static_cast<std::size_t>(std::clamp(state.figure.curves, 0, 2))];
    r.schemesMaxDistance = state.schemesMaxDistance;
    r.schemesQuantity = state.schemesQuantity;
    r.scale = task.scale;
    plan.vector = viewFigureIsVector(view);
    plan.curves = view == ExplorerView::Curves;
    plan.what = std::string(viewTitle(state.view));
    if (plan.curves) plan.what += fmt::format(": {}", kFigureCurveNames[std::clamp(state.figure.curves, 0, 2)]);
    plan.defaultPath = viewFigureFileName(r, task.svg);
}

bool planDiagnosis(FigurePlan& plan, FigureTask& task, const Model& model) {
    plan.what = "Diagnose: |tensor - correct ALiBi| per head";
    const DiagnoseResult* d = model.diagnosis.get();
    if (d == nullptr || model.diagnosisPending) {
        plan.reason = model.diagnosisPending ? "The diagnosis is still running; export its figure once it is shown."
                                             : "Diagnose a tensor first (a file or an example, then Diagnose).";
        return false;
    }
    if (!d->error.empty() || !d->diagnosis || !d->diagnosis->bestParams) {
        plan.reason =
            "This diagnosis found no ALiBi parameters to compare the tensor with, so there is no error "
            "map to draw.";
        return false;
    }
    task.kind = FigureTask::Kind::Diagnosis;
    // Read again on the job's thread, so the view's result need not keep a large tensor alive.
    task.tensorPath = d->request.path;
    task.example = d->request.example;
    task.source = d->source;
    const std::string name = d->request.path.empty() ? d->request.example : fileStem(d->request.path);
    plan.defaultPath = "diagnosis-" + name + ".png";
    return true;
}

// The layer's fit the Maps view's side tabs show, when it is the current layer's and prior's
// (the same test as the Explorer's before it asks for a row or the similarity matrix).
const LayerFitResult* currentLayerFit(const Model& model, int layerIndex, int head) {
    const LayerFitResult* fit = model.maps.layerFit.get();
    if (fit == nullptr || fit->request.maps != model.maps.file->maps || fit->request.layer != layerIndex ||
        fit->request.configured != model.maps.configured || !fit->error.empty() ||
        head >= static_cast<int>(fit->fits.size()))
        return nullptr;
    return fit;
}

// The Similarity side's matrix, drawn the way the side shows it.
bool planSimilarity(FigurePlan& plan, FigureTask& task, const Model& model, const std::string& stem, int layerNumber) {
    const auto& similarity = model.maps.similarity;
    if (!similarity || !similarity->request.fit || similarity->request.fit->distances.n == 0 ||
        similarity->order.empty()) {
        plan.what = "Attention maps: head similarity";
        plan.reason = "The similarity matrix is not drawn yet: wait for the layer's fit, then export it.";
        return false;
    }
    const LayerFitResult& fit = *similarity->request.fit;
    task.kind = FigureTask::Kind::Similarity;
    task.distances = fit.distances;
    task.similarityOrder = similarity->order;
    task.similarityTitle = fmt::format("Head similarity · layer {} · Jensen-Shannon distance between {}", layerNumber,
                                       fit.request.basis == 1 ? "full maps" : "attention-vs-distance profiles");
    plan.what = fmt::format("Attention maps: layer {}, head similarity", layerNumber);
    plan.defaultPath = fmt::format("{}-layer{}-similarity.png", stem, layerNumber);
    return true;
}

// The "vs distance" side: the head's fitted profile beside its priors, on the rows the fit used.
bool planProfile(FigurePlan& plan, FigureTask& task, const Model& model, const MapsOpenResult& file, int layerIndex,
                 int head, const std::string& stem, int layerNumber) {
    plan.vector = true;
    plan.what = fmt::format("Attention maps: layer {}, head {}, attention vs distance", layerNumber, head);
    const LayerFitResult* fit = currentLayerFit(model, layerIndex, head);
    if (fit == nullptr) {
        const LayerFitResult* failed = model.maps.layerFit.get();
        plan.reason = failed != nullptr && failed->request.maps == file.maps && failed->request.layer == layerIndex &&
                              !failed->error.empty()
                          ? "The layer's fit failed, so there is no profile to draw: " + failed->error
                          : "The head's profile comes from the layer's fit: wait for the layer's fit, then export it.";
        return false;
    }
    task.kind = FigureTask::Kind::MapsProfile;
    task.maps = file.maps;
    task.headFit = fit->fits[static_cast<std::size_t>(head)];
    task.fitFirstRow = fit->request.first;
    task.fitLastRow = fit->request.last;
    plan.defaultPath = fmt::format("{}-layer{}-head{}-distance.{}", stem, layerNumber, head, task.svg ? "svg" : "png");
    return true;
}

// The Row side: one query row of the head beside the priors the side draws (m* once the layer's
// fit is there, the configured slope when the maps are paired with ALiBi parameters). The row is
// read from the maps when the figure is drawn, on the figure thread.
bool planRow(FigurePlan& plan, FigureTask& task, const Model& model, const MapsState& s, const MapsOpenResult& file,
             int layerIndex, int head, const std::string& stem, int layerNumber) {
    const AttentionMaps& maps = *file.maps;
    plan.vector = true;
    const std::int64_t query = s.row < 0 ? maps.queries() - 1 : std::min(s.row, maps.queries() - 1);
    task.kind = FigureTask::Kind::MapsRow;
    task.maps = file.maps;
    task.mapsParams.layerIndex = layerIndex;
    task.mapsParams.head = head;
    task.rowQuery = query;
    if (const LayerFitResult* fit = currentLayerFit(model, layerIndex, head))
        task.rowSlopes.fitted = fit->fits[static_cast<std::size_t>(head)].slope;
    if (head < static_cast<int>(model.maps.configured.size()))
        task.rowSlopes.configured = model.maps.configured[static_cast<std::size_t>(head)];
    plan.what = fmt::format("Attention maps: layer {}, head {}, query row {}", layerNumber, head, query);
    if (!task.rowSlopes.fitted) plan.what += " (no prior at m* until the layer's fit is done)";
    plan.defaultPath =
        fmt::format("{}-layer{}-head{}-row{}.{}", stem, layerNumber, head, query, task.svg ? "svg" : "png");
    return true;
}

// Every layer at once, as the "all layers" overview shows them: log colours and per-head scales
// as chosen on screen.
bool planOverview(FigurePlan& plan, FigureTask& task, const MapsState& s, const MapsOpenResult& file,
                  const std::string& stem) {
    const AttentionMaps& maps = *file.maps;
    MapsHeatmapParams& p = task.mapsParams;
    p.logScale = s.logColors;
    p.scale = s.perHead ? ScaleMode::PerHead : ScaleMode::Shared;
    p.width = task.width;
    p.height = task.height;
    task.kind = FigureTask::Kind::MapsOverview;
    task.maps = file.maps;
    plan.what = fmt::format("Attention maps: every layer ({} layers of {} heads)", maps.layers(), maps.heads());
    plan.defaultPath = fmt::format("{}-all-layers.png", stem);
    return true;
}

// Which picture of the Maps view is the figure. The view shows the grid on the left (with "all
// layers", the overview in its place) and one side tab on the right. The Head tab is the grid's
// selected head enlarged, so with it the figure is the grid or the overview (with "only head H"
// for the Head tab's picture, not offered for the overview). The other tabs are plots the user
// opened on purpose (vs distance, Row, Similarity): the figure is that plot, and the popup offers
// the grid instead (FigureExportState::mapsGrid), so both can be exported without switching tabs.
bool planMaps(FigurePlan& plan, FigureTask& task, const AppState& state, const Model& model) {
    plan.what = "Attention maps";
    const MapsOpenResult* file = model.maps.file.get();
    if (file == nullptr || !file->maps) {
        plan.reason = "Open a trained model's attention maps first (File > Open attention maps...).";
        return false;
    }
    const AttentionMaps& maps = *file->maps;
    const MapsState& s = state.maps;
    const int layerIndex = std::clamp(s.layer, 0, maps.layers() - 1);
    const int layerNumber = maps.layerInfo()[static_cast<std::size_t>(layerIndex)].number;
    const int head = std::clamp(s.head, 0, maps.heads() - 1);
    const std::string stem = fileStem(file->ask.path);
    if (s.twoHeads) {  // the two heads mode: its figure, drawn again on the figure thread
        TwoHeadsRequest two{file->maps,
                            std::clamp(s.aLayer, 0, maps.layers() - 1),
                            std::clamp(s.aHead, 0, maps.heads() - 1),
                            s.bSource,
                            std::clamp(s.bLayer, 0, maps.layers() - 1),
                            std::clamp(s.bHead, 0, maps.heads() - 1),
                            model.maps.configured,
                            model.maps.fit,
                            task.width,
                            task.height};
        task.kind = FigureTask::Kind::MapsHeads;
        task.maps = file->maps;
        task.headCompare = headCompareRequestOf(two);
        const int aNumber = maps.layerInfo()[static_cast<std::size_t>(two.aLayer)].number;
        const std::string b =
            s.bSource == 1   ? std::string("prior")
            : s.bSource == 2 ? std::string("fitted-prior")
                             : fmt::format("layer{}-head{}",
                                           maps.layerInfo()[static_cast<std::size_t>(two.bLayer)].number, two.bHead);
        plan.what = fmt::format("Attention maps: layer {} head {} against {}", aNumber, two.aHead, b);
        plan.defaultPath = fmt::format("{}-layer{}-head{}-vs-{}.png", stem, aNumber, two.aHead, b);
        return true;
    }
    if (s.side != MapsSide::Head) {
        plan.mapsSidePicture = s.side == MapsSide::Distance ? "attention vs distance"
                               : s.side == MapsSide::Row    ? "the query row"
                                                            : "head similarity";
        plan.mapsGridPicture = s.overview ? "every layer" : fmt::format("layer {}'s heads", layerNumber);
        if (!state.figure.mapsGrid) {
            switch (s.side) {
                case MapsSide::Distance:
                    return planProfile(plan, task, model, *file, layerIndex, head, stem, layerNumber);
                case MapsSide::Row:
                    return planRow(plan, task, model, s, *file, layerIndex, head, stem, layerNumber);
                case MapsSide::Similarity:
                    return planSimilarity(plan, task, model, stem, layerNumber);
                case MapsSide::Head:
                    break;
            }
        }
    }
    if (s.overview) return planOverview(plan, task, s, *file, stem);
    MapsHeatmapParams& p = task.mapsParams;
    p.layerIndex = layerIndex;
    plan.maps = true;
    plan.selectedHead = head;
    p.head = state.figure.mapsOneHead ? plan.selectedHead : -1;
    p.logScale = s.logColors;
    p.scale = s.perHead ? ScaleMode::PerHead : ScaleMode::Shared;
    p.width = task.width;
    p.height = task.height;
    task.kind = FigureTask::Kind::Maps;
    task.maps = file->maps;
    plan.what = p.head < 0 ? fmt::format("Attention maps: layer {}, every head", layerNumber)
                           : fmt::format("Attention maps: layer {}, head {}", layerNumber, p.head);
    plan.defaultPath = p.head < 0 ? fmt::format("{}-layer{}.png", stem, layerNumber)
                                  : fmt::format("{}-layer{}-head{}.png", stem, layerNumber, p.head);
    return true;
}

}  // namespace

std::string withFigureExtension(const std::string& path, bool svg) {
    std::filesystem::path p(path);
    p.replace_extension(svg ? ".svg" : ".png");
    return p.string();
}

int figureScale(FigureFormat format) {
    switch (format) {
        case FigureFormat::Png2x:
            return 2;
        case FigureFormat::Png4x:
            return 4;
        default:
            return 1;
    }
}

FigurePlan planFigure(const AppState& state, const Session& session, const Model& model) {
    FigurePlan plan;
    FigureTask task;
    const FigureExportState& f = state.figure;
    task.width = f.width > 0 ? f.width : session.width;
    task.height = f.height > 0 ? f.height : session.height;
    task.svg = f.format == FigureFormat::Svg;
    task.scale = figureScale(f.format);
    bool ok = false;
    if (auto view = figureView(state.view)) {
        planView(plan, task, state, session, *view);
        ok = true;
    } else if (state.view == View::Diagnose) {
        ok = planDiagnosis(plan, task, model);
    } else if (state.view == View::Maps) {
        ok = planMaps(plan, task, state, model);
    } else {
        plan.what = std::string(viewTitle(state.view));
        plan.reason =
            "The head fit is a table, not a figure: export it as CSV or JSON in its view, or open the "
            "Maps view for a figure of the attention maps.";
    }
    if (!ok) return plan;
    plan.svgRefused = task.svg && !plan.vector;
    if (!plan.vector && plan.defaultPath.ends_with(".svg"))
        plan.defaultPath = withFigureExtension(plan.defaultPath, false);
    task.path = plan.defaultPath;
    if (f.pathEdited) {
        if (f.pathFor.empty() || sameFigureName(f.pathFor, plan.defaultPath)) {
            task.path = f.path;
        } else {
            task.path = (std::filesystem::path(f.path).parent_path() / plan.defaultPath).string();
        }
    }
    plan.task = std::move(task);
    return plan;
}

}  // namespace alibi::imgui
