// `alibi run MODEL` and `alibi loss MODEL`: run a BLOOM, MPT or Falcon checkpoint (a Hugging Face
// model folder) on the user's text, as it is or with its slopes changed; or the model run a
// session saved (--config FILE, its `model` section), with the flags given overriding it. `run` writes every layer's
// attention maps (with the tokens) to a .safetensors file that `alibi fit`, `alibi render FILE`
// and the explorers open; `loss` prints the next-token loss per position, of the model (A) and,
// with a slope change, of the changed model (B). Everything is computed by the core (alibi::lm).
#include "commands.hpp"
#include "inputs.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/io/output_file.hpp>
#include <alibi/io/session.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include <alibi/lm/run_input.hpp>
#include <alibi/lm/run_report.hpp>
#include <alibi/model/live_model.hpp>
#include <alibi/model/params.hpp>

#include <fmt/format.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;

struct LmCommand {
    std::string model;
    OutputFlags output;
    Flag session, text, file, ids, length, scale, scheme, maxBias, headSlope, threads, maxMemory;
};

void addTextFlag(CLI::App& cmd, Flag& flag, const std::string& name, const std::string& type, const std::string& help) {
    flag.name = name;
    flag.option = cmd.add_option(name, flag.value, help)->type_name(type);
}

void addLmFlags(CLI::App& cmd, LmCommand& c) {
    cmd.add_option("MODEL", c.model,
                   "A Hugging Face model folder: config.json (BLOOM, MPT or Falcon with ALiBi), model.safetensors or "
                   "shards with model.safetensors.index.json, and tokenizer.json (not needed with --config FILE "
                   "whose `model` section names one). Example: assets/models/license-bloom-tiny")
        ->type_name("");
    addTextFlag(cmd, c.session, "--config,--session", "FILE",
                "Start from a session file (*.alibi.json): its `model` section gives the model folder, text, slope "
                "change and length; MODEL and each flag given replace the session's value. Example: --config "
                "run.alibi.json");
    c.session.name = "--config";
    addTextFlag(cmd, c.text, "--text", "TEXT", "The text to run the model on. Example: --text 'The quick brown fox'");
    addTextFlag(cmd, c.file, "--file", "FILE", "Read the text from FILE (UTF-8). Example: --file notes.txt");
    addTextFlag(cmd, c.ids, "--ids", "LIST",
                "Token ids instead of text (for a model without tokenizer.json). Example: --ids 17,4,99");
    addTextFlag(cmd, c.length, "--length", "N",
                "Use the first N tokens (the text must give at least N); may exceed the training length. "
                "Example: --length 1024");
    addTextFlag(cmd, c.scale, "--slope-scale", "K",
                "Intervention: every head's slope times K. Example: --slope-scale 0.5");
    addTextFlag(cmd, c.scheme, "--slope-scheme", "NAME",
                "Intervention: the slopes from another scheme (press, geometric, linear). Example: --slope-scheme "
                "geometric");
    addTextFlag(cmd, c.maxBias, "--slope-max-bias", "B",
                "Intervention: the slopes' max_bias B (the model's: 8 for BLOOM, alibi_bias_max for MPT). "
                "Example: --slope-max-bias 4");
    addTextFlag(cmd, c.headSlope, "--head-slope", "H=M,...",
                "Intervention: set head H's slope to M (heads from 0; a number or a fraction), after the others; "
                "replaces a session's list. Example: --head-slope 3=0.25,4=1/16");
    addTextFlag(cmd, c.threads, "--threads", "N", "Worker threads (default 0: every core). Example: --threads 2");
    addTextFlag(cmd, c.maxMemory, "--max-memory", "BYTES",
                "Budget for the forward pass's buffers (default 2G; one layer's weights and maps). "
                "Example: --max-memory 4G");
}

Result<double> numberIn(const Flag& flag, double lo, double hi) {
    auto v = parseNumberFlag(flag);
    if (!v) return std::unexpected(v.error());
    if (!(*v >= lo && *v <= hi))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be between {} and {}, got {}", flag.name, lo, hi, flag.value));
    return *v;
}

