// `alibi stats`: per-head statistics of the attention distribution (entropy, mean attended
// distance, the distances holding 50% and 90% of the mass, half-life) at one query row and
// averaged over rows, as a table, JSON or CSV.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/model/batch_attention.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/model/stats_report.hpp>

#include <fmt/format.h>
#include <array>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json, FileFormat::Csv};

struct StatsCommand {
    SessionFlags flags;
    OutputFlags output;
};

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
    const bool batch = settings->batch.active() || settings->batchLayout;
    if (batch && !quiet())
        fmt::print(stderr, "alibi: statistics of batch row {} of {} (its real tokens; --batch-row picks another)\n",
                   settings->batchRow, settings->batch.batchSize());
    auto stats = batch ? computeBatchStats(params, settings->batch, settings->batchRow, s.maxMemory)
                       : computeStats(params, settings->threads, bar.callback());
    bar.finish();
    if (!stats) return std::unexpected(stats.error());

    switch (target->format) {
        case FileFormat::Json:
            return writeText(target->path, statsJson(*stats, s.attention));
        case FileFormat::Csv:
            return writeText(target->path, statsCsv(*stats));
        default:
            return writeText(target->path, statsText(*stats, s.attention));
    }
}

}  // namespace

RunFn addStatsCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "stats", "Per-head attention statistics: entropy, mean distance, 50%/90% mass distances, half-life");
    auto state = std::make_shared<StatsCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Stats);
    addBatchFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi stats --heads 8 --seq 512                          # table on stdout, last query row
  alibi stats --heads 8 --seq 512 --query 100 --format json
  alibi stats --heads 12 --seq 256 --content qk -o stats.csv
  alibi stats --heads 8 --seq 16 --lengths 16,9 --padding left --batch-row 1   # batch row 1's real tokens)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
