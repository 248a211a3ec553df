// Explorer: results in, panels drawn, edits validated and recorded, actions run, changed requests
// submitted (menus, shortcuts and popups are in explorer_menus.cpp).
#include "explorer.hpp"

#include "panels.hpp"
#include "position_schemes_model.hpp"

#include <alibi/explore/progress_text.hpp>
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

namespace alibi::imgui {

namespace {

// The panels tile the whole window, so they draw no background of their own: the shell clears
// to the panel colour instead. On a software rasteriser (llvmpipe under Xvfb) that saves one
// blended full-window pass per frame.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                         ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus;

// Positions the next panel window at a fixed rectangle of the display.
bool beginPanel(const char* title, float x, float y, float width, float height, ImGuiWindowFlags extra = 0) {
    ImGui::SetNextWindowPos(ImVec2(std::floor(x), std::floor(y)));
    ImGui::SetNextWindowSize(ImVec2(std::floor(width), std::floor(height)));
    return ImGui::Begin(title, nullptr, kPanelFlags | extra);
}

}  // namespace

Explorer::Explorer(TextureUploader* textures, std::function<void()> wake)
    : m_textures(textures), m_wake(std::move(wake)), m_lastValid(m_state.session), m_history(m_state.session) {
    if (auto slopes = computeSlopes(m_state.session.attention.bias.slopes)) m_model.slopes = std::move(*slopes);
    m_model.presets = loadPresets(presetFolders());
    syncTextFields();
    auto view = [this]<class Request, class Result>(AsyncView<Request, Result>& v, auto compute, int niceness = 6) {
        v = std::make_unique<explore::LatestJob<Request, Result>>(compute, m_wake,
                                                                  explore::RunnerOptions{.niceness = niceness});
    };
    m_model.diagnosisProgress = std::make_shared<FileReadProgress>();
    m_model.diagnosisProgress->wake = m_wake;
    view(m_diagnose, [progress = m_model.diagnosisProgress](const DiagnoseRequest& request, const CancelFlag& cancel) {
        return computeDiagnosis(request, cancel, progress);
    });
    view(m_compare, computeCompareResult);
    view(m_extrapolation, computeExtrapolationResult);
    view(m_mapsGrid, computeMapsGrid, 4);
    view(m_mapsHead, computeMapsGrid, 4);
    view(m_layerFit, computeLayerFit);
    view(m_mapsRow, computeMapsRow);
    view(m_similarity, computeSimilarity);
    view(m_mapsTwoHeads, computeTwoHeads, 4);
}

Explorer::~Explorer() {
    if (m_textures != nullptr) {
        for (ImTextureID texture :
             {m_model.gridTexture, m_model.colorBarTexture, m_model.detailTexture, m_model.detailColorBarTexture,
              m_model.diagnosisTexture, m_model.diagnosisBarTexture, m_model.compareTexture, m_model.compareBarTexture,
              m_model.extrapolationTexture, m_model.extrapolationBarTexture, m_model.maps.gridTexture,
              m_model.maps.gridBarTexture, m_model.maps.headTexture, m_model.maps.headBarTexture,
              m_model.maps.similarityTexture, m_model.maps.similarityBarTexture, m_model.maps.twoHeadsTexture})
            if (texture != nullptr) m_textures->release(texture);
    }
}

std::vector<const char*> Explorer::pendingWork() const {
    const std::pair<bool, const char*> work[] = {
        {m_model.gridPending, "grid"},
        {m_model.detailPending, "detail"},
        {m_model.curvesPending, "curves"},
        {m_model.statsPending, "statistics"},
        {m_model.stagesPending, "stages"},
        {m_detailsChangedAt.has_value(), "details (waiting to start)"},
        {m_model.diagnosisPending, "diagnosis"},
        {m_model.sessionOpening, "session open"},
        {m_model.comparePending, "compare"},
        {m_model.extrapolationPending, "extrapolation"},
        {m_model.maps.opening, "maps open"},
        {m_model.maps.gridPending, "maps grid"},
        {m_model.maps.headPending, "maps head"},
        {m_model.maps.layerFitPending, "maps layer fit"},
        {m_model.maps.rowPending, "maps row"},
        {m_model.maps.similarityPending, "maps similarity"},
        {m_model.maps.twoHeadsPending, "maps two heads"},
        {m_model.maps.fitRunning, "maps fit"},
        {mapsGridAwaited(), "maps grid (awaited)"},
        {m_model.exportRunning, "export"},
        {m_model.figureRunning || m_figureJob.running(), "figure"},
        {m_curvesChangedAt.has_value(), "curves (waiting to start)"},
        {!m_hoverWorker.idle(), "hover"},
        {m_model.live.running, "model run"},
        {m_state.draft.pending, "typed number"},  // a typed number applies after a pause
    };
    std::vector<const char*> pending;
    for (const auto& [busy, name] : work)
        if (busy) pending.push_back(name);
    return pending;
}

bool Explorer::busy() const {
    return !pendingWork().empty();
}

void Explorer::installSession(const Session& session) {
    const bool slopesChanged = !(session.attention.bias.slopes.heads == m_lastValid.attention.bias.slopes.heads &&
                                 session.attention.bias.slopes.scheme == m_lastValid.attention.bias.slopes.scheme &&
                                 session.attention.bias.slopes.maxBias == m_lastValid.attention.bias.slopes.maxBias &&
                                 session.attention.bias.slopes.custom == m_lastValid.attention.bias.slopes.custom);
    // The Model view's fields follow the session where it changed (an edit, undo, an opened file);
    // a text being typed stays until then.
    if (session.live.text != m_lastValid.live.text) m_state.live.textDraft = session.live.text;
    if (session.live.path != m_lastValid.live.path) m_state.live.folderDraft = session.live.path;
    if (session.live.change.headSlopes != m_lastValid.live.change.headSlopes) {
        m_state.live.headsText = headSlopesText(session.live.change.headSlopes);
        m_state.live.headsError.clear();
    }
    m_state.session = session;
    m_lastValid = session;
    // Compare's B is part of the session's history (undo, the modified mark), shown by the spec.
    m_state.compareB = session.compare ? *session.compare : explore::geometricCompare();
    m_state.validationError.clear();
    m_state.validationField.reset();
    m_state.draft = {};
    if (slopesChanged || m_model.slopes.empty()) {
        if (auto slopes = computeSlopes(session.attention.bias.slopes)) m_model.slopes = std::move(*slopes);
    }
    syncTextFields();
    if (m_state.hoveredHead >= session.attention.bias.slopes.heads) m_state.hoveredHead = -1;
}

Result<void> Explorer::applySession(const Session& session) {
    if (auto valid = validateSession(session); !valid) return std::unexpected(valid.error());
    installSession(session);
    m_history.record(session);
    return {};
}

Result<void> Explorer::openSession(const Session& opened, const std::string& path) {
    if (auto valid = validateSession(opened); !valid) return std::unexpected(valid.error());
    // The view is the explorer's state, not a parameter: it opens as saved, and switching tabs is
    // neither an undo step nor an unsaved change. Compare's B is kept in the session, so changing
    // it is both (installSession shows it).
    m_state.view = fromExplorerView(openView(opened));
    Session session = opened;
    session.view.reset();
    session.compare = opened.compare ? sessionCompare(*opened.compare) : std::nullopt;
    installSession(session);
    m_history.reset(session);
    m_heldClamps = {};
    m_state.sessionPath = path;
    return {};
}

void Explorer::startOpenSession(const std::string& path, std::function<void(const Result<void>&)> then) {
    const std::uint64_t generation = ++m_sessionOpenGeneration;  // an open under way is replaced
    m_sessionOpenThen = std::move(then);
    m_model.sessionOpening = true;
    m_model.sessionOpeningPath = path;
    auto progress = std::make_shared<FileReadProgress>();
    progress->wake = [this] { notify(); };
    progress->observer = m_readObserver;
    m_model.sessionProgress = progress;
    m_sessionOpenWorker.submit([this, path, generation, progress](const CancelFlag& job) {
        auto out = std::make_shared<SessionOpenResult>();
        out->path = path;
        auto session = loadSession(path, SessionReadOptions{.read = readOptions(job, progress), .bytes = nullptr});
        if (session) {
            out->session = std::move(*session);
        } else {
            out->error = session.error().message;
            out->cancelled = session.error().code == ErrorCode::Cancelled;
        }
        m_sessionOpenBox.put(generation, std::move(out));
        notify();
    });
}

void Explorer::setReadObserver(const ReadProgressFn& observer) {
    m_readObserver = observer;
    m_model.diagnosisProgress->observer = observer;
}

void Explorer::collectSessionOpen() {
    if (m_state.actions.cancelSessionOpen) {
        m_state.actions.cancelSessionOpen = false;
        if (m_model.sessionOpening) {
            ++m_sessionOpenGeneration;  // whatever the cancelled read still delivers is dropped
            m_sessionOpenWorker.cancel();
            m_model.sessionOpening = false;
            m_state.statusMessage = fmt::format("opening {} cancelled; the parameters stay",
                                                std::filesystem::path(m_model.sessionOpeningPath).filename().string());
            if (const auto then = std::exchange(m_sessionOpenThen, nullptr))
                then(fail(ErrorCode::Cancelled, "opening the session was cancelled"));
        }
    }
    std::uint64_t generation = 0;
    auto opened = m_sessionOpenBox.take(generation);
    if (!opened || generation != m_sessionOpenGeneration) return;
    m_model.sessionOpening = false;
    const auto then = std::exchange(m_sessionOpenThen, nullptr);
    Result<void> outcome;
    if (opened->cancelled) {
        m_state.statusMessage = fmt::format("opening {} cancelled; the parameters stay",
                                            std::filesystem::path(opened->path).filename().string());
        outcome = fail(ErrorCode::Cancelled, opened->error);
    } else if (!opened->session) {
        m_state.errorPopup = opened->error;
        outcome = fail(ErrorCode::BadInput, opened->error);
    } else if (auto installed = openSession(*opened->session, opened->path); !installed) {
        // The loader's messages name the file already; validation messages do not.
        m_state.errorPopup = fmt::format("{}: {}", opened->path, installed.error().message);
        outcome = fail(installed.error().code, m_state.errorPopup);
    } else {
        m_state.statusMessage = fmt::format("opened {}", opened->path);
    }
    if (then) then(outcome);
}

void Explorer::undo() {
    if (auto session = m_history.undo()) {
        installSession(*session);
        m_state.statusMessage = "undone";
    }
}

void Explorer::redo() {
    if (auto session = m_history.redo()) {
        installSession(*session);
        m_state.statusMessage = "redone";
    }
}

void Explorer::resetToDefaults() {
    Session defaults = defaultSession();
    installSession(defaults);
    m_history.record(defaults);
    m_state.statusMessage = "parameters reset to the defaults (Ctrl+Z brings them back)";
}

std::string Explorer::windowTitle() const {
    const std::string name = std::filesystem::path(m_state.sessionPath).filename().string();
    // A lesson's step counter too (a presenter sees it in the task bar; the input test reads it).
    const std::string lesson = m_lessons.active() ? " - lesson step " + m_lessons.state()->counter() : "";
    return fmt::format("{}{} - {}{} - ALiBi Explorer (ImGui)", name.empty() ? "untitled" : name,
                       m_history.modified() ? " *" : "", viewTitle(m_state.view), lesson);
}

void Explorer::requestQuit() {
    if (!m_history.modified()) {
        m_state.quitApproved = true;
        return;
    }
    m_state.confirm = Confirm::Quit;
}

void Explorer::syncTextFields() {
    const SlopeParams& slopes = m_state.session.attention.bias.slopes;
    m_state.customSlopesText =
        explore::slopeListText(slopes.scheme == SlopeScheme::Custom ? slopes.custom : m_model.slopes);
    m_state.customSlopesError.clear();
    m_state.maskText = maskName(m_state.session.attention.bias.mask);
    m_state.maskError.clear();
    m_state.batchLengthsText = lengthListText(m_state.session.batch.lengths);
    m_state.batchDocumentsText = lengthListText(m_state.session.batch.documents);
    m_state.batchError.clear();
}

void Explorer::setPresentation(bool on) {
    m_state.presentation = on;
    m_state.presentationParameters = false;
    m_state.fullScreen = on;
    m_state.presentationWidth = m_state.presentationHeight = 0;
    if (!on) m_state.zoom = 1.0f;
}

void Explorer::frame() {
    ++m_state.frameCount;
    // Presentation mode's zoom follows the display (full screen arrives a frame or two later).
    if (const ImVec2 display = ImGui::GetIO().DisplaySize;
        m_state.presentation && (display.x != m_state.presentationWidth || display.y != m_state.presentationHeight)) {
        m_state.presentationWidth = display.x;
        m_state.presentationHeight = display.y;
        m_state.zoom = presentationZoom(display.x, display.y);
    }

    // Any panel may report the head under the mouse; every panel highlights last frame's report,
    // so the highlight does not depend on the order the panels draw in.
    m_state.hoveredHead = m_state.nextHoveredHead;
    m_state.nextHoveredHead = -1;

    collectResults();
    collectSessionOpen();
    handleLessonKeys();
    collectLive();
    collectMaps();
    handleDrops();
    handleShortcuts();
    handleMapsKeys();
    updateMapsPrior();
    const float top = drawMenuBar();
    drawPanels(top);
    drawHelpWindow();
    drawMapsOpenDialog();
    drawModelOpenDialog();
    drawFigurePopup();
    drawConfirmPopup();
    drawErrorPopup();
    validateEdits();
    runActions();
    runMapsActions();
    runLiveActions();
    submitRequests();
    submitMapsRequests();
    updateMapsHover();
}

void Explorer::framePresented() {
    if (!m_shownRequestedAt) return;
    m_state.gridLatencyMs.push(std::chrono::duration<double, std::milli>(Clock::now() - *m_shownRequestedAt).count());
    m_shownRequestedAt.reset();
}

// ---------------------------------------------------------------------------

void Explorer::collectResults() {
    std::uint64_t generation = 0;
    if (auto grid = m_gridBox.take(generation)) {
        m_model.grid = grid;
        // A preview from fewer exact rows stays marked (refining) until the exact grid comes.
        m_model.gridPending = generation != m_gridGeneration || grid->heatmap.rowStep > 1;
        m_state.coreMs.push(grid->coreMs);
        m_shownRequestedAt = grid->requestedAt;
        if (m_textures != nullptr && grid->error.empty()) {
            m_model.gridTexture = m_textures->upload(grid->heatmap.image, m_model.gridTexture);
            m_model.colorBarTexture = m_textures->upload(grid->colorBar, m_model.colorBarTexture);
        }
    }
    if (auto details = m_detailsBox.take(generation)) {
        // A preview brings the head image only; statistics and stages stay marked until the
        // whole result comes.
        const bool current = generation == m_detailsGeneration && !details->preview();
        if (details->detail) {
            m_model.detail = details->detail;
            if (m_textures != nullptr && details->detail->error.empty()) {
                m_model.detailTexture = m_textures->upload(details->detail->heatmap.image, m_model.detailTexture);
                m_model.detailColorBarTexture =
                    m_textures->upload(details->detail->colorBar, m_model.detailColorBarTexture);
            }
        }
        if (details->stats) m_model.stats = details->stats;
        if (details->stages) m_model.stages = details->stages;
        m_model.detailPending = m_model.statsPending = m_model.stagesPending = !current;
    }
    collectViews();
    // Progress and the estimate of the time left (the core's rule) of the grid and the details.
    const auto fraction = [](const GridProgress& p) {
        const std::uint64_t total = p.total.load(std::memory_order_relaxed);
        return total > 0 ? static_cast<float>(p.done.load(std::memory_order_relaxed)) / static_cast<float>(total)
                         : 0.0f;
    };
    const auto left = [](Clock::time_point since, float f) {
        return static_cast<float>(explore::secondsLeft(std::chrono::duration<double>(Clock::now() - since).count(), f));
    };
    m_model.gridProgress = fraction(*m_gridProgress);
    m_model.gridSecondsLeft = left(m_gridSubmittedAt, m_model.gridProgress);
    m_model.detailsProgress = fraction(*m_detailsProgress);
    m_model.detailsSecondsLeft = left(m_detailsSubmittedAt, m_model.detailsProgress);
    if (auto curves = m_curvesBox.take(generation)) {
        m_model.curves = curves;
        m_model.curvesPending = generation != m_curvesGeneration;
    }
    if (auto hover = m_hoverBox.take(generation)) m_model.hoverRow = hover;

    m_model.exportRunning = m_export.running();
    const auto progress = m_export.progress();
    m_model.exportDone = progress ? progress->first : 0;
    m_model.exportTotal = progress ? progress->second : 0;
    if (auto outcome = m_export.takeOutcome()) {
        if (outcome->empty()) {
            m_state.statusMessage = fmt::format("exported {}", m_exportPath);
        } else {
            m_state.errorPopup = *outcome;
        }
    }
}

void Explorer::collectViews() {
    // Uploads `image` when `result` is new (textures stay null in tests).
    auto upload = [this](const Image& image, ImTextureID& texture) {
        if (m_textures != nullptr && image.width > 0) texture = m_textures->upload(image, texture);
    };
    const auto previousDiagnosis = m_model.diagnosis;
    if (m_state.actions.cancelDiagnosis) {
        m_state.actions.cancelDiagnosis = false;
        if (m_diagnose->pending()) {
            m_diagnose->cancel();
            m_state.statusMessage = "diagnosis cancelled; the diagnosis shown stays";
        }
    }
    m_diagnose->collect();
    m_model.diagnosis = m_diagnose->result();
    m_model.diagnosisPending = m_diagnose->pending();
    if (m_model.diagnosis != previousDiagnosis) {
        upload(m_model.diagnosis->errorMap.image, m_model.diagnosisTexture);
        upload(m_model.diagnosis->colorBar, m_model.diagnosisBarTexture);
    }

    const auto previousCompare = m_model.compare;
    m_compare->collect();
    m_model.compare = m_compare->result();
    m_model.comparePending = m_compare->pending();
    if (m_model.compare != previousCompare) {
        upload(m_model.compare->snapshot.image, m_model.compareTexture);
        upload(m_model.compare->colorBar, m_model.compareBarTexture);
    }

    const auto previousExtrapolation = m_model.extrapolation;
    m_extrapolation->collect();
    m_model.extrapolation = m_extrapolation->result();
    m_model.extrapolationPending = m_extrapolation->pending();
    if (m_model.extrapolation != previousExtrapolation) {
        upload(m_model.extrapolation->snapshot.headAtL.image, m_model.extrapolationTexture);
        upload(m_model.extrapolation->colorBar, m_model.extrapolationBarTexture);
    }
}

void Explorer::drawPanels(float top) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float width = std::max(display.x, 640.0f);
    const float em = ImGui::GetFontSize();  // panel widths follow the zoom
    // A lesson takes a strip along the bottom; the panels share what is left.
    const float lesson = m_lessons.height(std::max(display.y, 480.0f) - top, width);
    m_state.lessonOpen = m_lessons.active();
    const float height = std::max(display.y, 480.0f) - top - lesson;
    const bool parameters = !m_state.presentation || m_state.presentationParameters;
    const float left = parameters ? std::clamp(width * 0.23f, 22.0f * em, 28.0f * em) : 0.0f;
    // The curves get a column of their own on wide screens; on narrow ones (1280x720) they are a
    // view of the centre panel only, so the grid and the statistics keep their room.
    const bool curvesColumn = width >= 100.0f * em;
    const float right = curvesColumn ? std::clamp(width * 0.24f, 24.0f * em, 34.0f * em) : 0.0f;
    const float centre = std::max(width - left - right, 200.0f);
    const float split = std::floor(height * 0.64f);
    const float frameStrip = 6.0f * em;
    // During a lesson the curves view keeps the whole height: the strip below takes the room the
    // statistics had, and its three plots must stay readable on a projector.
    // In presentation mode the views take the whole height (the plots stay readable from the back
    // of the room); only the head grid keeps its statistics under it, and not during a lesson (no
    // step speaks of them, and with the lesson strip they would leave the grid a few pixels).
    const bool statsBelow = m_state.presentation ? m_state.view == View::Grid && !m_lessons.active()
                                                 : m_state.view == View::Grid || m_state.view == View::Stages ||
                                                       (m_state.view == View::Curves && !m_lessons.active());