// The slope flags given, into `given` (each replaces the session's value of its field).
Result<void> slopeFlags(const LmCommand& c, lm::RunValues& given) {
    if (c.scale.given()) {
        auto k = numberIn(c.scale, 0, 1e6);
        if (!k) return std::unexpected(k.error());
        given.scale = *k;
    }
    if (c.maxBias.given()) {
        auto b = numberIn(c.maxBias, 0, 1024);
        if (!b) return std::unexpected(b.error());
        given.maxBias = *b;
    }
    if (c.scheme.given()) {
        const auto s = parseScheme(c.scheme.value);
        if (!s || *s == SlopeScheme::Custom)
            return fail(ErrorCode::InvalidArgument, fmt::format("{} must be press, geometric or linear, got '{}' (set "
                                                                "single heads with --head-slope H=M)",
                                                                c.scheme.name, c.scheme.value));
        given.scheme = *s;
    }
    if (c.headSlope.given()) {
        // The explorers' field and the session's rule (model/live_model.hpp): 4=1/16, 3=0.25, ...
        auto heads = parseHeadSlopes(c.headSlope.value);
        if (!heads) return std::unexpected(heads.error());
        given.headSlopes = std::move(*heads);
    }
    return {};
}

struct Prepared {
    lm::Checkpoint model;
    lm::RunTokens tokens;
    lm::ForwardOptions options;
    lm::SlopeChange change;
};

Result<Prepared> prepare(const LmCommand& c) {
    const int sources =
        static_cast<int>(c.text.given()) + static_cast<int>(c.file.given()) + static_cast<int>(c.ids.given());
    if (c.model.empty() && !c.session.given())
        return fail(ErrorCode::InvalidArgument,
                    "give the model's folder (MODEL), or --config FILE: a session whose `model` section names one");
    if (sources > 1 || (sources == 0 && !c.session.given()))
        return fail(ErrorCode::InvalidArgument, "give the input once: --text TEXT, --file FILE or --ids LIST");
    lm::RunValues given;
    if (!c.model.empty()) given.model = c.model;
    if (auto ok = slopeFlags(c, given); !ok) return std::unexpected(ok.error());
    lm::ForwardOptions options;
    if (c.threads.given()) {
        auto n = parseIntegerFlag(c.threads);
        if (!n) return std::unexpected(n.error());
        if (*n < 0 || *n > 1024)
            return fail(ErrorCode::InvalidArgument, fmt::format("--threads must be between 0 and 1024, got {}", *n));
        options.threads = static_cast<unsigned>(*n);
    }
    if (c.maxMemory.given()) {
        auto bytes = parseByteSize(c.maxMemory);
        if (!bytes) return std::unexpected(bytes.error());
        options.budget = *bytes;
    }
    if (c.length.given()) {
        auto n = parseIntegerFlag(c.length);
        if (!n) return std::unexpected(n.error());
        given.length = *n;
    }
    if (c.ids.given()) {
        auto ids = lm::parseIdList(c.ids.value);
        if (!ids) return fail(ErrorCode::InvalidArgument, fmt::format("--ids: {}", ids.error().message));
        given.ids = std::move(*ids);
    } else if (c.file.given()) {
        noteInput(c.file.value);
        auto read = readFileText(c.file.value, kMaxTextBytes);
        if (!read) {
            Error e = read.error();
            e.message = fmt::format("--file {}: {}", c.file.value, e.message);
            return std::unexpected(std::move(e));
        }
        given.text = std::move(*read);
    } else if (c.text.given()) {
        given.text = c.text.value;
    }
    std::optional<lm::SessionModel> session;
    if (c.session.given()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(c.session.value, ec))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--config: '{}' is not a readable session file (it does not exist or is not a "
                                    "regular file)",
                                    c.session.value));
        auto loaded = loadSession(c.session.value);
        if (!loaded) {
            // A model's config.json given here is a likely slip: say where it belongs.
            const bool modelConfig = std::filesystem::path(c.session.value).filename() == "config.json";
            return fail(loaded.error().code,
                        fmt::format("--config: {}{}", loaded.error().message,
                                    modelConfig ? "; --config takes a session file (*.alibi.json), and the model's "
                                                  "config.json is read from the folder MODEL names"
                                                : ""));
        }
        noteInput(c.session.value);
        session = lm::SessionModel{c.session.value, std::move(loaded->live)};
    }
    auto input = lm::resolveRunInput(session, given);
    if (!input) return std::unexpected(input.error());
    auto run = lm::prepareRun(*input);
    if (!run) return std::unexpected(run.error());
    return Prepared{std::move(run->model), std::move(run->tokens), std::move(options), std::move(run->change)};
}

