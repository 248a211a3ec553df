// Explorer: the frame-by-frame glue between the AppState, the panels and the core.
//
// Each frame it (1) takes the results the workers finished, (2) lays out and draws every panel,
// (3) refuses invalid edits (the previous valid session stays), (4) carries out the panels'
// actions (open, save, export), and (5) submits a request to a worker only for results whose
// parameters changed. It holds no GL code, so tests drive it with a bare ImGui context.
#pragma once

#include "app_state.hpp"
#include "figure_export.hpp"
#include "lesson_panel.hpp"
#include "model.hpp"
#include "texture.hpp"
#include "view_models.hpp"

#include <alibi/base/error.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/explore/job_runner.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace alibi::imgui {

// How long parameters must rest before a busy curves or details worker gets the new request.
inline constexpr std::chrono::milliseconds kSettleTime{150};

// The example attention maps (assets/attention, found like the presets), sorted; empty when none.
[[nodiscard]] std::vector<std::string> attentionExamples();
// The example model's folder (assets/models/license-bloom-tiny, found like the presets); "" when none.
[[nodiscard]] std::string exampleModelFolder();

class Explorer {
public:
    // `textures` may be null (tests): results are then kept but never shown as images.
    // `wake` is called from worker threads when a result is ready (the shell wakes its event loop).
    explicit Explorer(TextureUploader* textures = nullptr, std::function<void()> wake = {});
    ~Explorer();
    Explorer(const Explorer&) = delete;
    Explorer& operator=(const Explorer&) = delete;

    [[nodiscard]] AppState& state() { return m_state; }
    [[nodiscard]] const Model& model() const { return m_model; }

    // Call between ImGui::NewFrame() and ImGui::Render().
    void frame();
    // Call once the frame is on screen: closes the latency samples of grids first shown in it.
    void framePresented();

    // Validates and installs a whole session as one undoable step. On error the current session
    // stays and the error is returned.
    Result<void> applySession(const Session& session);
    // Installs a session read from `path` (the --session flag, File > Open): a fresh start of
    // the undo history, unmodified, in the view the session names.
    Result<void> openSession(const Session& session, const std::string& path);
    // Reads the session file `path` on a worker (File > Open, a drop, the command line), with the
    // core's progress and a Cancel beside the session field, then installs it as openSession
    // does; until then, and for good when the read fails or is cancelled, the parameters stay.
    // `then` (optional) runs on the UI thread with the outcome (ErrorCode::Cancelled after a cancel).
    void startOpenSession(const std::string& path, std::function<void(const Result<void>&)> then = {});
    [[nodiscard]] bool sessionOpening() const { return m_model.sessionOpening; }
    // Tests: sees every progress report of a session or diagnosis read on the reading thread;
    // false cancels the read, and waiting in it stands in for a slow disk.
    void setReadObserver(const ReadProgressFn& observer);

    // Edit > Undo / Redo / Reset to defaults (also Ctrl+Z, Ctrl+Shift+Z, Ctrl+R).
    void undo();
    void redo();
    void resetToDefaults();
    [[nodiscard]] const explore::EditHistory& history() const { return m_history; }
    [[nodiscard]] bool modified() const { return m_history.modified(); }

    // The window's title: the session file, a mark when modified, what the centre view shows.
    [[nodiscard]] std::string windowTitle() const;
    // The window's close button: quits at once when nothing is unsaved, otherwise asks first
    // (state().quitApproved turns true once the user agreed).
    void requestQuit();

