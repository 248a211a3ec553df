// `alibi fit FILE`: open a trained model's saved attention maps (memory-mapped) and print, per
// layer and head, the effective ALiBi slope that best explains the head, its interval, the
// goodness of fit and the attention statistics, optionally beside the model's configured slopes
// and with the heads' similarity order; as a table, JSON or CSV.
#include "commands.hpp"
#include "inputs.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <array>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json, FileFormat::Csv};

struct FitCommand {
    SessionFlags flags;  // the model's ALiBi parameters (--preset, --from-config, --heads, ...)
    OutputFlags output;
    std::string file;
    Flag tensor, layer, batch, values, rows, order, similarity;
};

Result<void> run(const FitCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    noteInput(c.file);
    auto target = resolveOutput(c.output, kFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());

    AttentionOpenOptions open;
    if (c.tensor.given()) open.tensor = c.tensor.value;
    if (c.batch.given()) {
        auto b = parseIntegerFlag(c.batch);
        if (!b) return std::unexpected(b.error());
        if (*b < 0 || *b > 1'000'000)
            return fail(ErrorCode::InvalidArgument, fmt::format("--batch: {} is not a batch element index", *b));
        open.batch = static_cast<int>(*b);
    }
    if (c.values.given()) {
        open.values = parseAttentionValues(c.values.value);
        if (!open.values)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--values: '{}' is unknown (expected probabilities or scores)", c.values.value));
    }
    auto maps = AttentionMaps::open(c.file, open);
    if (!maps) return std::unexpected(maps.error());

    HeadFitOptions options;
    options.threads = settings->threads;
    if (c.layer.given()) {
        auto n = parseIntegerFlag(c.layer);
        if (!n) return std::unexpected(n.error());
        auto index = maps->layerIndexOf(*n);
        if (!index) return std::unexpected(index.error());
        options.layers.push_back(*index);
    }
    if (c.rows.given()) {
        auto rows = parseRowRange(c.rows.value);
        if (!rows) return std::unexpected(rows.error());
        options.firstRow = rows->first;
        options.lastRow = rows->second;
    }
    HeadOrder order = HeadOrder::Index;
    if (c.order.given()) {
        const auto parsed = parseHeadOrder(c.order.value);
        if (!parsed)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--order: '{}' is unknown (expected index, slope or similarity)", c.order.value));
        order = *parsed;
    }
    std::optional<SimilarityBasis> basis;  // none: makeFitReport uses profiles for --order similarity
    if (c.similarity.given()) {
        basis = parseSimilarityBasis(c.similarity.value);
        if (!basis)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--similarity: '{}' is unknown (expected profile or map)", c.similarity.value));
    }

    // The model's prior, when the user named it: a preset, a config, or explicit slope flags.
    const SessionFlags& f = c.flags;
    std::vector<double> configured;
    if (f.config.given() || f.preset.given() || f.fromConfig.given() || f.heads.given() || f.scheme.given() ||
        f.maxBias.given() || f.slopes.given()) {
        const bool headsNamed =
            f.config.given() || f.preset.given() || f.fromConfig.given() || f.heads.given() || f.slopes.given();
        auto computed = fitConfiguredSlopes(settings->session.attention.bias.slopes, headsNamed, maps->heads());
        if (!computed) return std::unexpected(computed.error());
        configured = std::move(*computed);
    }
    configured = explore::pairedSlopes(*maps, std::move(configured));  // none named: the file's own

    ProgressBar bar("fitting heads");
    options.progress = bar.callback();
    auto fits = fitHeads(*maps, options, configured);
    bar.finish();
    if (!fits) return std::unexpected(fits.error());

    FitReportOptions reportOptions;
    reportOptions.order = order;
    reportOptions.similarity = basis;
    reportOptions.firstRow = options.firstRow;
    reportOptions.lastRow = options.lastRow;
    reportOptions.threads = settings->threads;
    auto report = makeFitReport(*maps, std::move(*fits), c.file, reportOptions);
    if (!report) return std::unexpected(report.error());
    switch (target->format) {
        case FileFormat::Json:
            return writeText(target->path, fitJson(*report, *maps));
        case FileFormat::Csv:
            return writeText(target->path, fitCsv(*report));
        default:
            return writeText(target->path, fitText(*report, *maps));
    }
}

void addTextFlag(CLI::App& cmd, Flag& flag, const std::string& name, const std::string& type, const std::string& help) {
    flag.name = name;
    flag.option = cmd.add_option(name, flag.value, help)->type_name(type);
}

}  // namespace

RunFn addFitCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "fit", "Fit each head's effective ALiBi slope to a trained model's saved attention maps, with statistics");
    auto state = std::make_shared<FitCommand>();
    cmd->add_option("FILE", state->file,
                    "Attention maps: .npy of shape (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or .safetensors with "
                    "one (H, Q, K) or (B, H, Q, K) tensor per layer. Example: attentions.npy")
        ->type_name("")
        ->required();
    addTextFlag(*cmd, state->tensor, "--tensor", "NAME",
                "Fit only this tensor (layer) of a .safetensors file. Example: --tensor attentions.3");
    addTextFlag(*cmd, state->layer, "--layer", "N",
                "Fit only layer N (numbered from 0 in a stacked array, by the number in the tensor name in a "
                "safetensors file). Example: --layer 7");
    addTextFlag(*cmd, state->batch, "--batch", "B",
                "Which batch element of a batched file (default 0). Example: --batch 1");
    addTextFlag(*cmd, state->values, "--values", "KIND",
                "probabilities or scores (pre-softmax); default: detected from sampled rows. Example: --values scores");
    addTextFlag(*cmd, state->rows, "--rows", "FIRST:END",
                "Fit on query rows FIRST to END-1 only (default: every row). Example: --rows 512:");
    addTextFlag(*cmd, state->order, "--order", "ORDER",
                "Order each layer's heads by index (default), slope (steepest first) or similarity (clustering order). "
                "Example: --order similarity");
    addTextFlag(*cmd, state->similarity, "--similarity", "BASIS",
                "Add each layer's head-by-head Jensen-Shannon distances: profile (attention vs distance) or map (full "
                "maps; slower). Example: --similarity map");
    addSessionFlags(*cmd, state->flags, FlagLevel::Slopes);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(The model's ALiBi parameters (--preset, --from-config, --heads/--scheme/--max-bias/--slopes) are
optional; when given, each head's configured slope is printed beside its fitted one.
Examples:
  alibi fit attentions.npy                                  # table on stdout, every layer and head
  alibi fit bloom_attn.safetensors --preset bloom-560m --format json -o fit.json
  alibi fit attn.npy --layer 3 --order similarity --similarity map
  alibi fit attn.npy --values scores --rows 256: -o fit.csv)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
