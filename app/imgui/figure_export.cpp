// Figure export: the core's request built from the state, the thread that draws and writes it,
// and the choices the popup and the export panel share.
#include "figure_export.hpp"
#include "layout_check.hpp"
#include "view_common.hpp"

#include "explorer.hpp"

#include <alibi/base/image_size.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <filesystem>
#include <span>
#include <system_error>
#include <utility>

namespace alibi::imgui {

namespace {

constexpr int kMinFigureSide = 16;

constexpr std::array kCurveKinds{CurveKind::Slopes, CurveKind::BiasDistance, CurveKind::AttentionDistance};
constexpr const char* kCurveNames[] = {"slopes per head", "bias vs distance", "attention vs distance"};
constexpr std::array kFormats{FigureFormat::Png1x, FigureFormat::Png2x, FigureFormat::Png4x, FigureFormat::Svg};
constexpr const char* kFormatNames[] = {"PNG 1x", "PNG 2x", "PNG 4x", "SVG"};

// Why SVG is not offered for heatmap views.
constexpr const char* kSvgViews =
    "SVG is for the views drawn from lines and text (curves, stages, extrapolation, position schemes, the "
    "attention maps' vs distance and row plots); this view is a heatmap: pick PNG.";

const ImVec4 kErrorColor(1.0f, 0.42f, 0.36f, 1.0f);
const ImVec4 kDoneColor(0.55f, 0.85f, 0.55f, 1.0f);

// Swaps the file name's extension (a path the user typed keeps its folder and name).
std::string withExtension(const std::string& path, bool svg) {
    std::filesystem::path p(path);
    p.replace_extension(svg ? ".svg" : ".png");
    return p.string();
}

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
    if (plan.curves) plan.what += fmt::format(": {}", kCurveNames[std::clamp(state.figure.curves, 0, 2)]);
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
    if (!plan.vector && plan.defaultPath.ends_with(".svg")) plan.defaultPath = withExtension(plan.defaultPath, false);
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

// ---------------------------------------------------------------------------

FigureOutcome runFigureTask(const FigureTask& task, const explore::JobContext& job) {
    const auto written = writeFigureJob(task, task.path, job.progress());
    FigureOutcome outcome;
    outcome.ok = static_cast<bool>(written);
    if (written) {
        outcome.message = fmt::format("Saved {} ({} x {} px)", task.path, written->width, written->height);
    } else if (written.error().code == ErrorCode::Cancelled) {
        outcome.message = fmt::format("Cancelled: {} was not written", task.path);
    } else {
        outcome.message = written.error().message;
    }
    return outcome;
}

// ---------------------------------------------------------------------------

void drawFigureChoices(AppState& state, const Model& model, const FigurePlan& plan, bool wide) {
    FigureExportState& f = state.figure;
    const float em = ImGui::GetFontSize();
    const float column = (wide ? 6.5f : 5.5f) * em;  // where the fields start, after their labels
    auto label = [column](const char* text) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(text);
        ImGui::SameLine(column);
    };

    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Figure of the open view: %s", plan.what.c_str());
    // The attention maps with a plot on the side: that plot, or the grid beside it (offered even
    // while the plot waits for the fit).
    if (!plan.mapsSidePicture.empty()) {
        label("Picture");
        if (ImGui::RadioButton(plan.mapsSidePicture.c_str(), !f.mapsGrid)) f.mapsGrid = false;
        // Beside the first where it fits, else under it in the same column (the Session and export
        // panel in presentation mode: the second choice ran 300 px past its edge, s39).
        const float second = checkboxWidth(plan.mapsGridPicture.c_str());
        if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + second <=
            ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) {
            ImGui::SameLine();
        } else {
            ImGui::Dummy(ImVec2(0.0f, 0.0f));
            ImGui::SameLine(column);
        }
        if (ImGui::RadioButton(plan.mapsGridPicture.c_str(), f.mapsGrid)) f.mapsGrid = true;
    }
    if (!plan.task) {
        ImGui::TextUnformatted(plan.reason.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    ImGui::PopTextWrapPos();

    // Format: SVG only for the views drawn from lines and text.
    const bool wasSvg = f.format == FigureFormat::Svg;
    label("Format");
    if (wide) {
        for (std::size_t i = 0; i < kFormats.size(); ++i) {
            if (i > 0) ImGui::SameLine();
            const bool svg = kFormats[i] == FigureFormat::Svg;
            ImGui::BeginDisabled(svg && !plan.vector);
            if (ImGui::RadioButton(kFormatNames[i], f.format == kFormats[i])) f.format = kFormats[i];
            ImGui::EndDisabled();
            if (svg && !plan.vector && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(24.0f * em);
                ImGui::TextUnformatted(kSvgViews);
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        }
    } else {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##figureFormat", kFormatNames[static_cast<int>(f.format)])) {
            for (std::size_t i = 0; i < kFormats.size(); ++i) {
                const bool svg = kFormats[i] == FigureFormat::Svg;
                const ImGuiSelectableFlags flags = svg && !plan.vector ? ImGuiSelectableFlags_Disabled : 0;
                if (ImGui::Selectable(kFormatNames[i], f.format == kFormats[i], flags)) f.format = kFormats[i];
            }
            ImGui::EndCombo();
        }
    }
    const bool isSvg = f.format == FigureFormat::Svg;
    if (isSvg != wasSvg && f.pathEdited) f.path = withExtension(f.path, isSvg);

    if (plan.curves) {
        label("Plot");
        ImGui::SetNextItemWidth(wide ? 14.0f * em : -1.0f);
        ImGui::Combo("##figureCurves", &f.curves, kCurveNames, IM_ARRAYSIZE(kCurveNames));
    }
    if (plan.maps) {
        label("Heads");
        const std::string only = fmt::format("only head {}", plan.selectedHead);
        ImGui::Checkbox(only.c_str(), &f.mapsOneHead);
    }

    // The size at 1x: the session's width x height until changed here.
    const FigureTask& task = *plan.task;
    label("Size at 1x");
    int width = task.width, height = task.height;
    const float field = (wide ? 5.5f : 4.0f) * em;
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("##figureWidth", &width, 0, 0)) f.width = std::clamp(width, kMinFigureSide, kMaxImageSide);
    ImGui::SameLine();
    ImGui::TextUnformatted("x");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("##figureHeight", &height, 0, 0)) f.height = std::clamp(height, kMinFigureSide, kMaxImageSide);
    if (wide) {
        ImGui::SameLine();
        ImGui::TextUnformatted("px");
    }

