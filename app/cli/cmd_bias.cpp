// `alibi bias`: the ALiBi bias tensor, streamed to .npy, .safetensors, .csv, .json or .raw.
#include "commands.hpp"
#include "options.hpp"
#include "tensor_export.hpp"

#include <alibi/base/tensor.hpp>
#include <alibi/io/export_plan.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>

#include <array>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json,
                              FileFormat::Raw};

struct BiasCommand {
    SessionFlags flags;
    OutputFlags output;
};

Result<void> run(const BiasCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    if (settings->batch.active() || settings->batchLayout) {
        // A batch is built whole (within --max-memory), then streamed like any tensor.
        auto tensor = buildBatchBias(settings->session.attention.bias, settings->batch, settings->session.maxMemory);
        if (!tensor) return std::unexpected(tensor.error());
        // Padding and document boundaries hold the mask whatever the mode.
        return exportSource(*tensorSource(*tensor), *target, "bias", c.output.allowNonFinite, std::nullopt,
                            settings->session.attention.bias.mask);
    }
    // The source validates every parameter before anything is opened for writing.
    auto source = biasSource(settings->session.attention.bias);
    if (!source) return std::unexpected(source.error());
    const BiasParams& b = settings->session.attention.bias;
    return exportSource(**source, *target, "bias", c.output.allowNonFinite, b.layout, storedMask(b));
}

}  // namespace

RunFn addBiasCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand("bias", "The ALiBi bias tensor, streamed to a file of any size");
    auto state = std::make_shared<BiasCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Bias);
    addBatchFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/true);
    cmd->footer(R"(Examples:
  alibi bias --heads 8 --seq 128 -o bias.npy                       # (8, 128, 128) f32, causal, -1e9 mask
  alibi bias --heads 12 --seq 64 --mode bloom --mask -inf -o bias.safetensors
  alibi bias --heads 4 --seq 8 --keys 32 --layout qkh --dtype bf16 -o kv.npy
  alibi bias --heads 2 --seq 4 --format csv -o -                  # to stdout
  alibi bias --heads 112 --seq 1 --keys 2048 --mode bloom -o decode.npy   # BLOOM's (H, 1, T) decode shape
  alibi bias --heads 32 --seq 64 --mode mpt --mask min --arith llm-foundry --dtype bf16 -o mpt.npy
  alibi bias --preset bloom-560m --seq 8 --lengths 8,5,3 --padding left --mask min -o batch.npy   # (3, 16, 8, 8)
  alibi bias --heads 4 --seq 12 --documents 5,7 --window 4 -o packed.npy)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