    if (parameters) {
        if (beginPanel("Parameters", 0, top, left, split)) drawParametersPanel(m_state, m_model);
        ImGui::End();
        if (beginPanel("Session and export", 0, top + split, left, height - split)) {
            drawSessionPanel(m_state, m_model);
            ImGui::Separator();
            drawExportPanel(m_state, m_model);
        }
        ImGui::End();
    }
    const float viewHeight = statsBelow ? split : height;
    // The views size their pictures to the room they have: a scroll bar coming and going with the
    // text under a picture would change that room every other frame and restart the core's work.
    // In presentation mode the views' tab bar says what is shown: no title bar above it (its line
    // goes to the pictures).
    if (beginPanel("Views", left, top, centre, viewHeight,
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse |
                       (m_state.presentation ? ImGuiWindowFlags_NoTitleBar : 0)))
        drawViewsPanel(m_state, m_model);
    ImGui::End();
    if (statsBelow) {
        if (beginPanel("Per-head statistics", left, top + split, centre, height - split))
            drawStatsPanel(m_state, m_model);
        ImGui::End();
    }
    if (curvesColumn) {
        if (beginPanel("Curves", left + centre, top, right, height - frameStrip)) drawCurvesPanel(m_state, m_model);
        ImGui::End();
        if (beginPanel("Frame time", left + centre, top + height - frameStrip, right, frameStrip))
            drawFrameTimePanel(m_state, m_model);
        ImGui::End();
    }
    if (m_lessons.active()) {
        switch (m_lessons.draw(0, top + height, width, lesson, m_state.session, m_state.lessonNote)) {
            case LessonPanel::Action::Next:
                lessonNext();
                break;
            case LessonPanel::Action::Previous:
                lessonPrevious();
                break;
            case LessonPanel::Action::Back:
                lessonBackToStep();
                break;
            case LessonPanel::Action::Close:
                closeLesson();
                break;
            default:
                break;
        }
    }
    if (m_lessons.drawList(&m_state.showLessons) == LessonPanel::Action::Open) {
        if (auto ok = openLesson(m_lessons.chosenPath()); !ok) m_state.errorPopup = ok.error().message;
    }
}

