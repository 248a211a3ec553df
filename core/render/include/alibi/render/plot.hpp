// Curves as figures (SVG documents or PNG images of one layout): slopes per head (log2 axis),
// bias vs distance, attention vs distance.
// The data functions are shared with the GUIs, which draw the same series natively.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <optional>
#include <string>
#include <vector>

namespace alibi {

struct Series {
    std::string label;  // "head 0 (m = 0.5)"
    std::vector<double> x, y;
};

// Slope per head, x = head index, y = slope (plotted on a log2 axis).
[[nodiscard]] Result<std::vector<Series>> slopeSeries(const SlopeParams& params);
// Bias vs distance d = 0..maxDistance for every head (the mode's allowed side).
[[nodiscard]] Result<std::vector<Series>> biasDistanceSeries(const BiasParams& params, std::int64_t maxDistance);
// Attention probability vs distance p_i - j for query row `query` (-1: last), every head.
// `progress` counts heads; a row with q.k content costs K * d_k, so many heads take a while.
[[nodiscard]] Result<std::vector<Series>> attentionDistanceSeries(const AttentionParams& params, std::int64_t query,
                                                                  const ProgressFn& progress = {});

// Axis ticks at 1, 2 or 5 times a power of ten covering [lo, hi], about `target` of them, at
// most 64. A span too small to resolve at its magnitude (adding the step would not move the
// value) or a non-finite bound gives the single tick lo.
[[nodiscard]] std::vector<double> niceTicks(double lo, double hi, int target);

struct PlotStyle {
    std::string title;
    std::string xLabel;
    std::string yLabel;
    bool logY2 = false;  // log2 y axis (slopes), ticks labelled 1/2, 1/4, ...
    // x plotted at log2(1 + x): a log axis for distances that keeps distance 0 (ticks 0, 1, 2,
    // 4, ...; the x label should say so). The explorers' extrapolation plots use the same axis.
    bool logX1p = false;
    // A dashed vertical marker at this x with its label at the top (the training length L).
    std::optional<double> markX = {};
    std::string markLabel = {};
    int width = 800;
    int height = 500;
    int highlight = -1;  // series drawn emphasised, others faded
    // The highlighted series thick and underneath, the others in full colour on top: a
    // measurement beside the model curves that should trace it, which stay visible where they do.
    bool highlightUnder = false;
    // Each point as a bar from the axis (from the bottom on a log2 axis), as the explorers draw
    // the slopes per head; x is then categorical (a head index), padded half a bar each side.
    bool bars = false;
    // x is a category (a head index) drawn as lines and markers: padded half a unit each side, as
    // bars are, so the first and last markers stay off the frame.
    bool categorical = false;
    // The y axis reaches down to 0 (probabilities and shares, whose floor is 0), not only to the
    // smallest value drawn.
    bool yFromZero = false;
    // The line under the figure (the view's formula line), wrapped across it; empty: none.
    std::string caption = {};
    // The legend at the right, laid out by planLegend (legend_layout.hpp): whole names, brief
    // ones ("h3"), or some entries with "k of n listed".
    bool legend = true;
};

// A standalone SVG 1.1 document. Text is measured with the figure font (DejaVu Sans), so the
// layout is plotPng's exactly.
[[nodiscard]] std::string plotSvg(const std::vector<Series>& series, const PlotStyle& style);
// The same figure as an image of (width * scale) x (height * scale) pixels, scale 1, 2 or 4: the
// same layout drawn with that many times the pixels. An error when the label font is missing.
[[nodiscard]] Result<Image> plotPng(const std::vector<Series>& series, const PlotStyle& style, int scale = 1);

// What a plot's curves are drawn on.
enum class PlotBackground { Light, Dark };

// Curve n of `count` (a head's, steepest first): one colour per curve along Viridis, the same in
// both explorers and the figures (ImGui started its ramp at 0.15, Qt at 0.3, the figures at 0).
// On light, t in [0, 0.9]: Viridis's pale yellow end vanishes on white. On dark, t in [0.3, 0.95]:
// its near-black start vanishes there. A single curve takes the ramp's start.
[[nodiscard]] Rgba seriesColor(std::size_t n, std::size_t count, PlotBackground background = PlotBackground::Light);

}  // namespace alibi
