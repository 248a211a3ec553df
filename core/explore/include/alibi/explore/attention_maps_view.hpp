// The GUI-neutral layer of the explorers' attention-maps views (a trained model's saved maps):
// what a layer is called, the file in one line, the hover read-out of one cell as the file
// holds it, one query row beside its ALiBi priors, the fit table's columns (titles, values,
// sort keys, formats), the heads' order for the similarity matrix, and which ALiBi prior a file
// can be paired with. Both explorers call these, so they show the same texts and numbers.
#pragma once

#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/base/error.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/plot.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

// "layer 7 (model.layers.7.attn)" for a safetensors tensor, "layer 7" for a stacked array.
[[nodiscard]] std::string mapsLayerLabel(const AttentionMaps& maps, int layerIndex);
// A head's short name where tiles of several layers sit together (the overview, a comparison):
// "L7 h3", the layer's number as the file names it.
[[nodiscard]] std::string mapsHeadLabel(const AttentionMaps& maps, int layerIndex, int head);

// The file in one line: "4 layers x 8 heads x 64 queries x 64 keys · (1, 8, 64, 64) bf16
// .safetensors · probabilities (rows sum to 1 ...) · causal".
[[nodiscard]] std::string mapsSummary(const AttentionMaps& maps);

// How far key j lies from query row q: position - j with position = q + K - Q (causal; negative
// for a key after the query, which a causal row masks), |position - j| otherwise.
[[nodiscard]] std::int64_t mapsDistance(const AttentionMaps& maps, std::int64_t query, std::int64_t key);

// The slopes known for one head, for read-outs and plots.
struct HeadSlopes {
    std::optional<double> fitted;      // m* (once fitted)
    std::optional<double> configured;  // the paired ALiBi parameters' slope
};

// Key j's token as the views show it: “·the” (id 262) (visible text, alibi/text/visible.hpp;
// the id when the file gives ids); "" when the file names no tokens.
[[nodiscard]] std::string mapsTokenText(const AttentionMaps& maps, std::int64_t key);
// "query token “·the” (id 262) · key token “fox” (id 1234)"; "" when the file names no tokens.
[[nodiscard]] std::string mapsTokensLine(const AttentionMaps& maps, std::int64_t query, std::int64_t key);
// Every key's token and every query row's token (at its position q + K - Q), made visible, for
// axis labels (alibi/render/ticks.hpp indexAxisLabels); empty when the file names no tokens.
[[nodiscard]] std::vector<std::string> mapsKeyTokenLabels(const AttentionMaps& maps);
[[nodiscard]] std::vector<std::string> mapsQueryTokenLabels(const AttentionMaps& maps);

// Lines joined by '\n':
//   "layer 2 (model.layers.2.self_attention) · head 3 · query i = 10 · key j = 7 · distance 3"
//   (with " · position 42" before the distance when keys != queries: a KV cache puts query i at
//   position i + K - Q)
//   "query token “·the” (id 262) · key token “fox” (id 1234)"   when the file names its tokens
//   "file value = 0.04544 (f16 probability) · p = 0.0454378 (row renormalised to sum 1)"
//   (or "(f32 score) · p = ... (softmax of the row)")
//   "ALiBi prior softmax(-m d) here: m* = 0.25 -> 0.0123, configured m = 1/4 -> 0.0123"
//   "masked: key after the query (causal)"    for a key the row cannot see
// The file value is the stored number exactly (formatExact in its dtype); p is what the views
// and the fit use (probabilities()).
[[nodiscard]] Result<std::string> mapsCellReadout(const AttentionMaps& maps, int layerIndex, int head,
                                                  std::int64_t query, std::int64_t key, const HeadSlopes& slopes);

// softmax(-m d) over the keys query row q can see (the others 0): the content-free ALiBi prior
// of one row, key by key.
[[nodiscard]] std::vector<double> priorRow(double slope, std::int64_t query, std::int64_t queries, std::int64_t keys,
                                           bool causal);

// The legend names of the two priors, the same in every plot beside the maps (the row plots, the
// distance plots, their figures): "fitted prior, m* = 0.01563" (the fit's four significant
// digits) and "configured prior, m = 1/16" (the slope as the configuration gives it).
[[nodiscard]] std::string fittedPriorLabel(double slope);
[[nodiscard]] std::string configuredPriorLabel(double slope);

// One query row of one head against key j: the file's probabilities, then the prior at the
// fitted and the configured slope when known (same keys, same x).
[[nodiscard]] Result<std::vector<Series>> mapsRowSeries(const AttentionMaps& maps, int layerIndex, int head,
                                                        std::int64_t query, const HeadSlopes& slopes);

