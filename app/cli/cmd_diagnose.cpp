// `alibi diagnose FILE`: load a user's .npy or .safetensors tensor and report which ALiBi
// parameters reproduce it, and which known bug it shows, as text or JSON.
#include "commands.hpp"
#include "options.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/io/tensor_io.hpp>

#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Text, FileFormat::Json};

struct DiagnoseCommand {
    SessionFlags flags;  // --config, --max-memory
    OutputFlags output;
    std::string file;
};

nlohmann::ordered_json jsonDocument(const Diagnosis& d, const std::string& file, const Shape& shape) {
    nlohmann::ordered_json doc;
    doc["file"] = file;
    doc["shape"] = shape;
    doc["layout"] = layoutName(d.layout);
    doc["heads"] = d.heads;
    doc["queries"] = d.queries;
    doc["keys"] = d.keys;
    doc["dtype"] = dtypeName(d.dtype);
    if (d.match) {
        nlohmann::ordered_json m;
        m["scheme"] = schemeName(d.match->scheme);
        m["max_bias"] = d.match->maxBias;
        if (d.slopeVector) m["mode"] = nullptr;
        else m["mode"] = modeName(d.match->mode);
        // null when no entry is masked: the file says nothing about the mask value.
        if (d.match->masked) m["mask"] = maskName(d.match->mask);
        else m["mask"] = nullptr;
        m["slopes"] = d.match->slopes;
        doc["match"] = std::move(m);
    } else {
        doc["match"] = nullptr;
    }
    doc["slope_vector"] = d.slopeVector;
    if (d.batch) {
        doc["batch"] = {{"lengths", d.batch->lengths},
                        {"padding", paddingName(d.batch->padding)},
                        {"documents", d.batch->documents},
                        {"window", d.batch->window},
                        {"positions", positionRuleName(d.batch->positions)}};
    } else {
        doc["batch"] = nullptr;
    }
    if (d.arith) doc["arith"] = arithName(*d.arith);
    else doc["arith"] = nullptr;
    auto& distances = doc["arith_distances"] = nlohmann::ordered_json::object();
    for (const ArithDistance& a : d.arithDistances)
        distances[std::string(arithName(a.arith))] = {{"identical", a.identical},
                                                      {"max_ulp", a.maxUlp},
                                                      {"cells_differing", a.cellsDiffering},
                                                      {"cells_compared", a.cellsCompared}};
    doc["max_abs_error"] = d.maxAbsError;
    auto& codes = doc["findings"] = nlohmann::ordered_json::array();
    auto& details = doc["finding_details"] = nlohmann::ordered_json::array();
    for (const Finding& f : d.findings) {
        codes.push_back(f.code);
        details.push_back({{"code", f.code}, {"message", f.message}});
    }
    doc["inferred_slopes"] = d.inferredSlopes;
    doc["summary"] = d.summary;
    if (!d.match && d.firstMismatchIndex)
        doc["first_mismatch"] = {{"index", *d.firstMismatchIndex},
                                 {"actual", d.firstMismatchActual},
                                 {"expected", d.firstMismatchExpected}};
    else
        doc["first_mismatch"] = nullptr;
    return doc;
}

std::string textReport(const Diagnosis& d, const std::string& file, const Shape& shape) {
    std::string out = fmt::format("file:     {}\n", file);
    if (d.slopeVector)
        out += fmt::format("tensor:   {} {}, read as a slope vector: H={}\n", shapeString(shape), dtypeName(d.dtype),
                           d.heads);
    else if (d.batch)
        out += fmt::format("tensor:   {} {}, read as a batch (layout bhqk): B={} H={} T={}\n", shapeString(shape),
                           dtypeName(d.dtype), shape[0], d.heads, d.queries);
    else
        out += fmt::format("tensor:   {} {}, read as layout {}: H={} Q={} K={}\n", shapeString(shape),
                           dtypeName(d.dtype), layoutName(d.layout), d.heads, d.queries, d.keys);
    if (!d.match)
        out += fmt::format("match:    none (best candidate's max abs error {})\n", d.maxAbsError);
    else if (d.slopeVector)
        out += fmt::format("match:    slope vector, scheme {}, max_bias {}\n", schemeName(d.match->scheme),
                           d.match->maxBias);
    else
        out += fmt::format("match:    scheme {}, max_bias {}, mode {}, mask {} (max abs error {})\n",
                           schemeName(d.match->scheme), d.match->maxBias, modeName(d.match->mode),
                           d.match->masked ? maskName(d.match->mask) : std::string("none (no entry is masked)"),
                           d.maxAbsError);
    if (d.match) {
        std::string slopes;
        for (const double m : d.match->slopes) slopes += fmt::format("{}{:.9g}", slopes.empty() ? "" : " ", m);
        out += fmt::format("slopes:   {}\n", slopes);
    }
    for (const ArithDistance& a : d.arithDistances)
        out += fmt::format("arith:    {:<12} {}\n", arithName(a.arith),
                           a.identical ? fmt::format("bit-identical ({} cells)", a.cellsCompared)
                                       : fmt::format("{} of {} cells differ, up to {} ulp", a.cellsDiffering,
                                                     a.cellsCompared, a.maxUlp));
    if (!d.match && d.firstMismatchIndex) {
        std::string index;
        for (const auto i : *d.firstMismatchIndex) index += fmt::format("{}{}", index.empty() ? "" : ", ", i);
        out += fmt::format("first mismatch at [{}]: actual {}, expected {}\n", index, d.firstMismatchActual,
                           d.firstMismatchExpected);
    }
    if (d.findings.empty()) out += "findings: none\n";
    for (const Finding& f : d.findings) out += fmt::format("finding:  {}: {}\n", f.code, f.message);
    if (!d.summary.empty()) out += fmt::format("\n{}\n", d.summary);
    return out;
}

Result<void> run(const DiagnoseCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());
    std::error_code ec;
    const auto status = std::filesystem::status(c.file, ec);
    if (ec || !std::filesystem::exists(status))
        return fail(ErrorCode::InvalidArgument, fmt::format("diagnose: FILE '{}' does not exist", c.file));
    if (std::filesystem::is_directory(status))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("diagnose: FILE '{}' is a folder; give a .npy or .safetensors file", c.file));

    auto loaded = loadTensor(c.file, settings->session.maxMemory);
    if (!loaded) return fail(loaded.error().code, fmt::format("{}: {}", c.file, loaded.error().message));
    auto diagnosis = diagnose(loaded->tensor);
    if (!diagnosis) return std::unexpected(diagnosis.error());
    const Shape& shape = loaded->tensor.shape();
    if (target->format == FileFormat::Json)
        return writeText(target->path, jsonDocument(*diagnosis, c.file, shape).dump(2) + "\n");
    return writeText(target->path, textReport(*diagnosis, c.file, shape));
}

}  // namespace

RunFn addDiagnoseCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "diagnose", "Which ALiBi variant reproduces a .npy/.safetensors tensor, and which known bug it shows");
    auto state = std::make_shared<DiagnoseCommand>();
    cmd->add_option("FILE", state->file, "The tensor to diagnose (.npy or .safetensors). Example: my_bias.npy")
        ->type_name("")
        ->required();
    addCommonFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi diagnose bias.npy                       # a readable report
  alibi diagnose model_alibi.safetensors --format json
Finding codes: slope-off-by-one, naive-slopes-non-pow2, sign-flipped, layout-qkh-as-hqk,
single-slope-all-heads, scaled-by-sqrt-dk, fp16-mask-overflow, top-left-aligned.)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
