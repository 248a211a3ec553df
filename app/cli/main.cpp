// `alibi`: the command-line front end of ALiBi Explorer. This file only wires the subcommands
// together, parses, dispatches, and maps failures to exit statuses through errors.cpp.
#include "cancel.hpp"
#include "commands.hpp"
#include "errors.hpp"

#include <alibi/model/attention.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <system_error>
#include <exception>
#include <fmt/format.h>
#include <new>
#include <string>
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
  alibi bias --config run.alibi.json --dtype f16 -o bias.npy

Exit status: 0 success, 2 bad usage or bad input, 1 I/O or runtime failure,
130/143 cancelled by SIGINT/SIGTERM (no partial file is left).
Run 'alibi <command> --help' for every flag of a command.)";

int run(int argc, char** argv) {
    using namespace alibi::cli;
    installInterruptHandlers();

    CLI::App app{"alibi: compute, export, render and diagnose ALiBi attention biases (Press et al., ICLR 2022).",
                 "alibi"};
    app.set_version_flag(
        "--version", [] { return std::string("alibi ") + ALIBI_VERSION + "\n" + alibi::attentionKernelDescription(); },
        "Print the version and the attention kernels in use, and exit");
    app.require_subcommand(1, 1);
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

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::string command = "alibi";
        for (const auto* sub : app.get_subcommands()) command += " " + sub->get_name();
        return reportError(
            usageError(fmt::format("{}\nRun '{} --help' for every flag and an example of each.", e.what(), command)));
    }

    for (auto& [cmd, fn] : commands) {
        if (!cmd->parsed()) continue;
        const alibi::Result<void> result = fn();
        if (!result) return reportError(result.error());
        // A signal that arrived after the last check still means the user wanted to stop, but the
        // work is complete and committed: report success honestly.
        return kExitOk;
    }
    return kExitUsage;  // unreachable: CLI11 requires exactly one subcommand
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
