// `alibi attention`: simulated attention probabilities softmax((content + bias) / T), streamed
// row by row to a file.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"
#include "tensor_export.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/batch_attention.hpp>

#include <fmt/format.h>
#include <array>
#include <cstdio>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json,
                              FileFormat::Raw};

struct AttentionCommand {
    SessionFlags flags;
    OutputFlags output;
};

Result<void> run(const AttentionCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    const AttentionParams& a = settings->session.attention;
    if (settings->batch.active() || settings->batchLayout) {
        // A batch is built whole (within --max-memory), then streamed like any tensor.
        ProgressBar bar("computing batch attention");
        auto tensor = buildBatchAttention(a, settings->batch, settings->session.maxMemory, bar.callback());
        bar.finish();
        if (!tensor) return std::unexpected(tensor.error());
        return exportSource(*tensorSource(*tensor), *target, "attention", c.output.allowNonFinite, std::nullopt);
    }
    // Rows with no unmasked key are a finding, not an error: a framework's softmax gives them a
    // uniform row under a finite mask and NaN (0/0) under -inf, and so does this export.
    if (const FullyMaskedRows fm = fullyMaskedRows(a); fm.count > 0) {
        const std::string rows =
            fmt::format("query rows {}..{} of every head see no unmasked key (K = {} < Q = {}, mode {})", fm.first,
                        fm.first + fm.count - 1, a.bias.keyCount(), a.bias.queries, modeName(a.bias.mode));
        if (fm.nan && target->format == FileFormat::Json && !c.output.allowNonFinite)
            return fail(
                ErrorCode::InvalidArgument,
                fmt::format(
                    "{}; with --mask {} their softmax is 0/0 = NaN, which JSON cannot hold. Use --mask min "
                    "or a finite mask the dtype holds to get the uniform rows a framework gives then, --keys >= --seq, "
                    "another format (npy, safetensors, raw and csv hold NaN), or --allow-nonfinite",
                    rows,
                    maskName(a.bias.mask) + (a.bias.mask.kind == MaskValue::Kind::Finite
                                                 ? fmt::format(" (-inf in {})", dtypeName(a.bias.dtype))
                                                 : "")));
        if (!quiet())
            fmt::print(stderr, "alibi: finding: {}; {}\n", rows,
                       fm.nan ? "with a -inf mask their probabilities are NaN (0/0), as in PyTorch"
                              : "with a finite mask their probabilities are uniform over all keys, as in PyTorch");
    }
    auto source = attentionSource(a, settings->threads);
    if (!source) return std::unexpected(source.error());
    return exportSource(**source, *target, "attention", c.output.allowNonFinite,
                        settings->session.attention.bias.layout);
}

}  // namespace

RunFn addAttentionCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "attention", "Attention probabilities softmax((content + bias) / temperature), streamed to a file");
    auto state = std::make_shared<AttentionCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Attention);
    addBatchFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/true);
    cmd->footer(R"(Examples:
  alibi attention --heads 8 --seq 64 -o attn.npy                   # the pure ALiBi prior (zero content)
  alibi attention --heads 8 --seq 64 --content qk --dk 128 --seed 7 -o attn.safetensors
  alibi attention --heads 4 --seq 32 --content gaussian --sigma 2 --temperature 0.5 -o attn.npy
  alibi attention --heads 4 --seq 8 --lengths 8,5,3 --padding left --mask min -o batch.npy   # (3, 4, 8, 8))");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
