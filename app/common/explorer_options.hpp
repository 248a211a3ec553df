// The command line both explorers share (alibi-explorer and alibi-explorer-imgui take the same
// arguments): an optional FILE (a session, *.alibi.json, or attention maps, .npy or
// .safetensors), --lesson, --attention, --zoom, --presentation, --version, and the hidden --man-page; parsing
// that exits 2 with a message (and "did you mean") on a bad argument, as the alibi CLI does.
#pragma once

#include "cli_docs.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace alibi::cli_docs {

struct ExplorerOptions {
    std::string file;           // positional: a session or attention maps (isAttentionMapsFile)
    std::string lesson;         // --lesson NAME or path
    std::string attention;      // --attention FILE
    double zoom = 1.0;          // --zoom: the font scale to start with
    bool presentation = false;  // --presentation: start in presentation mode (large text that fits)
    bool manPage = false;       // --man-page (hidden): print the man page and exit
};

// Registers the shared options on `app` (and its help formatter and --version) for `program`.
void addExplorerOptions(CLI::App& app, ExplorerOptions& options, const std::string& program,
                        const std::string& versionText, double minZoom, double maxZoom);

// Parses; nullopt to go on, or the exit status to return (0 after --help or --version, 2 after a
// bad argument, whose message went to stderr).
[[nodiscard]] std::optional<int> parseExplorerArgs(CLI::App& app, const std::string& program, int argc,
                                                   const char* const* argv);

// .npy or .safetensors: attention maps; anything else opens as a session.
[[nodiscard]] bool isAttentionMapsFile(const std::string& path);

// The man page text both explorers share (ENVIRONMENT, FILES, EXIT STATUS, ...).
[[nodiscard]] ProgramDoc explorerManDoc(const std::string& program, const std::string& summary,
                                        const std::string& version, const std::string& toolkit);

}  // namespace alibi::cli_docs