    // The file: the core's name for the figure until the user types one (emptied: back to it).
    label("File");
    std::string path = task.path;
    ImGui::SetNextItemWidth(-1);
    // A click selects the whole path, so typing replaces it (a second click places the cursor).
    const bool enter = ImGui::InputText("##figurePath", &path,
                                        ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    if (path != task.path || (enter && path.empty())) {
        f.pathEdited = !path.empty();
        f.path = path;
        f.pathFor = plan.defaultPath;
    }

    // What the export makes.
    ImGui::PushTextWrapPos(0.0f);
    const std::int64_t pixelsWide = std::int64_t{task.width} * task.scale;
    const std::int64_t pixelsHigh = std::int64_t{task.height} * task.scale;
    if (plan.svgRefused) {
        ImGui::TextColored(kErrorColor, "%s", kSvgViews);
    } else if (task.svg) {
        ImGui::TextDisabled("Writes an SVG of %d x %d (vector: sharp at any size)", task.width, task.height);
    } else {
        ImGui::TextDisabled("Writes %lld x %lld px%s", static_cast<long long>(pixelsWide),
                            static_cast<long long>(pixelsHigh),
                            task.scale > 1 ? " (drawn at that size, not upscaled)" : "");
        if (pixelsWide > kMaxImageSide || pixelsHigh > kMaxImageSide)
            ImGui::TextColored(kErrorColor, "Larger than %d px a side: pick a smaller size or scale.", kMaxImageSide);
    }
    ImGui::PopTextWrapPos();

    if (model.figureRunning) {
        const float fraction = model.figureProgress < 0 ? 0.0f : model.figureProgress;
        ImGui::ProgressBar(fraction, ImVec2(-ImGui::GetFontSize() * 5.0f, 0),
                           model.figureProgress < 0 ? "drawing..." : nullptr);
        ImGui::SameLine();
        if (ImGui::Button("Cancel##figure")) f.cancel = true;
    } else {
        ImGui::BeginDisabled(plan.svgRefused);
        if (ImGui::Button("Export figure", ImVec2(wide ? 9.0f * em : 0.0f, 0)) || (enter && !plan.svgRefused))
            f.start = true;
        ImGui::EndDisabled();
    }
    if (!f.status.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(f.failed ? kErrorColor : kDoneColor, "%s", f.status.c_str());
        ImGui::PopTextWrapPos();
    }
}

// ---------------------------------------------------------------------------
// The Explorer's part: the popup, and the start, cancel and outcome of the job.

void Explorer::drawFigurePopup() {
    constexpr const char* kTitle = "Export figure";
    FigureExportState& f = m_state.figure;
    if (f.openPopup) {
        f.openPopup = false;
        f.status.clear();
        ImGui::OpenPopup(kTitle);
    }
    m_figurePopupShown = false;
    if (!ImGui::IsPopupOpen(kTitle)) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float em = ImGui::GetFontSize();
    // Anchored at its top, so a status line appearing grows it downwards instead of moving it.
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.22f), ImGuiCond_Always, ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(std::min(display.x * 0.92f, 38.0f * em), 0.0f), ImGuiCond_Always);
    bool open = true;
    if (ImGui::BeginPopupModal(kTitle, &open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoResize)) {
        m_figurePopupShown = true;
        drawFigureChoices(m_state, m_model, planFigure(m_state, m_lastValid, m_model), true);
        ImGui::Spacing();
        ImGui::Separator();
        const float button = 7.0f * em;
        ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - button);
        const bool escape = !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
        // Closing leaves a running export running: its outcome reaches the status line.
        if (ImGui::Button("Close", ImVec2(button, 0)) || escape) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void Explorer::runFigureExport() {
    FigureExportState& f = m_state.figure;
    if (f.cancel) {
        f.cancel = false;
        m_figureJob.cancel();
    }
    if (f.start) {
        f.start = false;
        FigurePlan plan = planFigure(m_state, m_lastValid, m_model);
        f.failed = true;
        if (!plan.task) {
            f.status = plan.reason;
        } else if (m_figureJob.running()) {
            f.status = "A figure is being drawn; wait for it or cancel it first.";
        } else {
            f.failed = false;
            f.status = fmt::format("Drawing {}...", plan.task->path);
            (void)m_figureJob.start(
                [task = std::move(*plan.task)](const explore::JobContext& job) { return runFigureTask(task, job); });
        }
    }
    if (auto outcome = m_figureJob.takeOutcome()) {
        f.status = outcome->message;
        f.failed = !outcome->ok;
        if (outcome->ok) m_state.statusMessage = outcome->message;
    }
    m_model.figureRunning = m_figureJob.running();
    m_model.figureProgress = m_figureJob.fraction();
}

}  // namespace alibi::imgui
