// `alibi`: the command-line front end of ALiBi Explorer. This file only wires the subcommands
// together, parses, dispatches, and maps failures to exit statuses through errors.cpp.
#include "cancel.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"

#include <cli_docs.hpp>

#include <alibi/model/attention.hpp>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#ifndef ALIBI_VERSION
#define ALIBI_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kFooter = R"(Examples:
  alibi slopes --heads 12                                  # press slopes, one line per head
  alibi bias --heads 8 --seq 128 -o bias.npy               # (8, 128, 128) f32 causal bias
  alibi attention --heads 8 --seq 64 --content qk -o attn.safetensors
  alibi stats --heads 8 --seq 512 --format json            # entropy, distances per head
  alibi render --heads 8 --seq 64 --what bias -o grid.png  # head grid heatmap
  alibi diagnose my_bias.npy                               # which ALiBi variant is this?
  alibi fit attentions.npy --preset bloom-560m             # does each trained head follow its slope?
  alibi run MODEL_DIR --text 'Some text' -o maps.safetensors  # a BLOOM/MPT model's attention on your text
  alibi loss MODEL_DIR --file notes.txt --slope-scale 0.5   # loss per position, as is and with halved slopes
  alibi bias --config run.alibi.json --dtype f16 -o bias.npy

Exit status: 0 success, 2 bad usage or bad input, 1 I/O or runtime failure,
130/143 cancelled by SIGINT/SIGTERM (no partial file is left).
Run 'alibi <command> --help' for every flag of a command.)";

// What the man page says besides the option table.
alibi::cli_docs::ProgramDoc manDoc() {
    alibi::cli_docs::ProgramDoc doc;
    doc.name = "alibi";
    doc.summary = "compute, export, render and diagnose ALiBi attention biases";
    doc.version = ALIBI_VERSION;
    doc.synopsis = {"\\fICOMMAND\\fR [\\fIOPTIONS\\fR]", "help [\\fICOMMAND\\fR]", "completion bash|zsh|fish"};
    doc.description = {
        "alibi computes the per-head slopes, bias tensors, attention and statistics of ALiBi (Attention with "
        "Linear Biases, Press et al., ICLR 2022), writes them as .npy, .safetensors, CSV or JSON, draws them "
        "as PNG or SVG figures, tells which ALiBi variant a saved bias tensor follows (diagnose) and checks "
        "trained attention maps against the slopes (fit).",
        "Every command takes the session flags (--heads, --seq, --scheme, ...) or a session file "
        "(--config FILE.alibi.json, as the explorers save them); a flag given on the command line wins. "
        "A flag given twice keeps its last value."};
    doc.exitStatus = {{"0", "Success."},
                      {"1", "An I/O or run-time failure (a file that cannot be written, memory)."},
                      {"2", "Bad usage or bad input: the message names the flag or file and what to give."},
                      {"130, 143", "Cancelled by SIGINT or SIGTERM; no partial file is left behind."}};
    doc.environment = {{"ALIBI_DATA_DIR",
                        "A folder searched first for presets/, sessions/, lessons/ and attention/ (before the "
                        "share/alibi-explorer folder beside the installed program)."},
                       {"COLUMNS", "The width --help wraps to (default: the terminal's)."}};
    doc.files = {{"/usr/share/alibi-explorer/presets/*.json", "Model presets (--preset NAME)."},
                 {"/usr/share/alibi-explorer/sessions/*.alibi.json", "Example sessions (--config FILE)."},
                 {"/usr/share/alibi-explorer/attention/", "Example trained-like attention maps (fit, render FILE)."}};
    doc.seeAlso = {"alibi-explorer(1)", "alibi-explorer-imgui(1)"};
    return doc;
}

std::vector<std::string> commandNames(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : alibi::cli_docs::visibleSubcommands(app)) names.push_back(sub->get_name());
    return names;
}

std::string commandList(const CLI::App& app) {
    std::string list;
    for (const std::string& name : commandNames(app)) list += (list.empty() ? "" : ", ") + name;
    return list;
}

// The first argument that is not an option of the root app: the command.
int commandIndex(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] != '-') return i;
    return -1;
}

// "unknown option --hedas; did you mean --heads?" for the options a command does not know.
std::string unknownOptionsMessage(const CLI::App& app, const CLI::App* command, int argc, char** argv) {
    std::vector<std::string> known = alibi::cli_docs::optionNames(app);
    if (command != nullptr)
        for (const auto& name : alibi::cli_docs::optionNames(*command)) known.push_back(name);
    std::string message;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") break;
        if (!arg.starts_with("--")) continue;
        arg = arg.substr(0, arg.find('='));
        if (std::find(known.begin(), known.end(), arg) != known.end()) continue;
        message += fmt::format("{}unknown option {}", message.empty() ? "" : "; ", arg);
        if (const auto close = alibi::cli_docs::closestName(arg, known))
            message += fmt::format("; did you mean {}?", *close);
    }
    return message;
}

// The root's help even after a command was parsed (CLI11's help() shows the parsed command's).
std::string rootHelp(const CLI::App& app) {
    return app.get_formatter()->make_help(&app, "alibi", CLI::AppFormatMode::Normal);
}

