// The statistics reports of stats_report.hpp: text table, JSON and CSV.
#include <alibi/model/stats_report.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace alibi {
namespace {

nlohmann::ordered_json rowJson(const RowStats& row) {
    nlohmann::ordered_json j;
    j["entropy"] = row.entropy;
    j["mean_distance"] = row.meanDistance;
    j["distance_50"] = row.distance50;
    j["distance_90"] = row.distance90;
    return j;
}

}  // namespace

std::string statsJson(const StatsResult& stats, const AttentionParams& params) {
    nlohmann::ordered_json doc;
    doc["query"] = stats.queryRow;
    doc["query_position"] = params.bias.queryPosition(stats.queryRow);
    doc["rows_averaged"] = stats.rowsAveraged;
    doc["num_heads"] = params.bias.slopes.heads;
    doc["queries"] = params.bias.queries;
    doc["keys"] = params.bias.keyCount();
    doc["mode"] = modeName(params.bias.mode);
    doc["scheme"] = schemeName(params.bias.slopes.scheme);
    doc["content"] = contentName(params.content.kind);
    auto& heads = doc["heads"] = nlohmann::ordered_json::array();
    for (const HeadStats& h : stats.heads) {
        nlohmann::ordered_json j;
        j["head"] = h.head;
        j["slope"] = h.slope;
        j["half_life"] = h.halfLife;
        j["row"] = rowJson(h.row);
        j["mean"] = rowJson(h.mean);
        heads.push_back(std::move(j));
    }
    return doc.dump(2) + "\n";
}

std::string statsCsv(const StatsResult& stats) {
    std::string out =
        "head,slope,half_life,row_entropy,row_mean_distance,row_distance_50,row_distance_90,"
        "mean_entropy,mean_mean_distance,mean_distance_50,mean_distance_90\n";
    for (const HeadStats& h : stats.heads)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", h.head, h.slope, h.halfLife, h.row.entropy,
                           h.row.meanDistance, h.row.distance50, h.row.distance90, h.mean.entropy, h.mean.meanDistance,
                           h.mean.distance50, h.mean.distance90);
    return out;
}

std::string statsText(const StatsResult& stats, const AttentionParams& params) {
    const BiasParams& b = params.bias;
    std::string out = fmt::format(
        "# H={} Q={} K={} mode {} scheme {} content {}; 'row' = query {} (position {}), 'mean' = average over {} "
        "row(s)\n# entropy in nats; distances in tokens (d50/d90: distance holding 50%/90% of the mass)\n",
        b.slopes.heads, b.queries, b.keyCount(), modeName(b.mode), schemeName(b.slopes.scheme),
        contentName(params.content.kind), stats.queryRow, b.queryPosition(stats.queryRow), stats.rowsAveraged);
    out += fmt::format("{:>4}  {:>11}  {:>10} | {:>9} {:>10} {:>7} {:>7} | {:>9} {:>10} {:>7} {:>7}\n", "head", "slope",
                       "half_life", "entropy", "mean_dist", "d50", "d90", "entropy", "mean_dist", "d50", "d90");
    out += fmt::format("{:>4}  {:>11}  {:>10} | {:^35} | {:^35}\n", "", "", "", "row", "mean");
    for (const HeadStats& h : stats.heads)
        out += fmt::format(
            "{:>4}  {:>11.6g}  {:>10.4g} | {:>9.4f} {:>10.3f} {:>7.6g} {:>7.6g} | {:>9.4f} {:>10.3f} {:>7.6g} "
            "{:>7.6g}\n",
            h.head, h.slope, h.halfLife, h.row.entropy, h.row.meanDistance, h.row.distance50, h.row.distance90,
            h.mean.entropy, h.mean.meanDistance, h.mean.distance50, h.mean.distance90);
    return out;
}

}  // namespace alibi
