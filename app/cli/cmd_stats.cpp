// `alibi stats`: per-head statistics of the attention distribution (entropy, mean attended
// distance, the distances holding 50% and 90% of the mass, half-life) at one query row and
// averaged over rows, as a table, JSON or CSV.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/model/stats.hpp>

#include <array>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json, FileFormat::Csv};

struct StatsCommand {
    SessionFlags flags;
    OutputFlags output;
};

nlohmann::ordered_json rowJson(const RowStats& row) {
    nlohmann::ordered_json j;
    j["entropy"] = row.entropy;
    j["mean_distance"] = row.meanDistance;
    j["distance_50"] = row.distance50;
    j["distance_90"] = row.distance90;
    return j;
}

std::string jsonDocument(const StatsResult& stats, const AttentionParams& params) {
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

std::string csvTable(const StatsResult& stats) {
    std::string out =
        "head,slope,half_life,row_entropy,row_mean_distance,row_distance_50,row_distance_90,"
        "mean_entropy,mean_mean_distance,mean_distance_50,mean_distance_90\n";
    for (const HeadStats& h : stats.heads)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", h.head, h.slope, h.halfLife, h.row.entropy,
                           h.row.meanDistance, h.row.distance50, h.row.distance90, h.mean.entropy,
                           h.mean.meanDistance, h.mean.distance50, h.mean.distance90);
    return out;
}

std::string textTable(const StatsResult& stats, const AttentionParams& params) {
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
            "{:>4}  {:>11.6g}  {:>10.4g} | {:>9.4f} {:>10.3f} {:>7.6g} {:>7.6g} | {:>9.4f} {:>10.3f} {:>7.6g} {:>7.6g}\n",
            h.head, h.slope, h.halfLife, h.row.entropy, h.row.meanDistance, h.row.distance50, h.row.distance90,
            h.mean.entropy, h.mean.meanDistance, h.mean.distance50, h.mean.distance90);
    return out;
}

Result<void> run(const StatsCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());
    const Session& s = settings->session;

    StatsParams params;
    params.attention = s.attention;
    params.queryRow = s.queryRow;
    ProgressBar bar("computing statistics");
    auto stats = computeStats(params, settings->threads, bar.callback());
    bar.finish();
    if (!stats) return std::unexpected(stats.error());

    switch (target->format) {
        case FileFormat::Json: return writeText(target->path, jsonDocument(*stats, s.attention));
        case FileFormat::Csv: return writeText(target->path, csvTable(*stats));
        default: return writeText(target->path, textTable(*stats, s.attention));
    }
}

}  // namespace

RunFn addStatsCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "stats", "Per-head attention statistics: entropy, mean distance, 50%/90% mass distances, half-life");
    auto state = std::make_shared<StatsCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Stats);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi stats --heads 8 --seq 512                          # table on stdout, last query row
  alibi stats --heads 8 --seq 512 --query 100 --format json
  alibi stats --heads 12 --seq 256 --content qk -o stats.csv)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