    // Guided lessons (Help > Lessons, --lesson NAME): opens a lesson by name or path and applies
    // its first step. Stepping applies the step's parameters as one undoable edit.
    Result<void> openLesson(const std::string& nameOrPath);
    bool lessonNext();
    // View > Presentation: full screen and the zoom that fits the display (presentationZoom).
    void setPresentation(bool on);
    bool lessonPrevious();
    void lessonBackToStep();
    void closeLesson();
    [[nodiscard]] const LessonPanel& lessons() const { return m_lessons; }
    [[nodiscard]] LessonPanel& lessons() { return m_lessons; }
    // Opens `path` as a trained model's attention maps on a worker (--attention, Help > examples);
    // the previous maps stay until it has opened, and stay for good when it cannot be.
    void openAttentionMaps(const std::string& path);
    // A lesson step over attention maps: opens `path` unless it is open, then looks where
    // `target` says (layer number, head, row, side picture).
    void showLessonMaps(const std::string& path, const MapsLessonTarget& target);
    // File > Open model: sets the session's model folder (one undoable edit) and runs it on the
    // Model view's text on a worker; its maps open in the Maps view, A vs B in the Model view.
    void openModel(const std::string& folder);
    // Help > Example model: the example model's folder, opened as above.
    void openExampleModel();
    // Files dropped on the window (the shell's drop callback): opened when the next frame runs.
    void dropFiles(std::vector<std::string> paths);

    // True while any result is being computed or an export runs (the shell then keeps polling).
    [[nodiscard]] bool busy() const;
    // What busy() waits for, by name (a scripted run that gives up says which).
    [[nodiscard]] std::vector<const char*> pendingWork() const;

private:
    void collectResults();
    void handleShortcuts();
    float drawMenuBar();
    void drawPanels(float top);
    void drawErrorPopup();
    void drawConfirmPopup();
    void drawHelpWindow();
    void applyLessonStep();
    void handleLessonKeys();
    void validateEdits();
    void installSession(const Session& session);
    void openSessionFile();
    void collectSessionOpen();
    void collectViews();
    // File > Export figure... (figure_export.cpp).
    void drawFigurePopup();
    void runFigureExport();
    void runActions();
    void submitRequests();
    void syncTextFields();
    void notify() const;
    // The attention maps (explorer_maps.cpp).
    void handleDrops();
    void collectMaps();
    void runMapsActions();
    void submitMapsRequests();
    void updateMapsPrior();
    void updateMapsHover();
    void exportFitTable(bool json);
    void handleMapsKeys();
    void applyMapsLessonTarget(const AttentionMaps& maps);
    [[nodiscard]] bool mapsGridAwaited() const;
    void drawMapsOpenDialog();
    // The model run (explorer_live.cpp).
    void collectLive();
    void runLiveActions();
    void drawModelOpenDialog();

    AppState m_state;
    Model m_model;
    TextureUploader* m_textures = nullptr;
    std::function<void()> m_wake;
    Session m_lastValid;
    explore::EditHistory m_history;
    LessonPanel m_lessons;
    // Dependents clamped silently while a slider is held (restored, then clamped with a note,
    // when the drag ends): dragging T from 128 to 2 and back leaves query row 40 where it was.
    struct HeldClamps {
        bool queryRow = false, head = false, custom = false, batch = false;
        [[nodiscard]] bool any() const { return queryRow || head || custom || batch; }
    } m_heldClamps;

    std::optional<GridRequest> m_lastGrid;
    std::optional<explore::Request> m_lastDetails;
    std::uint64_t m_detailsGeneration = 0;
    explore::Mailbox<DetailsResult> m_detailsBox;
    std::shared_ptr<GridProgress> m_gridProgress = std::make_shared<GridProgress>();
    Clock::time_point m_gridSubmittedAt{};  // for the grid progress's estimate
    std::shared_ptr<GridProgress> m_detailsProgress = std::make_shared<GridProgress>();
    Clock::time_point m_detailsSubmittedAt{};
    std::optional<CurvesRequest> m_lastCurves;
    std::optional<HoverRowRequest> m_lastHover;
    std::uint64_t m_gridGeneration = 0, m_curvesGeneration = 0, m_hoverGeneration = 0;
    std::optional<Clock::time_point> m_curvesChangedAt;  // a changed request waiting to settle
    std::optional<Clock::time_point> m_detailsChangedAt;
    std::optional<Clock::time_point> m_shownRequestedAt;  // grid uploaded this frame, requested then

