// The per-head fit table of a trained model's attention maps as text, JSON and CSV: the same
// columns in all three, one row per layer and head (alibi fit, the explorers' export).
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

enum class HeadOrder { Index, Slope, Similarity };
[[nodiscard]] std::string_view headOrderName(HeadOrder order);
[[nodiscard]] std::optional<HeadOrder> parseHeadOrder(std::string_view name);

enum class SimilarityBasis { Profile, Map };
[[nodiscard]] std::string_view similarityBasisName(SimilarityBasis basis);
[[nodiscard]] std::optional<SimilarityBasis> parseSimilarityBasis(std::string_view name);

// One layer's head similarity: the distances and the clustering order.
struct LayerSimilarity {
    int layer = 0;  // the layer's number
    SimilarityBasis basis = SimilarityBasis::Profile;
    DistanceMatrix distances;
    std::vector<int> order;
};

struct FitReport {
    std::string file;
    std::vector<HeadFit> heads;               // in the order the table lists them
    std::vector<LayerSimilarity> similarity;  // empty unless asked for
};

// Orders each layer's heads (the table keeps layers in their order): by index, by fitted slope
// (steepest first), or by the clustering order of `similarity` (the layer's entry).
[[nodiscard]] std::vector<HeadFit> orderHeads(std::vector<HeadFit> heads, HeadOrder order,
                                              const std::vector<LayerSimilarity>& similarity);

// How fitted heads become a report: the table's head order and, when asked, each layer's
// similarity (profile distances from the fits, or full-map distances read from `maps` over the
// rows the fit used).
struct FitReportOptions {
    HeadOrder order = HeadOrder::Index;
    std::optional<SimilarityBasis> similarity;  // nullopt: none (order Similarity implies Profile)
    std::int64_t firstRow = 0;                  // the fit's rows, for map distances
    std::int64_t lastRow = -1;
    unsigned threads = 0;
};

// The report `alibi fit` prints and the explorers export (one function, so the bytes agree).
// `fits` as fitHeads returns them (grouped by layer).
[[nodiscard]] Result<FitReport> makeFitReport(const AttentionMaps& maps, std::vector<HeadFit> fits, std::string file,
                                              const FitReportOptions& options);

[[nodiscard]] std::string fitText(const FitReport& report, const AttentionMaps& maps);
// {"file", "layout", "values", "values_reason", "causal", "layers", "heads_per_layer", "queries",
//  "keys", "batch", "heads": [{layer, head, slope, slope_low, slope_high, slope_at_bound, kl,
//  sink_mass, diagonal_mass, entropy, mean_distance, distance_90, rows, configured_slope?}],
//  "similarity": [{layer, basis, order, distances}]?}
[[nodiscard]] std::string fitJson(const FitReport& report, const AttentionMaps& maps);
// Header line, then one line per layer and head, the JSON's head fields as columns
// (configured_slope empty when unknown).
[[nodiscard]] std::string fitCsv(const FitReport& report);

}  // namespace alibi
