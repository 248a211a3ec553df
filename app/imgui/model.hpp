// The Model: core results computed from the AppState, and the requests that produce them.
//
// Each kind of result (grid, curves, the details, one attention row for the hover read-out) has a
// request struct derived from the state by a pure function, and a compute function that calls
// only the core. The details (head image, statistics, stages) are the core's computeDetails, as
// in the Qt explorer. The Explorer submits a request to a worker only when it differs from the last one
// submitted, so idle frames cost nothing and the core is never asked twice for the same thing.
#pragma once

#include <alibi/explore/snapshot.hpp>
#include <alibi/io/read_progress.hpp>
#include <alibi/io/session.hpp>
#include <alibi/lm/live_run.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/plot_ranges.hpp>
#include <alibi/render/render.hpp>

#include "maps_model.hpp"
#include "presets.hpp"

#include <alibi/io/export_plan.hpp>

#include <imgui.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace alibi::imgui {

// The colours in a colour bar's gradient texture (smooth at any bar height the views draw).
inline constexpr int kColorBarSteps = 256;

struct AppState;
struct StagesResult;           // view_models.hpp
struct DiagnoseResult;         // view_models.hpp
struct CompareResult;          // view_models.hpp
struct ExtrapolationResult;    // view_models.hpp
struct PositionSchemesResult;  // position_schemes_model.hpp
using Clock = std::chrono::steady_clock;

// Points kept per curve after thinning: about one per pixel column of the curves panel, fewer
// when there are many heads, so one plot stays within a fixed vertex budget per frame. Under
// Mesa's software rasteriser a budget of 16384 cost 22 ms a frame at H = 256, 8192 costs 17 ms
// (32 points per head, still smooth for straight bias lines and decaying attention).
inline constexpr int kCurveColumns = 200;
inline constexpr int kCurvePointBudget = 8192;

// ---------------------------------------------------------------------------
// Requests

struct GridRequest {
    HeatmapParams heatmap;
    friend bool operator==(const GridRequest&, const GridRequest&) = default;
};

struct CurvesRequest {
    AttentionParams attention;
    std::int64_t queryRow = -1;
    friend bool operator==(const CurvesRequest&, const CurvesRequest&) = default;
};

struct HoverRowRequest {
    AttentionParams attention;
    int head = 0;
    std::int64_t query = 0;
    BatchParams batch;  // active: the row is batch row `batchRow`'s
    std::int64_t batchRow = 0;
    friend bool operator==(const HoverRowRequest&, const HoverRowRequest&) = default;
};

// The requests the current state asks for. The grid request is empty until the grid panel has
// measured its size; the hover request only exists over an attention grid.
[[nodiscard]] std::optional<GridRequest> gridRequest(const AppState& state);
// The head the detail and stages views describe.
[[nodiscard]] int detailHead(const Session& session);
[[nodiscard]] CurvesRequest curvesRequest(const AppState& state);
// The details (explore::computeDetails): the selected head's image (0 when none is selected),
// the statistics (over state.statsMaxRows rows, 0: the core's choice) and the stages. The curves
// have a worker of their own (wantCurves false).
[[nodiscard]] explore::Request detailsRequest(const AppState& state);
[[nodiscard]] std::optional<HoverRowRequest> hoverRowRequest(const AppState& state);

// ---------------------------------------------------------------------------
// Results (immutable once published; shared between the worker and the UI by shared_ptr)

struct GridResult {
    GridRequest request;
    Heatmap heatmap;
    std::vector<double> values;  // the detail's Q x K numbers of the head, row-major (small heads only)
    std::string title;           // what is drawn, in words (the explore layer's heatmapTitle)
    std::string subtitle;        // the formula and how pixels summarise cells
    // The colour bar's gradient, kColorBarSteps colours from hi to lo: its own strip, not one
    // colour per row of the map (a map of Q = 4 rows drew a bar of 4 flat bands).
    Image colorBar;
    std::vector<double> slopes;
    std::string error;  // non-empty: the core refused (heatmap empty)
    double coreMs = 0;
    Clock::time_point requestedAt;
};

struct CurvesResult {
    CurvesRequest request;
    std::vector<Series> slopes;
    std::vector<Series> bias;
    std::vector<Series> attention;
    // The plots' spans (the core's plotRanges for their PlotKind), found once by the worker so
    // frames do not rescan the series (256 heads x 65536 distances).
    PlotRanges slopeRange, biasRange, attentionRange;
    std::int64_t maxDistance = 0;
    std::string error;
    double coreMs = 0;
};

struct StatsOutcome {
    StatsResult stats;
    std::string error;
    double coreMs = 0;
};

struct HoverRow {
    HoverRowRequest request;
    std::vector<double> probabilities;
    std::string error;
};

// How far the grid (or the details) being computed has got (the stale marks' progress), written by
// the worker.
struct GridProgress {
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> total{0};
};

// A costly grid (explore::gridPasses) goes to `preview` first (its heatmap.rowStep > 1), then
// the exact one is returned; `progress` runs once over every pass (explore::renderPasses).
[[nodiscard]] std::shared_ptr<const GridResult> computeGrid(
    const GridRequest& request, Clock::time_point requestedAt, const CancelFlag& cancel,
    GridProgress* progress = nullptr, const std::function<void(std::shared_ptr<const GridResult>)>& preview = {});
