// `alibi run MODEL` and `alibi loss MODEL`: run a BLOOM or MPT checkpoint (a Hugging Face model
// folder) on the user's text, as it is or with its slopes changed. `run` writes every layer's
// attention maps (with the tokens) to a .safetensors file that `alibi fit`, `alibi render FILE`
// and the explorers open; `loss` prints the next-token loss per position, of the model (A) and,
// with a slope change, of the changed model (B). Everything is computed by the core (alibi::lm).
#include "commands.hpp"
#include "inputs.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/io/output_file.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include <alibi/lm/run_report.hpp>
#include <alibi/model/params.hpp>

#include <fmt/format.h>
#include <array>
#include <charconv>
#include <cstdio>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;

struct LmCommand {
    std::string model;
    OutputFlags output;
    Flag text, file, ids, length, scale, scheme, maxBias, headSlope, threads, maxMemory;
};

void addTextFlag(CLI::App& cmd, Flag& flag, const std::string& name, const std::string& type, const std::string& help) {
    flag.name = name;
    flag.option = cmd.add_option(name, flag.value, help)->type_name(type);
}

void addLmFlags(CLI::App& cmd, LmCommand& c) {
    cmd.add_option("MODEL", c.model,
                   "A Hugging Face model folder: config.json (BLOOM or MPT with ALiBi), model.safetensors or shards "
                   "with model.safetensors.index.json, and tokenizer.json. Example: assets/models/license-bloom-tiny")
        ->type_name("")
        ->required();
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
                "Intervention: set head H's slope to M (heads from 0), after the others. Example: --head-slope 3=0.25");
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

Result<lm::SlopeChange> slopeChange(const LmCommand& c) {
    lm::SlopeChange change;
    if (c.scale.given()) {
        auto k = numberIn(c.scale, 0, 1e6);
        if (!k) return std::unexpected(k.error());
        change.scale = *k;
    }
    if (c.maxBias.given()) {
        auto b = numberIn(c.maxBias, 0, 1024);
        if (!b) return std::unexpected(b.error());
        change.maxBias = *b;
    }
    if (c.scheme.given()) {
        const auto s = parseScheme(c.scheme.value);
        if (!s || *s == SlopeScheme::Custom)
            return fail(ErrorCode::InvalidArgument, fmt::format("{} must be press, geometric or linear, got '{}' (set "
                                                                "single heads with --head-slope H=M)",
                                                                c.scheme.name, c.scheme.value));
        change.scheme = *s;
    }
    if (c.headSlope.given()) {
        std::string_view rest = c.headSlope.value;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const std::string_view item = rest.substr(0, comma);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            const auto eq = item.find('=');
            int head = -1;
            Flag value{c.headSlope.name, std::string(eq == std::string_view::npos ? "" : item.substr(eq + 1)), nullptr};
            const auto [ptr, ec] =
                std::from_chars(item.data(), item.data() + (eq == std::string_view::npos ? 0 : eq), head);
            if (eq == std::string_view::npos || ec != std::errc() || ptr != item.data() + eq || head < 0)
                return fail(ErrorCode::InvalidArgument,
                            fmt::format("{}: '{}' is not HEAD=SLOPE (e.g. 3=0.25)", c.headSlope.name, item));
            auto m = parseNumberFlag(value);
            if (!m) return std::unexpected(m.error());
            change.headSlopes[head] = *m;
        }
    }
    return change;
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
    if (sources != 1)
        return fail(ErrorCode::InvalidArgument, "give the input once: --text TEXT, --file FILE or --ids LIST");
    auto change = slopeChange(c);
    if (!change) return std::unexpected(change.error());
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
    auto model = lm::Checkpoint::open(c.model);
    if (!model) return std::unexpected(model.error());

    Result<lm::RunTokens> tokens = fail(ErrorCode::Internal, "");
    if (c.ids.given()) {
        auto ids = lm::parseIdList(c.ids.value);
        if (!ids) return fail(ErrorCode::InvalidArgument, fmt::format("--ids: {}", ids.error().message));
        tokens = lm::tokensOfIds(c.model, std::move(*ids));
    } else {
        std::string text = c.text.value;
        if (c.file.given()) {
            noteInput(c.file.value);
            auto read = readFileText(c.file.value, kMaxTextBytes);
            if (!read) {
                Error e = read.error();
                e.message = fmt::format("--file {}: {}", c.file.value, e.message);
                return std::unexpected(std::move(e));
            }
            text = std::move(*read);
        }
        tokens = lm::tokensOfText(c.model, text);
    }
    if (!tokens) return std::unexpected(tokens.error());
    if (c.length.given()) {
        auto n = parseIntegerFlag(c.length);
        if (!n) return std::unexpected(n.error());
        if (*n < 1 || *n > static_cast<std::int64_t>(tokens->ids.size()))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--length {}: the input gives {} tokens; give a length from 1 to {} (or a longer "
                                    "text)",
                                    *n, tokens->ids.size(), tokens->ids.size()));
        tokens->ids.resize(static_cast<std::size_t>(*n));
        if (tokens->text.size() > tokens->ids.size()) tokens->text.resize(tokens->ids.size());
        if (tokens->display.size() > tokens->ids.size()) tokens->display.resize(tokens->ids.size());
    }
    return Prepared{std::move(*model), std::move(*tokens), std::move(options), std::move(*change)};
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
        "run", "Run a BLOOM or MPT model on text and write every layer's attention maps (with the tokens)");
    auto state = std::make_shared<LmCommand>();
    addLmFlags(*cmd, *state);
    addTextFlag(*cmd, state->output.output, "-o,--output", "FILE",
                "Output .safetensors file (required): one (H, T, T) tensor attentions.N per layer. Example: -o "
                "maps.safetensors");
    state->output.output.name = "--output";
    cmd->footer(R"(Examples:
  alibi run assets/models/license-bloom-tiny --text 'Permission is hereby granted' -o maps.safetensors
  alibi fit maps.safetensors                                # each head's effective slope
  alibi run MODEL --file notes.txt --length 512 --slope-scale 0.5 -o halved.safetensors)");
    return [state] { return runMaps(*state); };
}

RunFn addLossCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "loss", "Next-token loss per position of a BLOOM or MPT model on text, as it is and with changed slopes");
    auto state = std::make_shared<LmCommand>();
    addLmFlags(*cmd, *state);
    addOutputFlags(*cmd, state->output, kLossFormats, /*required=*/false, /*tensorExport=*/false);
    cmd->footer(R"(With an intervention (--slope-scale, --slope-scheme, --slope-max-bias, --head-slope) the model runs
twice: A as it is, B changed; the table gives both losses per position and B - A.
Examples:
  alibi loss MODEL --file notes.txt                         # loss per position, and the mean
  alibi loss MODEL --file notes.txt --length 2048 --slope-scale 0.5 --format csv -o ab.csv
  alibi loss MODEL --text 'Hello world' --head-slope 0=0 --format json)");
    return [state] { return runLoss(*state); };
}

}  // namespace alibi::cli
