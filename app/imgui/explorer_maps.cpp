// The Explorer's side of a trained model's attention maps (issue 12): opening files (the path
// prompt, --attention, drops, Help > examples) on a worker, pairing the maps with ALiBi
// parameters, the layer keys, the requests of the Maps and Fit views, the hover read-out, and the
// fit table's run, cancel and export. Errors go to the error popup; the previous maps stay.
#include "explorer.hpp"
#include "layout_check.hpp"
#include "view_common.hpp"

#include "keys.hpp"
#include "panels.hpp"

#include <alibi/analysis/fit_report.hpp>
#include <alibi/base/data_dir.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>

namespace alibi::imgui {

namespace {

bool isTensorFile(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    return ext == ".npy" || ext == ".safetensors";
}

// The example attention files (assets/attention): the installed data folder, else the source tree.
std::optional<std::filesystem::path> attentionExamplesDir() {
    if (auto dir = findDataDir("attention")) return dir;
#ifdef ALIBI_SOURCE_ASSETS
    const std::filesystem::path source = std::filesystem::path(ALIBI_SOURCE_ASSETS) / "attention";
    if (std::filesystem::is_directory(source)) return source;
#endif
    return std::nullopt;
}

}  // namespace

std::vector<std::string> attentionExamples() {
    std::vector<std::string> files;
    if (auto dir = attentionExamplesDir()) {
        std::error_code ignored;
        for (const auto& entry : std::filesystem::directory_iterator(*dir, ignored))
            if (isTensorFile(entry.path().string())) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

void Explorer::openAttentionMaps(const std::string& path) {
    m_state.maps.path = path;
    m_state.maps.open = MapsOpenAsk{path, "", 0, 0, false};
    m_state.maps.tensor.clear();
    m_state.maps.batch = 0;
    m_state.maps.valuesChoice = 0;
}

void Explorer::dropFiles(std::vector<std::string> paths) {
    for (std::string& p : paths) m_state.droppedFiles.push_back(std::move(p));
}

bool Explorer::mapsGridAwaited() const {
    // Maps just opened on the maps view: their first grid is on its way even before the panel
    // has reported its size (the frame the view's tab switches).
    const MapsModel& maps = m_model.maps;
    return m_state.view == View::Maps && maps.file && maps.file->maps &&
           (!maps.grid || maps.grid->request.maps != maps.file->maps);
}

void Explorer::handleDrops() {
    std::vector<std::string> dropped = std::exchange(m_state.droppedFiles, {});
    for (const std::string& path : dropped) {
        const std::string name = std::filesystem::path(path).filename().string();
        if (path.ends_with(".json")) {
            m_state.sessionPath = path;
            m_state.actions.openSession = true;
        } else if (isTensorFile(path) && m_state.view == View::Diagnose) {
            // On the Diagnose view a tensor is a bias to check.
            m_state.diagnosePath = path;
            m_state.diagnoseUseExample = false;
            ++m_state.diagnoseSerial;
            m_state.statusMessage = fmt::format("diagnosing {} (dropped on the Diagnose view)", name);
        } else if (isTensorFile(path)) {
            const bool onMaps = m_state.view == View::Maps || m_state.view == View::Fit;
            openAttentionMaps(path);
            m_state.view = m_state.view == View::Fit ? View::Fit : View::Maps;
            m_state.statusMessage =
                onMaps
                    ? fmt::format("opening {} as attention maps", name)
                    : fmt::format("opening {} as attention maps (to check a bias tensor, drop it on the Diagnose view)",
                                  name);
        } else {
            m_state.errorPopup = fmt::format(
                "{}: not a file the explorer opens. Drop a .npy or .safetensors file (attention maps, or a bias "
                "tensor on the Diagnose view) or a *.alibi.json session.",
                path);
        }
    }
}

void Explorer::updateMapsPrior() {
    MapsModel& maps = m_model.maps;
    maps.configured.clear();
    if (!maps.file || !maps.file->maps) {
        maps.priorNote.clear();
        return;
    }
    const MapsState& s = m_state.maps;
    if (s.prior == MapsPrior::None) {
        maps.priorNote = "no ALiBi parameters paired: fitted slopes only";
    } else if (s.prior == MapsPrior::File) {
        maps.configured = maps.file->maps->fileSlopes();
        maps.priorNote = maps.configured.empty() ? "the file names no slopes: fitted slopes only"
                                                 : "the slopes the file's maps were computed with";
    } else if (s.prior == MapsPrior::Session) {
        const SlopeParams& p = m_lastValid.attention.bias.slopes;
        if (auto paired =
                explore::checkPairing(*maps.file->maps, static_cast<int>(m_model.slopes.size()), "the session");
            !paired) {
            maps.priorNote = paired.error().message;
        } else {
            maps.configured = m_model.slopes;
            maps.priorNote = fmt::format("the session's slopes: H = {}, {}, max_bias {}", p.heads, schemeName(p.scheme),
                                         alibi::formatValue(p.maxBias));
        }
    } else if (s.presetIndex >= 0 && s.presetIndex < static_cast<int>(m_model.presets.size())) {
        const Preset& preset = m_model.presets[static_cast<std::size_t>(s.presetIndex)];
        if (auto paired = explore::checkPairing(*maps.file->maps, preset.heads, preset.name); !paired) {
            maps.priorNote = paired.error().message;
        } else if (auto slopes = computeSlopes(withPreset(defaultSession(), preset).attention.bias.slopes)) {
            maps.configured = std::move(*slopes);
            maps.priorNote = fmt::format("{}'s slopes ({})", preset.name, preset.id);
        } else {
            maps.priorNote = slopes.error().message;
        }
    }
}

void Explorer::collectMaps() {
    MapsModel& maps = m_model.maps;
    std::uint64_t generation = 0;
    if (auto opened = m_mapsOpenBox.take(generation)) {
        if (generation == m_mapsOpenGeneration) maps.opening = false;
        if (opened->cancelled) {
            // Cancelled by the user or replaced by a newer open: nothing to say.
        } else if (!opened->error.empty()) {
            const std::string& message = opened->error;
            m_state.errorPopup = message.find(opened->ask.path) != std::string::npos
                                     ? fmt::format("Cannot open attention maps: {}", message)
                                     : fmt::format("Cannot open {} as attention maps: {}", opened->ask.path, message);
            if (maps.file) m_state.errorPopup += fmt::format("\n\nStill showing {}.", maps.file->ask.path);
            // The fields show what is open, not what failed.
            if (maps.file) {
                m_state.maps.valuesChoice = maps.file->ask.values;
                m_state.maps.batch = maps.file->ask.batch;
                m_state.maps.tensor = maps.file->ask.tensor;
            }
        } else {
            const AttentionMaps& m = *opened->maps;
            MapsState& s = m_state.maps;
            if (!opened->ask.keepView) {
                s.layer = 0;
                s.head = 0;
                // Two heads: head 0 against head 1 of the first layer (or its fitted prior, one head).
                s.aLayer = s.aHead = s.bLayer = 0;
                s.bHead = m.heads() > 1 ? 1 : 0;
                s.bSource = m.heads() > 1 ? 0 : 2;
                s.row = -1;
                s.overview = false;
                s.selectedRow = -1;
                s.fitAllRows = true;
                s.fitFirst = 0;
                s.fitLast = m.queries();
            }
            // A model run's maps name the slopes they were computed with: the prior a reader wants
            // beside them (explore::pairedSlopes, as `alibi fit` and `alibi render FILE`).
            if (!m.fileSlopes().empty())
                s.prior = MapsPrior::File;
            else if (s.prior == MapsPrior::File)
                s.prior = MapsPrior::None;
            if (s.lessonTarget) applyMapsLessonTarget(m);
            s.layer = std::clamp(s.layer, 0, m.layers() - 1);
            s.head = std::clamp(s.head, 0, m.heads() - 1);
            s.fitFirst = std::clamp<std::int64_t>(s.fitFirst, 0, m.queries() - 1);
            s.fitLast = std::clamp<std::int64_t>(s.fitLast, s.fitFirst + 1, m.queries());
            s.path = opened->ask.path;
            s.valuesChoice = opened->ask.values;
            s.batch = opened->ask.batch;
            s.tensor = opened->ask.tensor;
            maps.file = opened;
            maps.fit.reset();
            s.tableOrder.clear();
            if (!opened->ask.stayInView && m_state.view != View::Maps && m_state.view != View::Fit)
                m_state.view = View::Maps;
            m_state.statusMessage = fmt::format("opened {}: {}, {} in {:.0f} ms",
                                                std::filesystem::path(opened->ask.path).filename().string(),
                                                m.layoutText(), attentionValuesName(m.values()), opened->ms);
        }
    }

    auto upload = [this](const Image& image, ImTextureID& texture) {
        if (m_textures != nullptr && image.width > 0) texture = m_textures->upload(image, texture);
    };
    const auto previousGrid = maps.grid;
    m_mapsGrid->collect();
    maps.grid = m_mapsGrid->result();
    maps.gridPending = m_mapsGrid->pending();
    if (maps.grid != previousGrid && maps.grid->error.empty()) {
        upload(maps.grid->picture().image, maps.gridTexture);
        upload(maps.grid->colorBar, maps.gridBarTexture);
    }
    const auto previousHead = maps.head;
    m_mapsHead->collect();
    maps.head = m_mapsHead->result();
    maps.headPending = m_mapsHead->pending();
    if (maps.head != previousHead && maps.head->error.empty()) {
        upload(maps.head->picture().image, maps.headTexture);
        upload(maps.head->colorBar, maps.headBarTexture);
    }
    m_layerFit->collect();
    maps.layerFit = m_layerFit->result();
    maps.layerFitPending = m_layerFit->pending();
    m_mapsRow->collect();
    maps.row = m_mapsRow->result();
    maps.rowPending = m_mapsRow->pending();
    const auto previousSimilarity = maps.similarity;
    m_similarity->collect();
    maps.similarity = m_similarity->result();
    maps.similarityPending = m_similarity->pending();
    if (maps.similarity != previousSimilarity) {
        upload(maps.similarity->heatmap.image, maps.similarityTexture);
        upload(maps.similarity->colorBar, maps.similarityBarTexture);
    }

    const auto previousTwoHeads = maps.twoHeads;
    m_mapsTwoHeads->collect();
    maps.twoHeads = m_mapsTwoHeads->result();
    maps.twoHeadsPending = m_mapsTwoHeads->pending();
    if (maps.twoHeads != previousTwoHeads && maps.twoHeads && maps.twoHeads->error.empty())
        upload(maps.twoHeads->figure.image, maps.twoHeadsTexture);

    if (auto fit = m_fitBox.take(generation)) {
        if (generation == m_fitGeneration) maps.fitRunning = false;
        if (fit->cancelled) {
            m_state.statusMessage = "fit cancelled (the previous table stays)";
        } else if (!fit->error.empty()) {
            m_state.errorPopup = fmt::format("The fit stopped: {}", fit->error);
        } else if (maps.file && fit->request.maps == maps.file->maps) {
            maps.fit = fit;
            m_state.maps.tableOrder.clear();  // the table sorts it again
            m_state.statusMessage = fmt::format("fitted {} heads in {:.0f} ms", fit->fits.size(), fit->ms);
        }
    }
    const std::uint64_t total = m_fitProgress->total.load(std::memory_order_relaxed);
    maps.fitProgress =
        total > 0 ? static_cast<float>(m_fitProgress->done.load(std::memory_order_relaxed)) / static_cast<float>(total)
                  : 0.0f;
}

void Explorer::applyMapsLessonTarget(const AttentionMaps& maps) {
    MapsState& s = m_state.maps;
    if (!s.lessonTarget) return;
    const MapsLessonTarget t = *s.lessonTarget;
    s.lessonTarget.reset();
    if (auto index = maps.layerIndexOf(t.layerNumber)) {
        s.layer = *index;
        s.lessonLayer = *index;
    } else if (m_lessons.active())  // the lesson names a layer the file lacks: say so in the lesson panel
        m_state.lessonNote = fmt::format(
            "This step shows layer {}, which the file does not have ({} layer(s)); "
            "showing layer {}.",
            t.layerNumber, maps.layers(), maps.layerInfo().front().number);
    s.overview = false;
    if (t.head >= 0 && t.head < maps.heads()) s.head = t.head;
    if (t.row >= 0 && t.row < maps.queries()) s.row = t.row;
    if (t.side) s.side = *t.side;
    s.lessonSide = t.side.has_value();
    // A lesson reads the maps against the model's own slopes (its session's): pair them, so the
    // fit table's configured m, the configured prior curve and the slope ratio are there.
    if (s.prior == MapsPrior::None &&
        explore::checkPairing(maps, m_lastValid.attention.bias.slopes.heads, "the session"))
        s.prior = MapsPrior::Session;
    if (t.fit) s.fitForLesson = true;
}

void Explorer::showLessonMaps(const std::string& path, const MapsLessonTarget& target) {
    m_state.maps.lessonTarget = target;
    const auto& file = m_model.maps.file;
    std::error_code ec;
    if (file && file->maps && std::filesystem::equivalent(file->ask.path, path, ec))
        applyMapsLessonTarget(*file->maps);
    else
        openAttentionMaps(path);  // collectMaps applies the target once it is open
}

void Explorer::handleMapsKeys() {
    const ImGuiIO& io = ImGui::GetIO();
    const auto& file = m_model.maps.file;
    if (io.WantTextInput || !m_state.errorPopup.empty() || m_state.confirm != Confirm::None || !file ||
        m_state.view != View::Maps || io.KeyCtrl)
        return;
    auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
    const int last = file->maps->layers() - 1;
    int& layer = m_state.maps.layer;
    // While a lesson is open, Page Up / Page Down are the presenter's: they step the lesson.
    if (!m_lessons.active() && pressed(keys::kPageDown)) layer = std::min(layer + 1, last);
    if (!m_lessons.active() && pressed(keys::kPageUp)) layer = std::max(layer - 1, 0);
    if (pressed(keys::kHome)) layer = 0;
    if (pressed(keys::kEnd)) layer = last;
}

void Explorer::runMapsActions() {
    MapsState& s = m_state.maps;
    MapsModel& maps = m_model.maps;
    if (s.cancelOpen) {  // the Cancel button beside "opening ...": the open file (if any) stays
        s.cancelOpen = false;
        if (maps.opening) {
            ++m_mapsOpenGeneration;  // whatever the cancelled open still delivers is dropped
            m_mapsOpenWorker.cancel();
            maps.opening = false;
            s.lessonTarget.reset();
            m_state.statusMessage =
                fmt::format("opening {} cancelled", std::filesystem::path(maps.openingPath).filename().string());
        }
    }
    if (s.open) {
        MapsOpenAsk ask = std::move(*s.open);
        s.open.reset();
        const std::uint64_t generation = ++m_mapsOpenGeneration;
        maps.opening = true;
        maps.openingPath = ask.path;
        auto progress = std::make_shared<MapsOpenProgress>();
        progress->wake = [this] { notify(); };
        maps.openProgress = progress;
        m_mapsOpenWorker.submit([this, ask, generation, progress](const CancelFlag& cancelled) {
            m_mapsOpenBox.put(generation, openMapsFile(ask, &cancelled, progress.get()));
            notify();
        });
    }
    if (s.fitForLesson && maps.file && maps.file->maps && !maps.fitRunning) {
        // A lesson step citing the fit table's rows: fitted against the prior the step paired.
        s.fitForLesson = false;
        updateMapsPrior();
        const FitTableResult* fit = maps.fit.get();
        if (fit == nullptr || fit->request.maps != maps.file->maps || fit->request.configured != maps.configured ||
            fit->request.first != 0 || fit->request.last != -1 || !fit->error.empty() || fit->cancelled) {
            s.fitAllRows = true;  // the step's numbers are over every row
            s.runFit = true;
        }
    }
    if (s.runFit) {
        s.runFit = false;
        if (maps.file && maps.file->maps) {
            FitTableRequest request;
            request.maps = maps.file->maps;
            request.first = s.fitAllRows ? 0 : s.fitFirst;
            request.last = s.fitAllRows ? -1 : s.fitLast;
            request.configured = maps.configured;
            const std::uint64_t generation = ++m_fitGeneration;
            // A fresh progress record per run: a cancelled run still unwinding cannot cancel this one.
            m_fitProgress = std::make_shared<FitProgress>();
            maps.fitRunning = true;
            m_fitWorker.submit([this, request, generation, progress = m_fitProgress](const CancelFlag& cancel) {
                if (auto result = computeFitTable(request, cancel, *progress)) {
                    m_fitBox.put(generation, std::move(result));
                    notify();
                }
            });
        }
    }
    if (s.cancelFit) {
        s.cancelFit = false;
        m_fitProgress->cancel.store(true);
    }
    if (s.exportCsv || s.exportJson) {
        const bool json = s.exportJson;
        s.exportCsv = s.exportJson = false;
        exportFitTable(json);
    }
}

void Explorer::exportFitTable(bool json) {
    const MapsModel& maps = m_model.maps;
    if (!maps.fit || !maps.file) {
        m_state.errorPopup = "Run the fit first: the export writes the fitted table.";
        return;
    }
    // The core's writers, in the CLI's order (layers, then heads by index): the same bytes as
    // `alibi fit FILE --format csv|json` with the same rows and ALiBi parameters.
    FitReport report;
    report.file = maps.file->ask.path;
    report.heads = maps.fit->fits;
    report.firstRow = maps.fit->request.first;
    report.endRow = maps.fit->request.last;  // -1: every row (the JSON records the range)
    const std::string text = json ? fitJson(report, *maps.fit->request.maps) : fitCsv(report);
    if (auto written = writeFileAtomic(m_state.maps.exportPath, text); !written) {
        m_state.errorPopup = written.error().message;
    } else {
        m_state.statusMessage =
            fmt::format("saved {} ({} heads, {})", m_state.maps.exportPath, report.heads.size(), json ? "JSON" : "CSV");
    }
}

void Explorer::submitMapsRequests() {
    const MapsModel& maps = m_model.maps;
    if (!maps.file || !maps.file->maps) return;
    const MapsState& s = m_state.maps;
    const auto& file = maps.file->maps;
    const int layer = std::clamp(s.layer, 0, file->layers() - 1);
    const int head = std::clamp(s.head, 0, file->heads() - 1);
    if (m_state.view != View::Maps) return;
    if (s.twoHeads) {
        if (s.twoWidth > 0 && s.twoHeight > 0)
            m_mapsTwoHeads->submit(TwoHeadsRequest{
                file, std::clamp(s.aLayer, 0, file->layers() - 1), std::clamp(s.aHead, 0, file->heads() - 1), s.bSource,
                std::clamp(s.bLayer, 0, file->layers() - 1), std::clamp(s.bHead, 0, file->heads() - 1), maps.configured,
                maps.fit, s.twoWidth, s.twoHeight});
        return;
    }
    if (s.gridWidth > 0 && s.gridHeight > 0)
        m_mapsGrid->submit(MapsGridRequest{file, layer, -1, s.overview, s.gridWidth, s.gridHeight, s.logColors,
                                           s.perHead, s.gridLabelBand});
    if (s.side == MapsSide::Head && s.headWidth > 0 && s.headHeight > 0)
        m_mapsHead->submit(MapsGridRequest{file, layer, head, false, s.headWidth, s.headHeight, s.logColors, false});
    const std::int64_t first = s.fitAllRows ? 0 : s.fitFirst;
    const std::int64_t last = s.fitAllRows ? -1 : s.fitLast;
    if (s.side != MapsSide::Head) {
        m_layerFit->submit(LayerFitRequest{file, layer, first, last, maps.configured, s.similarityBasis});
    }
    const LayerFitResult* fit = maps.layerFit.get();
    const bool fitCurrent = fit != nullptr && fit->request.maps == file && fit->request.layer == layer &&
                            fit->request.configured == maps.configured && fit->error.empty() &&
                            head < static_cast<int>(fit->fits.size());
    if (s.side == MapsSide::Row) {
        MapsRowRequest row{file,         layer,
                           head,         s.row < 0 ? file->queries() - 1 : std::min(s.row, file->queries() - 1),
                           std::nullopt, std::nullopt};
        if (fitCurrent) row.fitted = fit->fits[static_cast<std::size_t>(head)].slope;
        if (!maps.configured.empty()) row.configured = maps.configured[static_cast<std::size_t>(head)];
        m_mapsRow->submit(row);
    }
    if (s.side == MapsSide::Similarity && fitCurrent && s.similarityWidth > 0 && s.similarityHeight > 0)
        m_similarity->submit(
            SimilarityRequest{maps.layerFit, s.similarityOrder, s.similarityWidth, s.similarityHeight});
}

void Explorer::updateMapsHover() {
    MapsModel& maps = m_model.maps;
    // Two heads: the core's read-out of the cell under the mouse (tokens, A, B, B - A).
    maps.twoHeadsReadout.clear();
    if (const auto& cell = m_state.maps.twoHeadsHover;
        cell && maps.twoHeads && maps.twoHeads->compare && maps.file && maps.twoHeads->request.maps == maps.file->maps)
        maps.twoHeadsReadout =
            explore::headCompareReadout(*maps.file->maps, *maps.twoHeads->compare, cell->query, cell->key);
    const std::optional<MapsCell>& cell = m_state.maps.hover;
    if (!cell || !maps.file) {
        maps.hoverReadout.clear();
        m_mapsHoverShown.reset();
        return;
    }
    if (m_mapsHoverShown == cell && m_mapsHoverFile == maps.file) return;
    m_mapsHoverShown = cell;
    m_mapsHoverFile = maps.file;
    const AttentionMaps& m = *maps.file->maps;
    const explore::HeadSlopes slopes = headSlopesOf(maps, cell->layer, cell->head);
    // The core reads the cell's row (a few KiB even for T = 2048), so the read-out is exact and
    // immediate (the pictures show maxima over the keys a pixel covers).
    auto text = explore::mapsCellReadout(m, cell->layer, cell->head, cell->query, cell->key, slopes);
    maps.hoverReadout = text ? std::move(*text) : text.error().message;
}

void Explorer::drawMapsOpenDialog() {
    MapsState& s = m_state.maps;
    if (pathPrompt("Open attention maps",
                   {"A .npy of shape (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or a .safetensors file",
                    "with one (H, Q, K) or (B, H, Q, K) tensor per layer. Files are memory-mapped."},
                   "##maps-open-path", s.path, s.openDialog))
        openAttentionMaps(s.path);
}

}  // namespace alibi::imgui
