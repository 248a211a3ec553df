// Everything the programs print about their own command line, generated from the CLI11 option
// table they parse with, so help, man pages and shell completion cannot drift apart:
//   - a help formatter that wraps to the terminal's width,
//   - the man page (roff: NAME, SYNOPSIS, DESCRIPTION, COMMANDS, OPTIONS, EXIT STATUS,
//     ENVIRONMENT, FILES, EXAMPLES, SEE ALSO),
//   - bash, zsh and fish completion scripts,
//   - "did you mean" suggestions for a mistyped command or option.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alibi::cli_docs {

// One "term: text" entry of a man page section (an exit status, a variable, a file).
using Entry = std::pair<std::string, std::string>;

// What a man page says besides the option table.
struct ProgramDoc {
    std::string name;                      // "alibi"
    std::string summary;                   // the NAME line, after "alibi \-"
    std::string version;                   // "0.1.0"
    std::vector<std::string> synopsis;     // lines after the program name, in roff ("\\fICOMMAND\\fR")
    std::vector<std::string> description;  // paragraphs
    std::vector<Entry> exitStatus;
    std::vector<Entry> environment;
    std::vector<Entry> files;
    std::vector<std::string> seeAlso;  // "alibi-explorer(1)"
};

// Columns of the terminal on stdout ($COLUMNS, else the tty's, else 80), at least 40.
[[nodiscard]] int terminalColumns();

// Text wrapped to `width` columns; a line too long keeps its indent plus `hang` on the next lines.
[[nodiscard]] std::string wrapText(const std::string& text, std::size_t width, std::size_t hang = 4);

// A CLI11 formatter whose option descriptions, descriptions and footers fit `columns`.
[[nodiscard]] std::shared_ptr<CLI::Formatter> wrappingFormatter(int columns = terminalColumns());

// The man page of `app` (its options and, for each visible subcommand, the subcommand's).
[[nodiscard]] std::string manPage(const CLI::App& app, const ProgramDoc& doc);

enum class Shell { Bash, Zsh, Fish };
[[nodiscard]] std::optional<Shell> parseShell(std::string_view name);
// A completion script for `program`: its subcommands, their options, files for FILE/PATH/DIR values.
[[nodiscard]] std::string completionScript(const CLI::App& app, Shell shell);

// The closest of `names` to `given` when it is close enough to be a typo, for "did you mean".
[[nodiscard]] std::optional<std::string> closestName(std::string_view given, const std::vector<std::string>& names);

// The long option names ("--heads") and short ones ("-o") `app` accepts, hidden ones included.
[[nodiscard]] std::vector<std::string> optionNames(const CLI::App& app);

// The visible subcommands of `app`, in the order they were added.
[[nodiscard]] std::vector<const CLI::App*> visibleSubcommands(const CLI::App& app);

}  // namespace alibi::cli_docs
