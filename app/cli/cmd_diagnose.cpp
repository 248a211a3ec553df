// `alibi diagnose FILE`: load a user's .npy or .safetensors tensor and report which ALiBi
// parameters reproduce it, and which known bug it shows, as text or JSON.
#include "commands.hpp"
#include "inputs.hpp"
#include "options.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/analysis/diagnosis_report.hpp>
#include <alibi/base/data_dir.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/preset.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/render/figure_output.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>
#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json};

struct DiagnoseCommand {
    SessionFlags flags;  // --config, --max-memory
    OutputFlags output;
    std::string file;
    std::string tensor;  // --tensor: a tensor of a multi-tensor .safetensors file
    std::string figure;  // --figure: the Diagnose view's figure as PNG (render/view_figure.hpp)
    std::optional<int> pixelRatio;
    std::optional<int> heads;  // --heads: split a (batch * heads, 1, K) tensor
};

// The model named by --preset or --from-config (flags.preset / flags.fromConfig), as diagnose
// checks a tensor against it; nullopt when neither is given.
Result<std::optional<ModelConvention>> namedModel(const SessionFlags& flags) {
    if (flags.preset.given()) {
        std::vector<std::filesystem::path> folders;
        for (const auto& dir : dataDirs()) folders.push_back(dir / "presets");
        auto preset = findPreset(flags.preset.value, folders);
        if (!preset) return fail(preset.error().code, fmt::format("--preset: {}", preset.error().message));
        return std::optional<ModelConvention>(modelConvention(*preset));
    }
    if (flags.fromConfig.given()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(flags.fromConfig.value, ec))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--from-config: '{}' is not a readable file", flags.fromConfig.value));
        std::ifstream in(flags.fromConfig.value, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        auto preset = presetFromHfConfig(text.str(), flags.fromConfig.value);
        if (!preset) return fail(preset.error().code, fmt::format("--from-config: {}", preset.error().message));
        return std::optional<ModelConvention>(modelConvention(*preset));
    }
    return std::optional<ModelConvention>();
}

Result<void> run(const DiagnoseCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    if (c.pixelRatio && c.figure.empty())
        return fail(ErrorCode::InvalidArgument, "--pixel-ratio belongs to --figure OUT.png: add --figure or drop it");
    if (auto ok = checkFigureOutput(c.pixelRatio, false); !ok) return ok;
    if (!c.figure.empty() && !c.figure.ends_with(".png"))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--figure {}: the diagnosis figure is a heatmap, written as PNG: use --figure OUT.png",
                                c.figure));
    noteInput(c.file);  // before resolveOutput, which refuses an output that is an input
    auto target = resolveOutput(c.output, kFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());
    std::error_code ec;
    const auto status = std::filesystem::status(c.file, ec);
    if (ec || !std::filesystem::exists(status))
        return fail(ErrorCode::InvalidArgument, fmt::format("diagnose: FILE '{}' does not exist", c.file));
    if (std::filesystem::is_directory(status))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("diagnose: FILE '{}' is a folder; give a .npy or .safetensors file", c.file));

    // A FIFO or device is refused by loadTensor before it is opened; its messages name the file.
    auto loaded = loadTensor(c.file, c.tensor, settings->session.maxMemory);
    if (!loaded) return std::unexpected(loaded.error());
    DiagnoseOptions options;
    options.heads = c.heads;  // checked by the core
    auto model = namedModel(c.flags);
    if (!model) return std::unexpected(model.error());
    options.model = std::move(*model);
    auto diagnosis = diagnose(loaded->tensor, options);
    if (!diagnosis) return std::unexpected(diagnosis.error());
    const Shape& shape = loaded->tensor.shape();
    if (!c.figure.empty()) {
        DiagnosisFigureRequest figure;
        figure.tensor = &loaded->tensor;
        figure.diagnosis = &*diagnosis;
        figure.source = std::filesystem::path(c.file).filename().string();
        figure.scale = c.pixelRatio.value_or(1);
        auto image = renderDiagnosisFigure(figure);
        if (!image) return std::unexpected(image.error());
        if (auto written = writePng(*image, c.figure); !written) return written;
    }
    const Tensor* tensor = &loaded->tensor;  // the error map against correct ALiBi
    if (target->format == FileFormat::Json)
        return writeText(target->path, diagnosisJson(*diagnosis, c.file, shape, tensor));
    return writeText(target->path, diagnosisText(*diagnosis, c.file, shape, tensor));
}

}  // namespace

RunFn addDiagnoseCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "diagnose", "Which ALiBi variant reproduces a .npy/.safetensors tensor, and which known bug it shows");
    auto state = std::make_shared<DiagnoseCommand>();
    cmd->add_option("FILE", state->file, "The tensor to diagnose (.npy or .safetensors). Example: my_bias.npy")
        ->type_name("")
        ->required();
    cmd->add_option("--tensor", state->tensor,
                    "Which tensor of a .safetensors file holding several to diagnose (default: the only one, or "
                    "the one named bias or alibi). Example: --tensor model.layers.0.alibi")
        ->type_name("NAME");
    cmd->add_option("--figure", state->figure,
                    "Also write the Diagnose view's figure: |tensor - correct ALiBi| per head with title, axes, "
                    "colour bar and the diagnosis as caption. Example: --figure diagnosis.png")
        ->type_name("OUT.png");
    cmd->add_option("--pixel-ratio", state->pixelRatio, "With --figure: 1, 2 or 4 PNG pixels per layout pixel")
        ->type_name("N");
    // Diagnose's own options (issue 24); --preset and --from-config come with the common flags.
    cmd->add_option("--heads", state->heads,
                    "Heads of a (batch * heads, 1, K) tensor such as HF BLOOM's build_alibi_tensor, to split it into "
                    "batch rows (default: detected when the slopes repeat with a known head count, or the "
                    "--preset's). Example: --heads 16")
        ->type_name("H");
    addCommonFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi diagnose bias.npy                       # a readable report
  alibi diagnose model_alibi.safetensors --format json
  alibi diagnose model.safetensors --tensor layers.0.alibi   # one tensor of several
  alibi diagnose bias.npy --figure diagnosis.png --pixel-ratio 2   # and the error map as a figure
  alibi diagnose falcon_bias.npy --preset falcon-rw-1b   # against Falcon's own computation
  alibi diagnose bloom_alibi.npy --heads 16       # a (batch * heads, 1, K) tensor
Every finding says whether it changes attention (softmax of the bias alone, zero content) and by how
much. Finding codes: slope-off-by-one, naive-slopes-non-pow2, sign-flipped, layout-qkh-as-hqk,
single-slope-all-heads, scaled-by-sqrt-dk, scaled-bias, slope-ratio, reversed-head-order,
permuted-head-order, tensor-parallel-slopes, no-alibi, row-offset, positions-rounded,
low-precision-bias, static-kv-cache, fp16-mask-overflow, top-left-aligned, left-padding-positions,
sliding-window, packed-documents, prefix-lm, not-this-model. See docs/DIAGNOSE.md.)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