int run(int argc, char** argv) {
    using namespace alibi::cli;
    namespace docs = alibi::cli_docs;
    installInterruptHandlers();

    CLI::App app{"alibi: compute, export, render and diagnose ALiBi attention biases (Press et al., ICLR 2022).",
                 "alibi"};
    // Set before the commands are added: each command copies its parent's formatter.
    app.formatter(docs::wrappingFormatter());
    app.set_version_flag(
        "--version", [] { return std::string("alibi ") + ALIBI_VERSION + "\n" + alibi::attentionKernelDescription(); },
        "Print the version and the attention kernels in use, and exit");
    bool quietFlag = false;
    app.add_flag("-q,--quiet", quietFlag, "Print no progress bar and no notes on stderr (errors still are)");
    bool manPageFlag = false;
    app.add_flag("--man-page", manPageFlag, "Print the man page (roff) and exit")->group("");
    app.require_subcommand(0, 1);
    app.fallthrough();  // --quiet after the command name too
    app.footer(kFooter);
    // A flag given twice keeps its last value, as in most Unix tools (handy when appending overrides).
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

    std::vector<std::pair<CLI::App*, RunFn>> commands;
    const auto add = [&](RunFn (*adder)(CLI::App&), const char* name) {
        RunFn fn = adder(app);
        commands.emplace_back(app.get_subcommand(name), std::move(fn));
    };
    add(addSlopesCommand, "slopes");
    add(addBiasCommand, "bias");
    add(addAttentionCommand, "attention");
    add(addStatsCommand, "stats");
    add(addRenderCommand, "render");
    add(addDiagnoseCommand, "diagnose");
    add(addFitCommand, "fit");
    add(addRunCommand, "run");
    add(addLossCommand, "loss");

    std::string helpTopic;
    CLI::App* help = app.add_subcommand("help", "Print the help of alibi, or of COMMAND");
    help->add_option("command", helpTopic, "The command to explain");
    std::string shellName;
    CLI::App* completion =
        app.add_subcommand("completion", "Print a shell completion script (bash, zsh or fish) for alibi");
    completion->add_option("shell", shellName, "bash, zsh or fish")->required();
    completion->footer(R"(Examples:
  source <(alibi completion bash)                          # this bash session
  alibi completion fish > ~/.config/fish/completions/alibi.fish)");

    // An unknown command is named as such (CLI11 would say "a subcommand is required").
    if (const int at = commandIndex(argc, argv); at > 0) {
        const std::vector<std::string> names = commandNames(app);
        if (std::find(names.begin(), names.end(), argv[at]) == names.end()) {
            std::string message = fmt::format("unknown command '{}'", argv[at]);
            if (const auto close = docs::closestName(argv[at], names))
                message += fmt::format("; did you mean '{}'?", *close);
            return reportError(usageError(
                fmt::format("{}\nCommands: {}. Run 'alibi help' for what each does.", message, commandList(app))));
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::string command = "alibi";
        const CLI::App* selected = nullptr;
        for (const auto* sub : app.get_subcommands()) {
            command += " " + sub->get_name();
            selected = sub;
        }
        std::string message = e.what();
        if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
            if (std::string unknown = unknownOptionsMessage(app, selected, argc, argv); !unknown.empty())
                message = std::move(unknown);
        }
        return reportError(
            usageError(fmt::format("{}\nRun '{} --help' for every flag and an example of each.", message, command)));
    }
    setQuiet(quietFlag);

    if (manPageFlag) {
        std::fputs(docs::manPage(app, manDoc()).c_str(), stdout);
        return kExitOk;
    }
    if (help->parsed()) {
        if (helpTopic.empty() || helpTopic == "help") {
            std::fputs(rootHelp(app).c_str(), stdout);
            return kExitOk;
        }
        const CLI::App* topic = nullptr;
        for (const CLI::App* sub : docs::visibleSubcommands(app))
            if (sub->get_name() == helpTopic) topic = sub;
        if (topic == nullptr)
            return reportError(
                usageError(fmt::format("unknown command '{}'\nCommands: {}.", helpTopic, commandList(app))));
        std::fputs(topic->help("alibi").c_str(), stdout);
        return kExitOk;
    }
    if (completion->parsed()) {
        const auto shell = docs::parseShell(shellName);
        if (!shell)
            return reportError(
                usageError(fmt::format("alibi completion: unknown shell '{}': give bash, zsh or fish", shellName)));
        std::fputs(docs::completionScript(app, *shell).c_str(), stdout);
        return kExitOk;
    }

    for (auto& [cmd, fn] : commands) {
        if (!cmd->parsed()) continue;
        const alibi::Result<void> result = fn();
        if (!result) return reportError(result.error());
        // A signal that arrived after the last check still means the user wanted to stop, but the
        // work is complete and committed: report success honestly.
        return kExitOk;
    }
    // No command: say what there is (exit 2, as any usage error).
    std::fputs(rootHelp(app).c_str(), stderr);
    return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fputs("alibi: error: out of memory; lower --max-memory or the tensor size, or export to a file\n", stderr);
    } catch (const std::system_error& e) {  // a thread or a resource the system refused (issue 25)
        fmt::print(stderr,
                   "alibi: error: the system refused a resource ({}); the process may be at a limit (ulimit -u for "
                   "processes and threads, ulimit -v for address space): raise it, or use --threads 1\n",
                   e.what());
    } catch (const std::exception& e) {
        fmt::print(stderr, "alibi: internal error: {}\n", e.what());
    }
    return alibi::cli::kExitRuntime;
}