    explore::Mailbox<GridResult> m_gridBox;
    explore::Mailbox<CurvesResult> m_curvesBox;
    explore::Mailbox<HoverRow> m_hoverBox;
    std::string m_exportPath;         // of the export running or last run
    bool m_figurePopupShown = false;  // the Export figure popup was open last frame
    struct ExportPlanKey {
        Session session;
        std::string path;
        FileFormat format;
        friend bool operator==(const ExportPlanKey&, const ExportPlanKey&) = default;
    };
    std::optional<ExportPlanKey> m_exportPlanKey;

    struct LiveOutcome {
        std::shared_ptr<const lm::LiveRun> run;  // null: refused or cancelled
        LiveModelParams params;
        std::string error;
        bool cancelled = false;
    };
    explore::Mailbox<LiveOutcome> m_liveBox;
    std::uint64_t m_liveGeneration = 0;
    // A session file read on a worker (startOpenSession).
    struct SessionOpenResult {
        std::string path;
        std::optional<Session> session;
        std::string error;
        bool cancelled = false;
    };
    explore::Mailbox<SessionOpenResult> m_sessionOpenBox;
    std::uint64_t m_sessionOpenGeneration = 0;
    std::function<void(const Result<void>&)> m_sessionOpenThen;
    ReadProgressFn m_readObserver;

    explore::Mailbox<MapsOpenResult> m_mapsOpenBox;
    std::uint64_t m_mapsOpenGeneration = 0;
    explore::Mailbox<FitTableResult> m_fitBox;
    std::uint64_t m_fitGeneration = 0;
    std::shared_ptr<FitProgress> m_fitProgress = std::make_shared<FitProgress>();
    std::optional<MapsCell> m_mapsHoverShown;  // the cell the read-out was made for
    std::shared_ptr<const MapsOpenResult> m_mapsHoverFile;

    // Runners last (the core's): they are destroyed (joined) first, before the mailboxes their
    // jobs write to. The grid is what a drag waits for; curves and statistics may trail it.
    explore::TaskJob<std::string> m_export{{.niceness = 10}};  // "" on success, else the message
    FigureJob m_figureJob{{.niceness = 10}};
    explore::JobRunner m_gridWorker{{.niceness = 4}};
    explore::JobRunner m_curvesWorker{{.niceness = 10}};
    explore::JobRunner m_detailsWorker{{.niceness = 6}};  // head image, statistics, stages
    explore::JobRunner m_hoverWorker{{.niceness = 4}};
    template <class Request, class Result>
    using AsyncView = std::unique_ptr<explore::LatestJob<Request, Result>>;
    AsyncView<DiagnoseRequest, DiagnoseResult> m_diagnose;
    AsyncView<CompareRequest, CompareResult> m_compare;
    AsyncView<ExtrapolationRequest, ExtrapolationResult> m_extrapolation;
    explore::JobRunner m_mapsOpenWorker{{.niceness = 2}};
    explore::JobRunner m_liveWorker{{.niceness = 2}};
    explore::JobRunner m_sessionOpenWorker{{.niceness = 2}};
    explore::JobRunner m_fitWorker{{.niceness = 10}};
    AsyncView<MapsGridRequest, MapsGridResult> m_mapsGrid;
    AsyncView<MapsGridRequest, MapsGridResult> m_mapsHead;
    AsyncView<LayerFitRequest, LayerFitResult> m_layerFit;
    AsyncView<MapsRowRequest, MapsRowResult> m_mapsRow;
    AsyncView<SimilarityRequest, SimilarityResult> m_similarity;
    AsyncView<TwoHeadsRequest, TwoHeadsResult> m_mapsTwoHeads;
};

}  // namespace alibi::imgui
