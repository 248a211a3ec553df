// The attention maps' requests and results (issue 12): opening a file, the layer's head grid (or
// every layer at once), one head's picture, one layer's per-head fit with its priors and head
// similarity, one query row beside its priors, the similarity matrix picture, and the whole fit
// table. Each request is plain data compared with ==; each compute function calls only the core
// (AttentionMaps, fitHeads, renderAttentionMaps, ...) and runs on a worker thread.
#pragma once

#include "maps_state.hpp"

#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/head_compare.hpp>
#include <alibi/explore/job_runner.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/head_compare_figure.hpp>
#include <alibi/figure/maps_picture.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include <imgui.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace alibi::imgui {

// What a job sees of its runner (the core's): its cancel flag, polled by the compute functions.
using CancelFlag = explore::JobContext;

// ---------------------------------------------------------------------------
// Opening

struct MapsOpenResult {
    MapsOpenAsk ask;
    std::shared_ptr<const AttentionMaps> maps;  // null on error
    std::vector<std::string> tensors;           // a safetensors file's layer tensors, in layer order ("" entries: none)
    std::string error;                          // why the file cannot be opened (the previous maps stay)
    bool cancelled = false;                     // the user cancelled the open (no message)
    double ms = 0;
};
// How far the open under way is (the core's AttentionOpenProgress), for the panel's progress
// bar: written by the open's thread, read by the frame loop.
struct MapsOpenProgress {
    std::atomic<float> fraction{0.0f};
    mutable std::mutex mutex;
    std::string stage;           // "reading the header: 12.0 MiB of 95.4 MiB"
    std::function<void()> wake;  // asks for a frame (called at most every 50 ms)
    [[nodiscard]] std::string stageText() const {
        std::lock_guard lock(mutex);
        return stage;
    }
};

// Reads the header off the UI thread; `cancelled` (the worker's flag, set by a newer open or the
// Cancel button) stops a long header read; `progress` (optional) is told how far it is.
[[nodiscard]] std::shared_ptr<const MapsOpenResult> openMapsFile(const MapsOpenAsk& ask,
                                                                 const CancelFlag* cancelled = nullptr,
                                                                 MapsOpenProgress* progress = nullptr);

// ---------------------------------------------------------------------------
// Pictures of the maps

struct MapsGridRequest {
    std::shared_ptr<const AttentionMaps> maps;
    int layer = 0;          // layer index
    int head = -1;          // -1: every head of the layer
    bool overview = false;  // every layer: the core's overview (renderAttentionOverview), head ignored
    int width = 0, height = 0;
    bool log = false;
    bool perHead = false;
    int labelBand = 0;  // pixels above each tile for its label (the overview's too: above each row of tiles)
    friend bool operator==(const MapsGridRequest&, const MapsGridRequest&) = default;
};

struct MapsGridResult {
    MapsGridRequest request;
    MapsPicture shown;  // the core's picture (renderMapsPicture) and each tile's layer
    Image colorBar;
    std::string error;
    double ms = 0;
    [[nodiscard]] const Heatmap& picture() const { return shown.map; }
};
[[nodiscard]] std::shared_ptr<const MapsGridResult> computeMapsGrid(const MapsGridRequest& request,
                                                                    const CancelFlag& cancel);
// The cell under pixel (x, y) of a grid result (any picture: one layer, one head, the overview:
// the core's mapsPictureHit).
[[nodiscard]] std::optional<MapsCell> mapsCellAt(const MapsGridResult& grid, int x, int y);
// The index in picture().tiles of the tile showing `cell`'s layer and head; -1 when none does.
[[nodiscard]] int mapsTileOf(const MapsGridResult& grid, const MapsCell& cell);

// ---------------------------------------------------------------------------
// One layer's fit: every head's m*, statistics and profile, the priors to draw beside the
// profiles, and the heads' similarity (profile or full-map Jensen-Shannon distances).

struct LayerFitRequest {
    std::shared_ptr<const AttentionMaps> maps;
    int layer = 0;
    std::int64_t first = 0, last = -1;  // query rows
    std::vector<double> configured;     // one slope per head, or empty
    int basis = 0;                      // similarity: 0 profile, 1 full map
    friend bool operator==(const LayerFitRequest&, const LayerFitRequest&) = default;
};

struct LayerFitResult {
    LayerFitRequest request;
    std::vector<HeadFit> fits;  // by head
    // Per head: the core's distance plot (the file's profile, the prior at m* and at the configured
    // slope when known, over the distances where any holds 1/1000 of its peak), as Qt and the figure draw it.
    std::vector<FitProfilePlot> profiles;
    DistanceMatrix distances;
    std::string error;
};
[[nodiscard]] std::shared_ptr<const LayerFitResult> computeLayerFit(const LayerFitRequest& request,
                                                                    const CancelFlag& cancel);

struct SimilarityRequest {
    std::shared_ptr<const LayerFitResult> fit;
    int order = 0;  // 0 index, 1 fitted slope (steepest first), 2 clustering
    int width = 0, height = 0;
    friend bool operator==(const SimilarityRequest&, const SimilarityRequest&) = default;
};

