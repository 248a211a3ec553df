// The GUI-neutral pieces of an explorer's view of a trained model's saved attention maps: the
// columns of the per-head fit table (titles, cell texts, sort keys and the sorted order), the
// content-free ALiBi prior of one query row over its keys (drawn beside the row the file holds),
// and the hover read-out of one cell of the maps. Added for the ImGui explorer (issue 12), beside
// explore/attention_maps_view.hpp (the Qt explorer's, with its own fit columns): the two are to
// become one. The numbers themselves come from analysis/head_fit.hpp.
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/io/attention_maps.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

// The fit table's columns, in the order a table shows them.
enum class FitTableColumn {
    Layer,
    Head,
    Slope,           // m*
    Interval,        // 95% interval of m* (sorted by its width)
    Kl,              // mean KL of the rows from the fitted prior
    Configured,      // the configured slope (unknown without ALiBi parameters)
    SlopeRatio,      // m* / configured: 1 for a head that follows its slope
    ConfiguredKl,    // mean KL of the rows from the configured slope's prior
    Sink,
    Diagonal,
    Entropy,
    MeanDistance,
    Distance90,
};
inline constexpr std::array kFitTableColumns{FitTableColumn::Layer,        FitTableColumn::Head,     FitTableColumn::Slope,
                                        FitTableColumn::Interval,     FitTableColumn::Kl,       FitTableColumn::Configured,
                                        FitTableColumn::SlopeRatio,   FitTableColumn::ConfiguredKl, FitTableColumn::Sink,
                                        FitTableColumn::Diagonal,     FitTableColumn::Entropy,  FitTableColumn::MeanDistance,
                                        FitTableColumn::Distance90};

// "slope m*", "KL (nats)", ...
[[nodiscard]] std::string_view fitTableColumnTitle(FitTableColumn column);
// What the column means, for a tooltip.
[[nodiscard]] std::string_view fitTableColumnHelp(FitTableColumn column);
// The cell's text ("0.25", "[0.248, 0.252]", "" when the configured slope is unknown; a slope at
// the search bound reads ">= 30").
[[nodiscard]] std::string fitCellText(const HeadFit& fit, FitTableColumn column);
// The number the column sorts by; nullopt when unknown (no configured slope).
[[nodiscard]] std::optional<double> fitSortKey(const HeadFit& fit, FitTableColumn column);
// Positions into `fits` sorted by `column` (unknown values last in either direction; ties keep
// the layer-and-head order of `fits`).
[[nodiscard]] std::vector<int> sortFits(std::span<const HeadFit> fits, FitTableColumn column, bool ascending);

// The content-free ALiBi prior of query row q of maps of this shape, one probability per key:
// softmax(-slope * d_j) over the keys the row may attend to (d_j = i - j for keys j <= i when
// causal, |i - j| otherwise, with the query at position i = q + keys - queries), 0 elsewhere:
// the row analysis/head_fit.hpp's fit compares each row with. Empty for a row with no key.
[[nodiscard]] std::vector<double> queryRowPrior(double slope, std::int64_t queries, std::int64_t keys, bool causal,
                                           std::int64_t q);

// The read-out of one cell of the maps, lines joined by '\n':
//   "layer 3 (attentions.3) · head 2 · query i = 40 · key j = 38 · distance 2"
//   "file value 0.0149918 (f16) · p = 0.0149928 (the row renormalised to sum 1)"
//        (probabilities: "file value p = 0.25 (f32)" when renormalising left it as stored;
//         scores: "file value (score) 3.5 (f32) · p = 0.0917 (softmax of the row)")
//   "prior at m* = 0.25: 0.0917 · at configured m = 1/4: 0.0917"   (when known)
// `stored` is the file's number at the cell (AttentionMaps::storedRow), `probability` the row's
// probability there (AttentionMaps::probabilities); `fitted` and `configured` the head's slopes.
[[nodiscard]] std::string mapsCellText(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query,
                                          std::int64_t key, double stored, double probability,
                                          std::optional<double> fitted, std::optional<double> configured);

}  // namespace alibi::explore
