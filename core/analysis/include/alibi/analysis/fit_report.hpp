// The per-head fit table of a trained model's attention maps as text, JSON and CSV: the same
// columns in all three, one row per layer and head (alibi fit, the explorers' export).
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/model/slopes.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alibi {

enum class HeadOrder { Index, Slope, Similarity };
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

// ---------------------------------------------------------------------------
// The verdict: how a fitted head relates to ALiBi and to its configured slope, decided here once
// for the CLI's table, CSV and JSON, both explorers and Python (docs/FIT.md, "Verdict").

enum class FitVerdictKind {
    NoRows,                // every row of the head was empty
    NotAlibiShaped,        // kl > kFitPoorKl: softmax(-m d) explains the rows poorly at any slope
    OneKey,                // m* at the search's upper end: all mass on the nearest key
    PrefersFarKeys,        // m* < 0 and not near-uniform (attention sinks)
    Follows,               // the configured slope lies in m*'s 95% interval or within 10% of m*
    NoDistancePreference,  // the uniform prior explains the rows within 0.001 nats of m*'s
    Steeper,               // m* above the configured slope, outside the interval and the tolerance
    Flatter,               // m* below it
    AlibiShaped,           // no configured slope to compare with; the prior fits and prefers near keys
};
// A colour role each front end maps to its own palette.
enum class FitVerdictRole {
    Neutral,  // no rows, or nothing to compare with
    Agrees,   // follows its slope (green)
    Differs,  // drifted steeper/flatter, or no distance preference (orange)
    Unlike,   // not ALiBi-shaped, one key only, prefers far keys (red)
};

// Stated tolerances of the verdict.
inline constexpr double kFitFollowsTolerance = 0.10;  // |m - m*| <= 10% of m* still follows
inline constexpr double kFitPoorKl = 1.0;             // mean KL (nats) above which the prior explains a head poorly
inline constexpr double kFitUniformKl = 1e-3;         // uniformKl - kl below this: no distance preference

struct FitVerdict {
    FitVerdictKind kind = FitVerdictKind::NoRows;
    FitVerdictRole role = FitVerdictRole::Neutral;
    std::string text;    // "follows its slope", "drifted: 1.3x steeper", "not ALiBi-shaped", ...
    std::string reason;  // one line: the numbers behind it
};

[[nodiscard]] FitVerdict fitVerdict(const HeadFit& fit);
// "follows", "steeper", "no-distance-preference", ...: the JSON's verdict_kind.
[[nodiscard]] std::string_view fitVerdictKindName(FitVerdictKind kind);

struct FitReport {
    std::string file;
    // The query rows the fit used, [firstRow, endRow); endRow -1: not recorded (every row).
    std::int64_t firstRow = 0;
    std::int64_t endRow = -1;
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

// "FIRST:END" (query rows FIRST to END-1), "FIRST:" or ":END" -> {first, end} (end -1: the last
// row); the error names --rows (front ends word it with alibi/base/field_names.hpp).
[[nodiscard]] Result<std::pair<std::int64_t, std::int64_t>> parseRowRange(std::string_view text);

// The configured slopes a fit is compared with: `slopes` as the session gives them, with the head
// count set to the maps' own when the user named none (only a scheme or max_bias), so a file's
// heads pair with the scheme's slopes for that many heads.
[[nodiscard]] Result<std::vector<double>> fitConfiguredSlopes(SlopeParams slopes, bool headsNamed, int mapsHeads);

[[nodiscard]] std::string fitText(const FitReport& report, const AttentionMaps& maps);
// {"file", "layout", "values", "values_reason", "causal", "layers", "heads_per_layer", "queries",
//  "keys", "batch", "fitted_rows": {first, end, every}, "heads": [{layer, head, slope, slope_low,
//  slope_high, slope_at_bound, kl, sink_mass, diagonal_mass, entropy, mean_distance, distance_90,
//  rows, configured_slope?, configured_kl?, uniform_kl, verdict, verdict_kind}],
//  "similarity": [{layer, basis, order, distances}]?}
[[nodiscard]] std::string fitJson(const FitReport& report, const AttentionMaps& maps);
// Header line, then one line per layer and head, the JSON's head fields as columns
// (configured_slope empty when unknown), ending with verdict and verdict_kind.
[[nodiscard]] std::string fitCsv(const FitReport& report);

}  // namespace alibi