void Explorer::validateEdits() {
    // Compare's B, edited in its view, reaches the session here like any other parameter.
    m_state.session.compare = sessionCompare(m_state.compareB);
    // A slider held down or a field being typed into: its changes are not committed yet.
    const bool editing = ImGui::IsAnyItemActive();
    const bool changed = !(m_state.session == m_lastValid);
    if (changed || (!editing && m_heldClamps.any())) {
        Session candidate = m_state.session;
        if (!editing) {
            // Dependents clamped only because of a value the drag passed through come back first.
            const Session& before = m_history.current();
            if (m_heldClamps.queryRow) candidate.queryRow = before.queryRow;
            if (m_heldClamps.head) candidate.head = before.head;
            if (m_heldClamps.custom) candidate.attention.bias.slopes.custom = before.attention.bias.slopes.custom;
            if (m_heldClamps.batch) {
                candidate.batch = before.batch;
                candidate.batchRow = before.batchRow;
            }
            m_heldClamps = {};
        }
        const Session unclamped = candidate;
        const std::string note = explore::joinNotes(explore::clampDependents(candidate, &m_lastValid));
        if (editing) {
            m_heldClamps.queryRow |= candidate.queryRow != unclamped.queryRow;
            m_heldClamps.head |= candidate.head != unclamped.head;
            m_heldClamps.custom |= candidate.attention.bias.slopes.custom != unclamped.attention.bias.slopes.custom;
            m_heldClamps.batch |= candidate.batch != unclamped.batch || candidate.batchRow != unclamped.batchRow;
        }
        if (auto valid = validateSession(candidate); !valid) {
            // The previous valid state stays; the parameters panel shows why the edit was refused.
            m_state.validationError = explore::guiMessage(valid.error().message);
            m_state.validationField = valid.error().field;
            m_state.session = m_lastValid;
        } else {
            if (!editing && !note.empty()) m_state.statusMessage = note;
            const bool custom = candidate.attention.bias.slopes.scheme == SlopeScheme::Custom;
            const bool listChanged =
                candidate.attention.bias.slopes.custom != m_lastValid.attention.bias.slopes.custom ||
                candidate.attention.bias.slopes.heads != m_lastValid.attention.bias.slopes.heads;
            const std::string customText = m_state.customSlopesText;
            const std::string maskText = m_state.maskText;
            installSession(candidate);
            // Keep what the user typed in the text fields unless the values they stand for moved.
            if (custom && !listChanged) m_state.customSlopesText = customText;
            m_state.maskText = maskText;
        }
    }
    // One undo step per committed change: a drag becomes a step when the slider is released.
    if (!editing && !(m_lastValid == m_history.current())) m_history.record(m_lastValid);
}