Result<void> runMaps(const LmCommand& c) {
    if (!c.output.output.given() || c.output.output.value == "-")
        return fail(ErrorCode::InvalidArgument, "-o/--output is required: give a file, e.g. -o maps.safetensors");
    auto p = prepare(c);
    if (!p) return std::unexpected(p.error());
    if (auto ok = checkNotAnInput(c.output.output.value); !ok) return ok;
    p->options.slopes = p->change;
    ProgressBar bar("running the model");
    p->options.progress = bar.callback();
    auto run = lm::runToMapsFile(p->model, p->tokens, p->options, c.output.output.value);
    bar.finish();
    if (!run) return std::unexpected(run.error());
    if (!quiet())
        std::fprintf(stderr, "wrote %s: %d layers of (%d, %zu, %zu) attention probabilities; mean loss %.6g nats\n",
                     c.output.output.value.c_str(), p->model.config().layers, p->model.config().heads,
                     p->tokens.ids.size(), p->tokens.ids.size(), run->meanLoss);
    return {};
}

constexpr std::array kLossFormats{FileFormat::Text, FileFormat::Json, FileFormat::Csv};

Result<void> runLoss(const LmCommand& c) {
    auto target = resolveOutput(c.output, kLossFormats, FileFormat::Text);
    if (!target) return std::unexpected(target.error());
    auto p = prepare(c);
    if (!p) return std::unexpected(p.error());
    ProgressBar bar("running the model");
    p->options.progress = bar.callback();
    auto report = lm::compareLoss(p->model, p->tokens, p->change, p->options);
    bar.finish();
    if (!report) return std::unexpected(report.error());
    switch (target->format) {
        case FileFormat::Json:
            return writeText(target->path, lm::lossJson(*report));
        case FileFormat::Csv:
            return writeText(target->path, lm::lossCsv(*report));
        default:
            return writeText(target->path, lm::lossText(*report));
    }
}

}  // namespace

RunFn addRunCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "run", "Run a BLOOM, MPT or Falcon model on text and write every layer's attention maps (with the tokens)");
    auto state = std::make_shared<LmCommand>();
    addLmFlags(*cmd, *state);
    addTextFlag(*cmd, state->output.output, "-o,--output", "FILE",
                "Output .safetensors file (required): one (H, T, T) tensor attentions.N per layer. Example: -o "
                "maps.safetensors");
    state->output.output.name = "--output";
    cmd->footer(R"(Examples:
  alibi run assets/models/license-bloom-tiny --text 'Permission is hereby granted' -o maps.safetensors
  alibi fit maps.safetensors                                # each head's effective slope
  alibi run MODEL --file notes.txt --length 512 --slope-scale 0.5 -o halved.safetensors
  alibi run --config run.alibi.json -o maps.safetensors    # the model run a session saved)");
    return [state] { return runMaps(*state); };
}

RunFn addLossCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "loss",
        "Next-token loss per position of a BLOOM, MPT or Falcon model on text, as it is and with changed slopes");
    auto state = std::make_shared<LmCommand>();
    addLmFlags(*cmd, *state);
    addOutputFlags(*cmd, state->output, kLossFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(With an intervention (--slope-scale, --slope-scheme, --slope-max-bias, --head-slope) the model runs
twice: A as it is, B changed; the table gives both losses per position and B - A.
Examples:
  alibi loss MODEL --file notes.txt                         # loss per position, and the mean
  alibi loss MODEL --file notes.txt --length 2048 --slope-scale 0.5 --format csv -o ab.csv
  alibi loss MODEL --text 'Hello world' --head-slope 0=0 --format json
  alibi loss --config run.alibi.json --slope-scale 2       # the session's model, text and change; k = 2)");
    return [state] { return runLoss(*state); };
}

}  // namespace alibi::cli