[[nodiscard]] std::shared_ptr<const CurvesResult> computeCurves(const CurvesRequest& request, const CancelFlag& cancel);
// The details as the core computes them (explore::computeDetails), split into what the panels
// show. A preview holds only `detail` (a first picture of the head image from fewer exact rows,
// heatmap.rowStep > 1); the result holds all three.
struct DetailsResult {
    explore::Request request;
    std::shared_ptr<const GridResult> detail;
    std::shared_ptr<const StatsOutcome> stats;
    std::shared_ptr<const StagesResult> stages;
    [[nodiscard]] bool preview() const { return detail && detail->heatmap.rowStep > 1 && !stats; }
};
[[nodiscard]] std::shared_ptr<const DetailsResult> computeDetailsResult(
    const explore::Request& request, const CancelFlag& cancel, GridProgress* progress = nullptr,
    const std::function<void(std::shared_ptr<const DetailsResult>)>& preview = {});
[[nodiscard]] std::shared_ptr<const HoverRow> computeHoverRow(const HoverRowRequest& request, const CancelFlag& cancel);

// ---------------------------------------------------------------------------
// A whole-file read under way (a session file, a tensor to diagnose): the core's progress
// (ReadProgress), written by the reading thread and read by the frame loop.

struct FileReadProgress {
    std::atomic<float> fraction{0.0f};
    mutable std::mutex mutex;
    std::string text;            // the core's words: "reading: 3.0 MiB of 15.2 MiB"
    std::function<void()> wake;  // asks for a frame (called at most every 50 ms)
    ReadProgressFn observer;     // tests: sees every report on the reading thread; false cancels
    [[nodiscard]] std::string stageText() const {
        std::lock_guard lock(mutex);
        return text;
    }
};

// Read options for a job of `job`'s runner: its cancel flag, and its progress into `progress`
// (optional).
[[nodiscard]] ReadOptions readOptions(const CancelFlag& job, const std::shared_ptr<FileReadProgress>& progress);

// ---------------------------------------------------------------------------
// What the panels draw. The grid's texture is uploaded by the GL shell; panels only show it.

// The Model view's run (lm::runLive on a worker): the last finished run, and the one under way.
struct LiveModel {
    std::shared_ptr<const lm::LiveRun> run;  // the last finished run (null before the first)
    LiveModelParams runParams;               // what it ran
    bool running = false;
    std::string runningModel;  // the folder's name, while running
    std::string error;         // the last refusal, as the core words it ("" after a success)
    std::shared_ptr<std::atomic<float>> progress = std::make_shared<std::atomic<float>>(0.0f);
};

struct Model {
    LiveModel live;
    std::shared_ptr<const GridResult> grid;
    ImTextureID gridTexture = nullptr;
    ImTextureID colorBarTexture = nullptr;
    std::shared_ptr<const CurvesResult> curves;
    std::shared_ptr<const StatsOutcome> stats;
    std::shared_ptr<const HoverRow> hoverRow;
    std::vector<double> slopes;   // of the current (valid) session, from the core's validation
    std::vector<Preset> presets;  // read once at start
    std::shared_ptr<const GridResult> detail;
    ImTextureID detailTexture = nullptr;
    ImTextureID detailColorBarTexture = nullptr;
    bool detailPending = false;
    float gridProgress = 0.0f;   // of the grid being computed (0..1)
    float gridSecondsLeft = -1;  // its estimate (-1: none yet)
    // The details (head image, statistics, stages) being computed: one progress and estimate.
    float detailsProgress = 0.0f;
    float detailsSecondsLeft = -1;
    std::shared_ptr<const StagesResult> stages;
    bool stagesPending = false;
    std::shared_ptr<const DiagnoseResult> diagnosis;
    ImTextureID diagnosisTexture = nullptr;
    ImTextureID diagnosisBarTexture = nullptr;
    bool diagnosisPending = false;
    std::shared_ptr<FileReadProgress> diagnosisProgress;  // of the read under way (diagnosisPending)
    // A session file being read (File > Open, a drop, the command line); the parameters stay
    // until it has been read and checked.
    bool sessionOpening = false;
    std::string sessionOpeningPath;
    std::shared_ptr<FileReadProgress> sessionProgress;
    std::shared_ptr<const CompareResult> compare;
    ImTextureID compareTexture = nullptr;
    ImTextureID compareBarTexture = nullptr;
    bool comparePending = false;
    std::shared_ptr<const ExtrapolationResult> extrapolation;
    ImTextureID extrapolationTexture = nullptr;
    ImTextureID extrapolationBarTexture = nullptr;
    bool extrapolationPending = false;
    std::shared_ptr<const PositionSchemesResult> positionSchemes;  // while the view is shown

    // Work in flight: the panels say "computing..." while the previous result stays on screen.
    bool gridPending = false;
    bool curvesPending = false;
    bool statsPending = false;

    // The export running in the background, if any.
    bool exportRunning = false;
    std::uint64_t exportDone = 0;
    std::uint64_t exportTotal = 0;
    ExportPlan exportPlan;  // what "Export tensor" would write, or why it is refused

    // The figure being drawn in the background (figure_export.hpp), if any.
    bool figureRunning = false;
    float figureProgress = -1.0f;  // 0..1; -1 while the figure's work has no count

    // A trained model's attention maps (issue 12).
    MapsModel maps;
};

}  // namespace alibi::imgui