struct SimilarityResult {
    SimilarityRequest request;
    Heatmap heatmap;
    std::vector<int> order;  // heads along both axes
    Image colorBar;
};
[[nodiscard]] std::shared_ptr<const SimilarityResult> computeSimilarity(const SimilarityRequest& request,
                                                                        const CancelFlag& cancel);

struct MapsRowRequest {
    std::shared_ptr<const AttentionMaps> maps;
    int layer = 0, head = 0;
    std::int64_t row = 0;
    std::optional<double> fitted, configured;
    friend bool operator==(const MapsRowRequest&, const MapsRowRequest&) = default;
};

struct MapsRowResult {
    MapsRowRequest request;
    std::vector<double> probabilities;                 // the file's row (after softmax for scores)
    std::vector<double> fittedPrior, configuredPrior;  // per key; empty when the slope is unknown
    // The plot's lines (explore::mapsRowSeries): the file's row, then the prior at m* and at the
    // configured m when known, over the keys the row can see (a causal row ends at its query).
    std::vector<Series> lines;
    std::string error;
};
[[nodiscard]] std::shared_ptr<const MapsRowResult> computeMapsRow(const MapsRowRequest& request,
                                                                  const CancelFlag& cancel);

// ---------------------------------------------------------------------------
// The fit table: every layer and head

struct FitTableRequest {
    std::shared_ptr<const AttentionMaps> maps;
    std::int64_t first = 0, last = -1;
    std::vector<double> configured;
};

struct FitTableResult {
    FitTableRequest request;
    std::vector<HeadFit> fits;  // layer by layer, heads by index (the CLI's default order)
    std::string error;
    bool cancelled = false;
    double ms = 0;
};

struct FitProgress {
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> total{0};
    std::atomic<bool> cancel{false};  // the Cancel button
};

// Runs fitHeads over every layer; null when the worker's flag cancelled it (a newer job).
[[nodiscard]] std::shared_ptr<const FitTableResult> computeFitTable(const FitTableRequest& request,
                                                                    const CancelFlag& cancel, FitProgress& progress);

// ---------------------------------------------------------------------------
// Two heads side by side: the core's comparison and its figure, drawn at the panel's size

struct TwoHeadsRequest {
    std::shared_ptr<const AttentionMaps> maps;
    int aLayer = 0, aHead = 0;
    int bSource = 0;  // explore::CompareSource
    int bLayer = 0, bHead = 0;
    std::vector<double> configured;
    std::shared_ptr<const FitTableResult> fits;  // the fit table's (its rows and numbers), or null
    int width = 0, height = 0;
    friend bool operator==(const TwoHeadsRequest&, const TwoHeadsRequest&) = default;
};

struct TwoHeadsResult {
    TwoHeadsRequest request;
    std::shared_ptr<const explore::HeadCompareResult> compare;
    HeadCompareFigure figure;
    std::string error;
};
// The core's request of the view's choice (also the figure export's).
[[nodiscard]] explore::HeadCompareRequest headCompareRequestOf(const TwoHeadsRequest& request);
[[nodiscard]] std::shared_ptr<const TwoHeadsResult> computeTwoHeads(const TwoHeadsRequest& request,
                                                                    const CancelFlag& cancel);

// ---------------------------------------------------------------------------
// What the panels draw

struct MapsModel {
    std::shared_ptr<const MapsOpenResult> file;  // the maps shown (null: none opened yet)
    bool opening = false;                        // an open is running (the previous maps stay)
    std::string openingPath;
    std::shared_ptr<MapsOpenProgress> openProgress;  // of the open running

    std::vector<double> configured;  // the paired prior's slope per head (empty: none)
    std::string priorNote;           // what the prior is, or why there is none

    std::shared_ptr<const MapsGridResult> grid;
    ImTextureID gridTexture = nullptr, gridBarTexture = nullptr;
    bool gridPending = false;
    std::shared_ptr<const MapsGridResult> head;
    ImTextureID headTexture = nullptr, headBarTexture = nullptr;
    bool headPending = false;
    std::shared_ptr<const LayerFitResult> layerFit;
    bool layerFitPending = false;
    std::shared_ptr<const MapsRowResult> row;
    bool rowPending = false;
    std::shared_ptr<const SimilarityResult> similarity;
    ImTextureID similarityTexture = nullptr, similarityBarTexture = nullptr;
    bool similarityPending = false;

    std::shared_ptr<const FitTableResult> fit;
    bool fitRunning = false;
    float fitProgress = 0.0f;

    std::shared_ptr<const TwoHeadsResult> twoHeads;
    ImTextureID twoHeadsTexture = nullptr;
    bool twoHeadsPending = false;

    std::string hoverReadout;     // the read-out of AppState::maps.hover (the core's text)
    std::string twoHeadsReadout;  // the read-out of AppState::maps.twoHeadsHover
};

// The slopes known for one head of the open maps: the paired prior's, and m* from the layer's
// fit (else the whole file's fit table) once fitted.
[[nodiscard]] explore::HeadSlopes headSlopesOf(const MapsModel& maps, int layer, int head);

}  // namespace alibi::imgui