void Explorer::openSessionFile() {
    // Read on a worker (a session file may be 16 MiB); the outcome arrives in collectSessionOpen.
    startOpenSession(m_state.sessionPath);
    m_state.statusMessage =
        fmt::format("opening {}...", std::filesystem::path(m_state.sessionPath).filename().string());
}

void Explorer::runActions() {
    Actions& actions = m_state.actions;
    if (actions.openSession) {
        actions.openSession = false;
        // Unsaved changes are discarded only once the user says so.
        if (m_history.modified()) {
            m_state.confirm = Confirm::OpenSession;
        } else {
            openSessionFile();
        }
    }
    if (actions.saveSession) {
        actions.saveSession = false;
        Session out = m_lastValid;
        out.view = toExplorerView(m_state.view);
        out.compare = m_state.compareB;
        if (auto saved = saveSession(out, m_state.sessionPath); !saved) {
            m_state.errorPopup = saved.error().message;
        } else {
            m_history.markSaved(m_lastValid);
            m_state.statusMessage = fmt::format("saved {}", m_state.sessionPath);
        }
    }
    if (actions.exportTensor) {
        actions.exportTensor = false;
        // The core's export rules first (the CLI refuses the same files with the same words).
        const ExportPlan plan = planSessionExport(m_lastValid, m_state.exportPath, m_state.exportFormat);
        const bool probabilities = m_lastValid.what == RenderWhat::Attention;
        // A session's batch exports as the whole (B, H, T, T) batch, as `alibi bias` writes it.
        auto e = probabilities ? sessionAttentionExport(m_lastValid, m_state.exportPath, m_state.exportFormat)
                               : sessionBiasExport(m_lastValid, m_state.exportPath, m_state.exportFormat);
        if (!plan.allowed()) {
            m_state.errorPopup = plan.reason;
        } else if (!e) {
            m_state.errorPopup = e.error().message;
        } else if (!m_export.start([source = std::shared_ptr<TensorSource>(std::move(e->source)),
                                    path = m_state.exportPath, format = m_state.exportFormat,
                                    name = probabilities ? "attention" : "bias"](const explore::JobContext& job) {
                       // The core's exportTensor streams and writes atomically; a cancel leaves no file.
                       ExportOptions options;
                       options.format = format;
                       options.tensorName = name;
                       options.progress = job.progress();
                       const Result<void> written = exportTensor(*source, path, options);
                       return written ? std::string{} : written.error().message;
                   })) {
            m_state.errorPopup = "An export is already running; wait for it or cancel it first.";
        } else {
            m_exportPath = m_state.exportPath;
            m_model.exportRunning = true;
            m_state.statusMessage.clear();
        }
    }
    if (m_state.useMaskMin) {
        m_state.useMaskMin = false;
        m_state.session.attention.bias.mask = MaskValue{MaskValue::Kind::Lowest, 0};
        m_state.maskText = maskName(m_state.session.attention.bias.mask);
        m_state.statusMessage = "mask = min (the dtype's lowest value): the export can go ahead";
    }
    if (m_state.openCorrected) {
        m_state.openCorrected = false;
        if (m_model.diagnosis && m_model.diagnosis->diagnosis) {
            if (auto corrected = correctedSession(m_lastValid, *m_model.diagnosis->diagnosis)) {
                if (auto applied = applySession(*corrected); !applied) {
                    m_state.errorPopup = applied.error().message;
                } else {
                    m_state.view = View::Grid;
                    m_state.statusMessage = "opened the corrected parameters (Ctrl+Z goes back)";
                }
            }
        }
    }
    runFigureExport();
    if (actions.copyCli) {
        actions.copyCli = false;
        const bool attention = m_lastValid.what == RenderWhat::Attention;
        m_state.lastCliCommand =
            cliCommand(m_lastValid, attention ? "attention" : "bias", attention ? "attention.npy" : "bias.npy");
        ImGui::SetClipboardText(m_state.lastCliCommand.c_str());
        m_state.statusMessage = "copied: " + m_state.lastCliCommand;
    }
    // The export panel's read-out of what the export would write, re-planned when its inputs move.
    ExportPlanKey key{m_lastValid, m_state.exportPath, m_state.exportFormat};
    if (!m_exportPlanKey || !(*m_exportPlanKey == key)) {
        m_exportPlanKey = key;
        m_model.exportPlan = planSessionExport(m_lastValid, m_state.exportPath, m_state.exportFormat);
    }
    if (actions.cancelExport) {
        actions.cancelExport = false;
        m_export.cancel();
    }
}

