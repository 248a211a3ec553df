// The computations behind every explorer view, as plain functions over the core: the head grid,
// then the details (detail image, statistics, curves, stages) and the optional compare and
// extrapolation views. `cancelled` is polled between steps and inside long core calls; a
// cancelled call returns early with what it has (grid: ErrorCode::Cancelled).
#pragma once

#include <alibi/explore/snapshot.hpp>

#include <functional>

namespace alibi::explore {

using CancelledFn = std::function<bool()>;

// The grid heatmap at the request's pixel size, with its title and subtitle. `progress`
// (optional) counts the grid's pixel rows; returning false cancels too.
[[nodiscard]] Result<GridSnapshot> computeGrid(const Request& request, const CancelledFn& cancelled = {},
                                               const ProgressFn& progress = {});
// Everything but the grid (which the caller computed first and passes in).
[[nodiscard]] Snapshot computeDetails(const Request& request, GridPtr grid, const CancelledFn& cancelled = {});
// A - B per cell over the whole tensor (both built in memory, up to 2^24 cells), tiles `gap`
// pixels apart (a figure at 2x doubles it).
[[nodiscard]] CompareSnapshot computeCompare(const Session& a, const CompareOverrides& b, int width, int height,
                                             const CancelledFn& cancelled = {}, int gap = 4);
// Attention vs distance of `head` as T grows from L to 16 L, and the mass beyond L per head.
[[nodiscard]] ExtrapolationSnapshot computeExtrapolation(const Session& session, int head,
                                                         const CancelledFn& cancelled = {});

// The query row a session means (-1: the last one), clamped into range.
[[nodiscard]] std::int64_t resolvedQueryRow(const Session& session);
// The session B of the compare view.
[[nodiscard]] Session applyCompare(const Session& a, const CompareOverrides& b);

// Titles: what a heatmap shows, in words ("Attention probabilities · 12 heads · 16 queries x
// 16 keys · causal · press slopes (B = 8) · f32"), and the line beneath it (the mode's formula
// and how pixels summarise cells).
[[nodiscard]] std::string heatmapTitle(const HeatmapParams& params);
[[nodiscard]] std::string heatmapSubtitle(const HeatmapParams& params, const Heatmap& map);
// "Head 3 · slope m = 1/16 · half-life 11.09 keys"
[[nodiscard]] std::string headTitle(int head, double slope);

}  // namespace alibi::explore
