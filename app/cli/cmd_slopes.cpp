// `alibi slopes`: the per-head slopes of a scheme as a text table, JSON, CSV or an (H,) tensor.
// Values are those stored in --dtype (default f32), so every format agrees with the .npy.
#include "commands.hpp"
#include "options.hpp"
#include "tensor_export.hpp"

#include <alibi/base/tensor.hpp>
#include <alibi/io/json_params.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/params.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <array>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json,        FileFormat::Csv,
                              FileFormat::Npy,  FileFormat::Safetensors, FileFormat::Raw};

struct SlopesCommand {
    SessionFlags flags;
    OutputFlags output;
};

std::map<std::string, std::string> slopesMetadata(const SlopeParams& params, DType dtype) {
    std::map<std::string, std::string> m{{"format", "alibi-explorer"},
                                         {"kind", "slopes"},
                                         {"heads", std::to_string(params.heads)},
                                         {"scheme", std::string(schemeName(params.scheme))},
                                         {"max_bias", fmt::format("{}", params.maxBias)},
                                         {"dtype", std::string(dtypeName(dtype))}};
    if (params.arith != Arith::Exact) m["arith"] = std::string(arithName(params.arith));
    return m;
}

std::string textTable(const SlopeParams& params, DType dtype, const std::vector<double>& stored) {
    std::string out =
        fmt::format("# {} heads, scheme {}, max_bias {}, arith {}, values as stored in {}\n", params.heads,
                    schemeName(params.scheme), params.maxBias, arithName(params.arith), dtypeName(dtype));
    out += fmt::format("{:>5}  {:<24}  {}\n", "head", "slope", "half_life");
    for (std::size_t h = 0; h < stored.size(); ++h)
        out += fmt::format("{:>5}  {:<24}  {}\n", h, stored[h], halfLife(stored[h]));
    return out;
}

// The common JSON export schema of every tensor ({"shape", "dtype", "params", "data"}), plus the
// half-lives ln 2 / m as an extra field.
std::string jsonDocument(const SlopeParams& params, DType dtype, const std::vector<double>& stored) {
    nlohmann::ordered_json doc;
    doc["shape"] = std::vector<int>{params.heads};
    doc["dtype"] = dtypeName(dtype);
    doc["params"] = nlohmann::ordered_json::parse(typedParamsJson(slopesMetadata(params, dtype)));
    doc["data"] = stored;
    std::vector<double> halfLives;
    for (const double m : stored) halfLives.push_back(halfLife(m));
    doc["half_lives"] = halfLives;
    return doc.dump(2) + "\n";
}

std::string csvTable(const std::vector<double>& stored) {
    std::string out = "head,slope,half_life\n";
    for (std::size_t h = 0; h < stored.size(); ++h) out += fmt::format("{},{},{}\n", h, stored[h], halfLife(stored[h]));
    return out;
}

Result<void> run(const SlopesCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    const BiasParams& bias = settings->session.attention.bias;
    auto target = resolveOutput(c.output, kFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());
    auto slopes = computeSlopes(bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());

    std::vector<double> stored;
    for (const double m : *slopes) stored.push_back(roundTo(bias.dtype, m));
    switch (target->format) {
        case FileFormat::Text:
            return writeText(target->path, textTable(bias.slopes, bias.dtype, stored));
        case FileFormat::Json:
            return writeText(target->path, jsonDocument(bias.slopes, bias.dtype, stored));
        case FileFormat::Csv:
            return writeText(target->path, csvTable(stored));
        default:
            break;
    }
    Tensor tensor(Shape{bias.slopes.heads}, bias.dtype);
    for (std::size_t h = 0; h < slopes->size(); ++h) tensor.set(h, (*slopes)[h]);
    tensor.metadata = slopesMetadata(bias.slopes, bias.dtype);
    return exportSource(*tensorSource(tensor), *target, "slopes", false);
}

}  // namespace

RunFn addSlopesCommand(CLI::App& root) {
    auto* cmd =
        root.add_subcommand("slopes", "Per-head ALiBi slopes of a scheme (text table, JSON, CSV or an (H,) tensor)");
    auto state = std::make_shared<SlopesCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Slopes);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi slopes --heads 12                          # head, slope, half-life table on stdout
  alibi slopes --heads 12 --scheme geometric --format json
  alibi slopes --slopes 0.5,0.25,0.125 -o slopes.csv
  alibi slopes --heads 16 --dtype f64 -o slopes.npy
  alibi slopes --heads 112 --arith hf-bloom --format json   # BLOOM-176B's float32 slopes, bit for bit)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