void Explorer::notify() const {
    if (m_wake) m_wake();
}

void Explorer::submitRequests() {
    if (auto grid = gridRequest(m_state); grid && grid != m_lastGrid) {
        m_lastGrid = grid;
        const std::uint64_t generation = ++m_gridGeneration;
        m_model.gridPending = true;
        m_gridSubmittedAt = Clock::now();
        m_gridWorker.submit([this, request = *grid, generation, at = Clock::now()](const CancelFlag& cancel) {
            auto preview = [this, generation](std::shared_ptr<const GridResult> coarse) {
                m_gridBox.put(generation, std::move(coarse));
                notify();
            };
            if (auto result = computeGrid(request, at, cancel, m_gridProgress.get(), preview)) {
                m_gridBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    // Views compute only while shown (a diagnosis only once asked for).
    if (auto diagnose = diagnoseRequest(m_state)) m_diagnose->submit(*diagnose);
    if (auto compare = compareRequest(m_state)) m_compare->submit(*compare);
    if (m_state.view == View::Extrapolation) m_extrapolation->submit(extrapolationRequest(m_state));
    if (m_state.view == View::PositionSchemes) {
        const PositionSchemesParams request = positionSchemesRequest(m_state);
        if (!m_model.positionSchemes || !(m_model.positionSchemes->request == request))
            m_model.positionSchemes = computePositionSchemes(request);
    }

    // Curves and the details are slower than the grid and matter less mid-drag: while their worker
    // is still busy, a changed request waits until the parameters rest for kSettleTime, so a drag
    // leaves the cores to the grid instead of starting and cancelling statistics every frame.
    const Clock::time_point now = Clock::now();
    auto ready = [&](bool changed, const explore::JobRunner& worker, std::optional<Clock::time_point>& changedAt) {
        if (!changed) {
            changedAt.reset();
            return false;
        }
        if (!changedAt) changedAt = now;
        return worker.idle() || now - *changedAt >= kSettleTime;
    };
    const CurvesRequest curves = curvesRequest(m_state);
    if (ready(curves != m_lastCurves, m_curvesWorker, m_curvesChangedAt)) {
        m_curvesChangedAt.reset();
        m_lastCurves = curves;
        const std::uint64_t generation = ++m_curvesGeneration;
        m_model.curvesPending = true;
        m_curvesWorker.submit([this, request = curves, generation](const CancelFlag& cancel) {
            if (auto result = computeCurves(request, cancel)) {
                m_curvesBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    // The details: the head image, statistics and stages, as the core computes them after the
    // grid (explore::computeDetails), with a first picture of a costly head image. As in the Qt
    // explorer they start once the exact grid is in, so they never slow the grid's first picture.
    explore::Request details = detailsRequest(m_state);
    const bool gridFirst = m_lastGrid.has_value() && m_model.gridPending;
    // Marked at once (the pictures shown are older than the parameters), even while waiting.
    if (details != m_lastDetails) m_model.detailPending = m_model.statsPending = m_model.stagesPending = true;
    if (!gridFirst && ready(details != m_lastDetails, m_detailsWorker, m_detailsChangedAt)) {
        m_detailsChangedAt.reset();
        m_lastDetails = details;
        const std::uint64_t generation = ++m_detailsGeneration;
        m_model.detailPending = m_model.statsPending = m_model.stagesPending = true;
        m_detailsSubmittedAt = Clock::now();
        m_detailsWorker.submit([this, request = std::move(details), generation](const CancelFlag& cancel) {
            auto preview = [this, generation](std::shared_ptr<const DetailsResult> first) {
                m_detailsBox.put(generation, std::move(first));
                notify();
            };
            if (auto result = computeDetailsResult(request, cancel, m_detailsProgress.get(), preview)) {
                m_detailsBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    if (auto hover = hoverRowRequest(m_state); hover && hover != m_lastHover) {
        m_lastHover = hover;
        const std::uint64_t generation = ++m_hoverGeneration;
        m_hoverWorker.submit([this, request = *hover, generation](const CancelFlag& cancel) {
            if (auto result = computeHoverRow(request, cancel)) {
                m_hoverBox.put(generation, std::move(result));
                notify();
            }
        });
    }
}

}  // namespace alibi::imgui
