// `alibi attention`: simulated attention probabilities softmax((content + bias) / T), streamed
// row by row to a file.
#include "commands.hpp"
#include "options.hpp"
#include "tensor_export.hpp"

#include <alibi/model/attention.hpp>

#include <array>
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
    auto source = attentionSource(settings->session.attention);
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
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/true);
    cmd->footer(R"(Examples:
  alibi attention --heads 8 --seq 64 -o attn.npy                   # the pure ALiBi prior (zero content)
  alibi attention --heads 8 --seq 64 --content qk --dk 128 --seed 7 -o attn.safetensors
  alibi attention --heads 4 --seq 32 --content gaussian --sigma 2 --temperature 0.5 -o attn.npy)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