// The keys a query-row plot shows, the same in both explorers and the figure: with
// `maxDistance`, the keys within that distance of the query's position; otherwise the keys where
// some series is at least 1/1000 of its peak, padded by a tenth (at least 8 keys), so a steep
// head's curve fills the plot instead of its last few keys. `zoomed`: fewer than every key.
struct KeyWindow {
    std::int64_t first = 0, last = 0;
    bool zoomed = false;
};
[[nodiscard]] KeyWindow mapsRowWindow(const std::vector<Series>& series, std::int64_t position, std::int64_t keys,
                                      std::optional<std::int64_t> maxDistance = std::nullopt);
// Keeps the points of `series` whose x (the key) lies in the window.
void keepKeyWindow(std::vector<Series>& series, const KeyWindow& window);
// "keys 230 to 255 of 256 (the rest hold under 1/1000 of each curve's peak)", or "" unzoomed;
// `what` names the axis ("distances 0 to 40 of 64" on a fit's distance profile).
[[nodiscard]] std::string keyWindowNote(const KeyWindow& window, std::int64_t keys, bool fromMaxDistance,
                                        std::string_view what = "keys");

// ---------------------------------------------------------------------------
// The fit table: one row per layer and head, these columns (the CSV's, plus configured KL).

enum class FitColumn {
    Layer,
    Head,
    Verdict,  // fitVerdict's text; its value (for sorting) is the verdict's kind
    Slope,
    SlopeLow,
    SlopeHigh,
    // The columns a lesson compares side by side (m* and its interval against the configured m,
    // and their ratio) next to each other, in view on a 1280x720 projector in both explorers.
    ConfiguredSlope,
    SlopeRatio,  // m* / configured m: near 1 for a head that follows its slope
    Kl,
    ConfiguredKl,
    SinkMass,
    DiagonalMass,
    Entropy,
    MeanDistance,
    Distance90,
    Rows,
};
inline constexpr int kFitColumnCount = 16;

[[nodiscard]] std::string_view fitColumnTitle(FitColumn column);    // "m*", "KL (nats)", ...
[[nodiscard]] std::string_view fitColumnToolTip(FitColumn column);  // what the column means
// The column's value for sorting and reading; NaN when unknown (no configured slope).
[[nodiscard]] double fitColumnValue(const HeadFit& fit, FitColumn column);
// As the table shows it ("" for NaN); slopes also as powers of two where they are one.
[[nodiscard]] std::string formatFitColumn(FitColumn column, double value);
// One head's cell: formatFitColumn of its value, except that a slope at the search bound reads
// ">= 30" (or "<= -1"), a head with no rows reads "no rows" (past its layer and head), and the
// verdict column reads fitVerdict(fit).text.
[[nodiscard]] std::string fitCellText(const HeadFit& fit, FitColumn column);
// Positions into `fits` sorted by `column` (unknown values last in either direction; ties keep
// the order of `fits`).
[[nodiscard]] std::vector<int> sortFits(std::span<const HeadFit> fits, FitColumn column, bool ascending);

// The fits of one layer (by index), in head order.
[[nodiscard]] std::vector<HeadFit> layerFits(std::span<const HeadFit> fits, int layerIndex);

// The order heads are drawn in along the similarity matrix's axes: by index, by fitted slope
// (steepest first, as orderHeads), or in `distances`' clustering order.
[[nodiscard]] std::vector<int> similarityHeadOrder(std::span<const HeadFit> layer, HeadOrder order,
                                                   const DistanceMatrix& distances);

// Whether slopes for `heads` heads can pair with the maps (same head count), and if not why.
[[nodiscard]] Result<void> checkPairing(const AttentionMaps& maps, int heads, std::string_view source);
// The slopes the maps are paired with: those the user named (`named`, when not empty), else the
// ones the file says its maps were computed with (AttentionMaps::fileSlopes: `alibi run` and the
// explorers' model runs write them), else none. `alibi fit`, `alibi render FILE` and Python pair
// this way; the explorers offer the file's slopes as a prior and choose it for such a file.
[[nodiscard]] std::vector<double> pairedSlopes(const AttentionMaps& maps, std::vector<double> named);

// The line both explorers show above a fit table: "Fitted 32 heads on query rows 0 to 63, beside
// the slopes of the current session; verdicts as in docs/FIT.md." `lastRow` is exclusive (-1:
// every row of `queries`); `configuredSource` empty when no slopes are paired.
[[nodiscard]] std::string fitSummaryLine(std::size_t heads, std::int64_t firstRow, std::int64_t lastRow,
                                         std::int64_t queries, std::string_view configuredSource);

}  // namespace alibi::explore
