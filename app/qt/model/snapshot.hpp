// Immutable results the compute worker hands to the views. Every number in them comes from a
// core call (renderHeatmap, computeStats, the plot series, attentionStages, ...); the views only
// draw them. Snapshots travel between threads as std::shared_ptr<const T>, so a view can keep the
// one it is showing while a newer one is being computed.
#pragma once

#include <alibi/model/attention.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/render.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/stats.hpp>

#include <QMetaType>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace alibi::qt {

// B of the compare view: A with some parameters replaced ("same as A" when unset).
struct CompareSpec {
    std::optional<SlopeScheme> scheme = SlopeScheme::Geometric;
    std::optional<double> maxBias;
    std::optional<DType> dtype;
    std::optional<BiasMode> mode;
    std::optional<MaskValue> mask;
    std::vector<double> custom;  // used when scheme == Custom
    friend bool operator==(const CompareSpec&, const CompareSpec&) = default;
};

// The head grid: what the default view needs, computed first so it arrives fast.
struct GridSnapshot {
    std::uint64_t generation = 0;
    Session session;              // the parameters the images were computed from
    HeatmapParams gridParams;     // exactly what renderHeatmap got (for hitTest)
    Heatmap grid;
    std::vector<double> slopes;   // per head (computeSlopes)
    double devicePixelRatio = 1;  // of the widget the grid was rendered for
};

struct CompareSnapshot {
    Session sessionB;
    QString error;            // non-empty when B or the difference could not be computed
    Image image;              // difference A - B per head, diverging map, grid layout
    std::vector<HeatmapTile> tiles;
    double maxAbsDifference = 0;
    std::int64_t maxHead = 0, maxQuery = 0, maxKey = 0;  // where the maximum sits
    double maxA = 0, maxB = 0;
};

struct ExtrapolationSnapshot {
    std::int64_t trainLength = 0;                 // L
    std::vector<std::int64_t> lengths;            // L, 2L, 4L, 8L, 16L (capped at kMaxLength)
    std::vector<std::vector<double>> massBeyond;  // [head][length index]: mass at distance > L
    int head = 0;                                 // the head the curves describe
    std::vector<Series> curves;                   // attention vs distance of `head`, per length
    Heatmap headAtL;                              // `head` at T = L
    QString error;
};

// Everything else: statistics, curves, stages, the detail view, and the optional views.
struct Snapshot {
    std::shared_ptr<const GridSnapshot> grid;
    int head = 0;                      // the selected head (detail, stages)
    std::int64_t queryRow = 0;         // the resolved query row (never -1)
    HeatmapParams detailParams;
    Heatmap detail;                    // the selected head alone
    std::vector<double> detailValues;  // Q*K values for small T (empty otherwise); NaN = masked
    std::optional<StatsResult> stats;
    std::vector<Series> slopeCurves;   // the current scheme
    std::vector<Series> schemeCurves;  // press, geometric, linear (and custom) for the same H, B
    std::vector<Series> biasCurves;    // bias vs distance per head
    std::vector<Series> attentionCurves;  // attention vs distance, the query row, per head
    std::optional<AttentionStages> stages;
    std::optional<CompareSnapshot> compare;
    std::optional<ExtrapolationSnapshot> extrapolation;
    QString error;                     // a core error that stopped part of the work
};

using GridPtr = std::shared_ptr<const GridSnapshot>;
using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace alibi::qt

Q_DECLARE_METATYPE(alibi::qt::GridPtr)
Q_DECLARE_METATYPE(alibi::qt::SnapshotPtr)
