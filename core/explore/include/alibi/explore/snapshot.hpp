// What an explorer asks for and what it gets back: a request (the whole session plus the pixel
// sizes of the views) and immutable snapshots computed from it by compute.hpp. Every number and
// every title in a snapshot comes from the core; a front end only draws it. Snapshots are
// shared between threads as std::shared_ptr<const T>, so a view keeps the one it shows while a
// newer one is computed.
#pragma once

#include <alibi/base/tensor.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace alibi::explore {

// The compare view's B when nothing else is asked for (both explorers, `alibi render --what
// compare`): A with geometric slopes, the scheme readers most often compare press against.
// (B itself is io/session.hpp's CompareOverrides: unset fields are "same as A".)
[[nodiscard]] inline CompareOverrides geometricCompare() {
    CompareOverrides b;
    b.scheme = SlopeScheme::Geometric;
    return b;
}

struct Request {
    std::uint64_t generation = 0;
    Session session;
    int gridWidth = 1024, gridHeight = 768;  // device pixels of the grid image
    double devicePixelRatio = 1;
    int labelBand = 0;             // device pixels above every grid tile for its label (HeatmapParams)
    Reduce reduce = Reduce::Auto;  // how grid pixels summarise cells
    bool logScale = false;         // attention: log10 colours
    bool wantCompare = false;
    // Device pixels of the compare image and its label band (0: the grid's), so its tiles are
    // laid out for the compare view's own shape, not the grid's.
    int compareWidth = 0, compareHeight = 0, compareLabelBand = -1;
    CompareOverrides compare = geometricCompare();  // B of the compare view (io/session.hpp)
    bool wantExtrapolation = false;
    // The details (computeDetails): the rows the statistics average per head (0: the core's
    // choice, model/stats statsRowsToAverage), and whether to compute the curves (an explorer that computes them
    // on a worker of its own says false).
    std::int64_t statsMaxRows = 0;
    bool wantCurves = true;
    friend bool operator==(const Request&, const Request&) = default;
};

// The head grid: what the default view needs, computed first so it arrives fast.
struct GridSnapshot {
    std::uint64_t generation = 0;
    Session session;           // the parameters the image was computed from
    HeatmapParams gridParams;  // exactly what renderHeatmap got (for hitTest)
    Heatmap grid;
    std::vector<double> slopes;   // per head (computeSlopes)
    double devicePixelRatio = 1;  // of the view the grid was rendered for
    std::string title;            // what is drawn: "Attention probabilities · 12 heads · ..."
    std::string subtitle;         // the formula, and how pixels summarise cells
};

// A and B cell by cell, for the compare view's hover read-out (compareReadout).
struct CompareCells {
    BiasParams biasA, biasB;             // each side's bias (layout hqk): its mode says what it masks
    std::shared_ptr<const Tensor> a, b;  // A and B as built, [head][query][key]
};

struct CompareSnapshot {
    Session sessionB;
    std::string error;  // non-empty when B or the difference could not be computed
    Image image;        // A - B per head, diverging map, grid layout
    std::vector<HeatmapTile> tiles;
    double maxAbsDifference = 0;
    std::int64_t maxHead = 0, maxQuery = 0, maxKey = 0;  // where the maximum sits
    double maxA = 0, maxB = 0;
    std::string summary;    // "max |A - B| = ... at head ..., query ..., key ...: A = ..., B = ..."
    std::string settingsB;  // "B: geometric slopes · max_bias 8 · f32 · causal mode · mask -inf"
    std::shared_ptr<const CompareCells> cells;  // empty on error
};

// The distance axis of every extrapolation plot (both explorers, the figure): log2(1 + d), so
// distance 0 is on it, with a marker at the training length L.
inline constexpr const char* kExtrapolationDistanceAxis = "distance i - j (log2(1 + d) axis)";

struct ExtrapolationSnapshot {
    std::int64_t trainLength = 0;                 // L
    std::vector<std::int64_t> lengths;            // L, 2L, 4L, 8L, 16L (capped)
    std::vector<std::vector<double>> massBeyond;  // [head][length index]: mass at distance > L
    int head = 0;                                 // the head the curves describe
    std::vector<Series> curves;                   // attention vs distance of `head`, per length
    Heatmap headAtL;                              // `head` at T = L
    HeatmapParams headAtLParams;
    std::string error;
};

// Everything else: statistics, curves, stages, the detail view and the optional views.
struct Snapshot {
    std::shared_ptr<const GridSnapshot> grid;
    int head = 0;               // the selected head (detail, stages)
    std::int64_t queryRow = 0;  // the resolved query row (never -1)
    HeatmapParams detailParams;
    Heatmap detail;                    // the selected head alone
    std::vector<double> detailValues;  // Q*K values for small T (empty otherwise); NaN = masked
    std::string detailTitle;           // "Head 3 · slope m = 1/16 · half-life 11.09 keys"
    std::optional<StatsResult> stats;
    std::vector<Series> slopeCurves;      // the current scheme
    std::vector<Series> schemeCurves;     // press, geometric, linear (and custom) for the same H, B
    std::vector<Series> biasCurves;       // bias vs distance per head
    std::vector<Series> attentionCurves;  // attention vs distance, the query row, per head
    std::optional<AttentionStages> stages;
    std::optional<CompareSnapshot> compare;
    std::optional<ExtrapolationSnapshot> extrapolation;
    std::string error;  // a core error that stopped part of the work
};

using GridPtr = std::shared_ptr<const GridSnapshot>;
using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace alibi::explore
