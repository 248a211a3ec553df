// Help, man pages and completion from a CLI11 option table. See cli_docs.hpp.
#include "cli_docs.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <sstream>

namespace alibi::cli_docs {
namespace {

// ---------------------------------------------------------------------------
// Text

std::string indentOf(const std::string& line) {
    return line.substr(0, line.find_first_not_of(' '));
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Options shown to a person: not the help flag, not hidden ones (CLI11: an empty group).
bool visible(const CLI::Option* opt) {
    return !opt->get_group().empty();
}

std::vector<const CLI::Option*> visibleOptions(const CLI::App& app) {
    return app.get_options([](const CLI::Option* opt) { return visible(opt); });
}

// Flags expect no value (CLI11: expected(0)); options one or more.
bool takesValue(const CLI::Option* opt) {
    return opt->get_expected_max() > 0 && opt->get_type_size_max() > 0;
}

bool takesPath(const CLI::Option* opt) {
    // The whole name: PROFILE (--arith) is not a file.
    const std::string type = opt->get_type_name();
    return type == "FILE" || type == "PATH" || type == "DIR" || type.starts_with("FILE.") ||
           type.starts_with("FILE:") || type.starts_with("OUT.");
}

std::string valueName(const CLI::Option* opt) {
    std::string type = opt->get_type_name();
    if (type.empty() || type == "TEXT") type = "VALUE";
    // CLI11 appends ":{a,b}" for IsMember checks; the man page lists the choices in the text.
    if (const auto colon = type.find(':'); colon != std::string::npos) type.resize(colon);
    return type;
}

// "-o, --output" (short first), as people read them.
std::vector<std::string> spellings(const CLI::Option* opt) {
    std::vector<std::string> names;
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    return names;
}

// ---------------------------------------------------------------------------
// roff

std::string roff(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
    return out;
}

// Filled text: every source line escaped, blank lines become paragraph breaks.
std::string roffParagraphs(const std::string& text) {
    std::string out;
    for (const std::string& line : splitLines(text)) {
        std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
        out += trimmed.empty() ? ".PP\n" : roff(trimmed) + "\n";
    }
    return out;
}

std::string optionTag(const CLI::Option* opt) {
    std::string tag;
    for (const std::string& name : spellings(opt))
        tag += (tag.empty() ? "" : ", ") + std::string("\\fB") + roff(name) + "\\fR";
    if (takesValue(opt)) tag += " \\fI" + roff(valueName(opt)) + "\\fR";
    return tag;
}

std::string roffOptions(const CLI::App& app) {
    std::string out;
    for (const CLI::Option* opt : visibleOptions(app)) {
        if (!opt->nonpositional()) continue;
        out += ".TP\n" + optionTag(opt) + "\n" + roff(opt->get_description()) + "\n";
    }
    return out;
}

std::string roffPositionals(const CLI::App& app) {
    std::string out;
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->nonpositional() || !opt->get_positional()) continue;
        out += ".TP\n\\fI" + roff(opt->get_name(true)) + "\\fR\n" + roff(opt->get_description()) + "\n";
    }
    return out;
}

// A footer: "Examples:" lines ("  alibi ... # what it does") become a command in bold and its
// comment below it; other lines are filled text.
std::string roffFooter(const std::string& footer) {
    std::string out;
    bool inText = false;  // the previous line was running text: this one continues its paragraph
    for (const std::string& line : splitLines(footer)) {
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos) {
            inText = false;
            continue;
        }
        std::string text = line.substr(first);
        if (text == "Examples:") continue;  // the section is EXAMPLES already
        if (first == 0 && !text.ends_with(":")) {
            out += (inText ? "" : ".PP\n") + roff(text) + "\n";
            inText = true;
            continue;
        }
        inText = false;
        if (first > 0) {  // an indented example
            std::string comment;
            if (const auto hash = text.find("  #"); hash != std::string::npos) {
                comment = text.substr(text.find_first_not_of(' ', hash + 3) == std::string::npos
                                          ? text.size()
                                          : text.find_first_not_of(' ', hash + 3));
                text = text.substr(0, hash);
                while (!text.empty() && text.back() == ' ') text.pop_back();
            }
            out += ".PP\n\\fB" + roff(text) + "\\fR\n";
            if (!comment.empty()) out += ".RS\n" + roff(comment) + "\n.RE\n";
        } else if (text.ends_with(":")) {
            out += ".PP\n\\fI" + roff(text) + "\\fR\n";
        } else {
            out += ".PP\n" + roff(text) + "\n";
        }
    }
    return out;
}

std::string roffEntries(const std::vector<Entry>& entries, bool boldTerms) {
    std::string out;
    for (const auto& [term, text] : entries)
        out += ".TP\n" + std::string(boldTerms ? "\\fB" : "\\fI") + roff(term) + "\\fR\n" + roff(text) + "\n";
    return out;
}

std::string manDate() {
    std::time_t when = std::time(nullptr);
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && *epoch != '\0')
        when = static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10));
    std::tm tm{};
    gmtime_r(&when, &tm);
    char buffer[16];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &tm);
    return buffer;
}

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

// ---------------------------------------------------------------------------
// Completion

std::string shellWords(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// First sentence of a description, without characters the shells' specs treat specially.
std::string shortHelp(const std::string& description, std::string_view forbidden) {
    std::string text = description.substr(0, description.find(". "));
    if (text.size() > 70) {
        text.resize(70);
        if (const auto space = text.rfind(' '); space != std::string::npos) text.resize(space);
        text += "...";
    }
    std::string out;
    for (const char c : text)
        if (forbidden.find(c) == std::string_view::npos) out += c;
    return out;
}

std::vector<std::string> allSpellings(const CLI::App& app, bool pathsOnly) {
    std::vector<std::string> words;
    for (const CLI::Option* opt : visibleOptions(app)) {
        if (!opt->nonpositional() || (pathsOnly && !(takesValue(opt) && takesPath(opt)))) continue;
        for (const auto& name : spellings(opt)) words.push_back(name);
    }
    return words;
}

std::vector<std::string> valueSpellings(const CLI::App& app) {
    std::vector<std::string> words;
    for (const CLI::Option* opt : visibleOptions(app)) {
        if (!opt->nonpositional() || !takesValue(opt) || takesPath(opt)) continue;
        for (const auto& name : spellings(opt)) words.push_back(name);
    }
    return words;
}

std::string bashScript(const CLI::App& app) {
    const std::string program = app.get_name();
    std::string fn = "_" + program;
    std::replace(fn.begin(), fn.end(), '-', '_');
    std::vector<std::string> commands;
    for (const CLI::App* sub : visibleSubcommands(app)) commands.push_back(sub->get_name());
    std::vector<std::string> rootWords = commands;
    for (const auto& w : allSpellings(app, false)) rootWords.push_back(w);

    std::ostringstream out;
    out << "# bash completion for " << program << " (generated from its option table by `" << program
        << " completion bash`)\n";
    out << fn << "() {\n";
    out << "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command= i\n";
    if (!commands.empty()) {
        out << "    for ((i = 1; i < COMP_CWORD; i++)); do\n";
        out << "        case ${COMP_WORDS[i]} in\n";
        std::string pattern;
        for (const auto& c : commands) pattern += (pattern.empty() ? "" : "|") + c;
        out << "            " << pattern << ")\n";
        out << "                command=${COMP_WORDS[i]}; break ;;\n";
        out << "        esac\n    done\n";
    }
    out << "    local words= files= values=\n";
    out << "    case $command in\n";
    out << "        '') words='" << shellWords(rootWords) << "'\n";
    out << "            files='" << shellWords(allSpellings(app, true)) << "'\n";
    out << "            values='" << shellWords(valueSpellings(app)) << "' ;;\n";
    for (const CLI::App* sub : visibleSubcommands(app)) {
        std::vector<std::string> words = allSpellings(*sub, false);
        for (const auto& w : allSpellings(app, false)) words.push_back(w);
        out << "        " << sub->get_name() << ") words='" << shellWords(words) << "'\n";
        out << "            files='" << shellWords(allSpellings(*sub, true)) << "'\n";
        out << "            values='" << shellWords(valueSpellings(*sub)) << "' ;;\n";
    }
    out << "    esac\n";
    out << "    if [[ \" $files \" == *\" $prev \"* ]]; then\n";
    out << "        compopt -o filenames 2>/dev/null\n";
    out << "        COMPREPLY=($(compgen -f -- \"$cur\"))\n";
    out << "        return\n";
    out << "    fi\n";
    out << "    [[ \" $values \" == *\" $prev \"* ]] && return\n";
    out << "    if [[ $cur == -* || -z $command ]]; then\n";
    out << "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n";
    out << "    else\n";
    out << "        compopt -o filenames 2>/dev/null\n";
    out << "        COMPREPLY=($(compgen -f -- \"$cur\"))\n";
    out << "    fi\n";
    out << "}\n";
    out << "complete -F " << fn << " " << program << "\n";
    return out.str();
}

std::string zshSpec(const CLI::Option* opt) {
    const std::string help = shortHelp(opt->get_description(), "[]:'\\`$");
    std::string out;
    for (const std::string& name : spellings(opt)) {
        out += " \\\n        '" + name + "[" + help + "]";
        if (takesValue(opt)) out += ":" + valueName(opt) + ":" + (takesPath(opt) ? "_files" : " ");
        out += "'";
    }
    return out;
}

std::string zshScript(const CLI::App& app) {
    const std::string program = app.get_name();
    std::string fn = "_" + program;
    std::replace(fn.begin(), fn.end(), '-', '_');
    std::ostringstream out;
    out << "#compdef " << program << "\n";
    out << "# zsh completion for " << program << " (generated from its option table by `" << program
        << " completion zsh`)\n";
    out << fn << "() {\n";
    const auto subs = visibleSubcommands(app);
    std::string rootSpecs;
    for (const CLI::Option* opt : visibleOptions(app))
        if (opt->nonpositional()) rootSpecs += zshSpec(opt);
    if (subs.empty()) {
        out << "    _arguments -s" << rootSpecs << " \\\n        '*:file:_files'\n}\n";
    } else {
        out << "    local -a commands\n    commands=(\n";
        for (const CLI::App* sub : subs)
            out << "        '" << sub->get_name() << ":" << shortHelp(sub->get_description(), ":'\\`$") << "'\n";
        out << "    )\n";
        out << "    local curcontext=$curcontext state line\n";
        out << "    _arguments -C" << rootSpecs << " \\\n        '1:command:->command' \\\n        '*::arg:->args'\n";
        out << "    case $state in\n";
        out << "        command) _describe -t commands command commands ;;\n";
        out << "        args)\n            case $words[1] in\n";
        for (const CLI::App* sub : subs) {
            std::string specs;
            for (const CLI::Option* opt : visibleOptions(*sub))
                if (opt->nonpositional()) specs += zshSpec(opt);
            out << "                " << sub->get_name() << ") _arguments -s" << specs
                << " \\\n        '*:file:_files' ;;\n";
        }
        out << "            esac ;;\n    esac\n}\n";
    }
    out << fn << " \"$@\"\n";
    return out.str();
}

std::string fishQuote(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    return out + "'";
}

std::string fishOption(const std::string& program, const std::string& condition, const CLI::Option* opt) {
    std::string line = "complete -c " + program;
    if (!condition.empty()) line += " -n " + fishQuote(condition);
    for (const auto& s : opt->get_snames()) line += " -s " + s;
    for (const auto& l : opt->get_lnames()) line += " -l " + l;
    if (takesValue(opt)) line += takesPath(opt) ? " -r -F" : " -r";
    return line + " -d " + fishQuote(shortHelp(opt->get_description(), "")) + "\n";
}

std::string fishScript(const CLI::App& app) {
    const std::string program = app.get_name();
    std::ostringstream out;
    out << "# fish completion for " << program << " (generated from its option table by `" << program
        << " completion fish`)\n";
    const auto subs = visibleSubcommands(app);
    std::string names;
    for (const CLI::App* sub : subs) names += (names.empty() ? "" : " ") + sub->get_name();
    if (!subs.empty()) {
        out << "complete -c " << program << " -f\n";
        for (const CLI::App* sub : subs)
            out << "complete -c " << program << " -n " << fishQuote("not __fish_seen_subcommand_from " + names)
                << " -a " << sub->get_name() << " -d " << fishQuote(shortHelp(sub->get_description(), "")) << "\n";
    }
    for (const CLI::Option* opt : visibleOptions(app))
        if (opt->nonpositional()) out << fishOption(program, "", opt);
    for (const CLI::App* sub : subs) {
        const std::string condition = "__fish_seen_subcommand_from " + sub->get_name();
        for (const CLI::Option* opt : visibleOptions(*sub))
            if (opt->nonpositional()) out << fishOption(program, condition, opt);
        out << "complete -c " << program << " -n " << fishQuote(condition) << " -F\n";
    }
    return out.str();
}

// Optimal string alignment distance (a swap of two neighbours counts as one edit: --hedas).
std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// ---------------------------------------------------------------------------
// Help

class WrappingFormatter : public CLI::Formatter {
public:
    explicit WrappingFormatter(int columns) : m_columns(static_cast<std::size_t>(columns)) {
        // The option column: 30 on a wide terminal, less on a narrow one (descriptions then
        // start on the next line when a name is longer).
        column_width(std::min<std::size_t>(30, m_columns / 3));
    }

    std::string make_option(const CLI::Option* opt, bool is_positional) const override {
        const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
        const std::size_t indent = get_column_width();
        const std::string desc = make_option_desc(opt);
        std::string out = name;
        if (desc.empty()) return out + "\n";
        const std::size_t width = m_columns > indent + 20 ? m_columns - indent : 20;
        const std::vector<std::string> lines = splitLines(wrapText(desc, width, 0));
        if (name.size() >= indent) {
            out += "\n" + std::string(indent, ' ');
        } else {
            out += std::string(indent - name.size(), ' ');
        }
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? std::string(indent, ' ') : "") + lines[i] + "\n";
        return out;
    }

    std::string make_description(const CLI::App* app) const override {
        return wrapText(CLI::Formatter::make_description(app), m_columns);
    }

    std::string make_footer(const CLI::App* app) const override {
        return wrapText(CLI::Formatter::make_footer(app), m_columns);
    }

    std::string make_subcommand(const CLI::App* sub) const override {
        const std::string name = "  " + sub->get_display_name(true);
        const std::size_t indent = get_column_width();
        std::string out = name;
        out += name.size() >= indent ? "\n" + std::string(indent, ' ') : std::string(indent - name.size(), ' ');
        const std::vector<std::string> lines = splitLines(wrapText(sub->get_description(), m_columns - indent, 0));
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? std::string(indent, ' ') : "") + lines[i] + "\n";
        if (lines.empty()) out += "\n";
        return out;
    }

private:
    std::size_t m_columns;
};

}  // namespace

int terminalColumns() {
    int columns = 0;
    if (const char* env = std::getenv("COLUMNS"); env != nullptr && *env != '\0') columns = std::atoi(env);
    if (columns <= 0) {
        winsize size{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) columns = size.ws_col;
    }
    if (columns <= 0) columns = 80;
    return std::max(columns, 40);
}

std::string wrapText(const std::string& text, std::size_t width, std::size_t hang) {
    std::string out;
    for (const std::string& line : splitLines(text)) {
        if (line.size() <= width) {
            out += line + "\n";
            continue;
        }
        // An example with an aligned comment ("cmd      # what it does"): first close the gap.
        if (const auto hash = line.find("  #"); hash != std::string::npos) {
            std::string command = line.substr(0, hash);
            while (!command.empty() && command.back() == ' ') command.pop_back();
            const std::string squeezed = command + "  " + line.substr(line.find('#', hash));
            if (squeezed.size() <= width) {
                out += squeezed + "\n";
                continue;
            }
            if (command.size() <= width) {  // the comment on its own line below the command
                out += command + "\n" + wrapText(indentOf(line) + "    " + line.substr(line.find('#', hash)), width, 2);
                if (out.back() != '\n') out += '\n';
                continue;
            }
        }
        const std::string indent = indentOf(line);
        const std::string next = indent + std::string(hang, ' ');
        std::string current = indent;
        std::istringstream words(line.substr(indent.size()));
        bool first = true;
        for (std::string word; words >> word;) {
            const std::string& lead = first ? indent : next;
            if (current.size() > lead.size() && current.size() + 1 + word.size() > width) {
                out += current + "\n";
                current = next;
                first = false;
            }
            if (current.size() > (first ? indent : next).size()) current += ' ';
            current += word;
        }
        out += current + "\n";
    }
    if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

std::shared_ptr<CLI::Formatter> wrappingFormatter(int columns) {
    return std::make_shared<WrappingFormatter>(columns);
}

std::vector<const CLI::App*> visibleSubcommands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<std::string> optionNames(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* opt : app.get_options()) {
        for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
        for (const auto& s : opt->get_snames()) names.push_back("-" + s);
    }
    return names;
}

std::optional<std::string> closestName(std::string_view given, const std::vector<std::string>& names) {
    std::optional<std::string> best;
    std::size_t bestDistance = std::max<std::size_t>(2, given.size() / 3) + 1;
    for (const std::string& name : names) {
        const std::size_t d = editDistance(given, name);
        if (d < bestDistance) {
            bestDistance = d;
            best = name;
        }
    }
    return best;
}

std::string manPage(const CLI::App& app, const ProgramDoc& doc) {
    std::ostringstream out;
    out << ".TH " << roff(upper(doc.name)) << " 1 \"" << manDate() << "\" \"ALiBi Explorer " << doc.version
        << "\" \"User Commands\"\n";
    out << ".SH NAME\n" << roff(doc.name) << " \\- " << roff(doc.summary) << "\n";
    out << ".SH SYNOPSIS\n";
    for (std::size_t i = 0; i < doc.synopsis.size(); ++i)
        out << (i ? ".br\n" : "") << ".B " << roff(doc.name) << "\n" << doc.synopsis[i] << "\n";  // roff already
    out << ".SH DESCRIPTION\n";
    for (std::size_t i = 0; i < doc.description.size(); ++i)
        out << (i ? ".PP\n" : "") << roffParagraphs(doc.description[i]);

    const auto subs = visibleSubcommands(app);
    if (!subs.empty()) {
        out << ".SH COMMANDS\n";
        for (const CLI::App* sub : subs)
            out << ".TP\n\\fB" << roff(sub->get_name()) << "\\fR\n" << roff(sub->get_description()) << "\n";
    }
    out << ".SH OPTIONS\n";
    const std::string positionals = roffPositionals(app);
    if (!positionals.empty()) out << positionals;
    out << roffOptions(app);
    for (const CLI::App* sub : subs) {
        const std::string options = roffOptions(*sub);
        const std::string subPositionals = roffPositionals(*sub);
        if (options.empty() && subPositionals.empty()) continue;
        out << ".SS \"" << roff(doc.name + " " + sub->get_name()) << "\"\n" << subPositionals << options;
    }
    if (!doc.exitStatus.empty()) out << ".SH \"EXIT STATUS\"\n" << roffEntries(doc.exitStatus, true);
    if (!doc.environment.empty()) out << ".SH ENVIRONMENT\n" << roffEntries(doc.environment, true);
    if (!doc.files.empty()) out << ".SH FILES\n" << roffEntries(doc.files, false);
    std::string examples = app.get_footer().empty() ? "" : roffFooter(app.get_footer());
    for (const CLI::App* sub : subs)
        if (!sub->get_footer().empty())
            examples += ".SS \"" + roff(doc.name + " " + sub->get_name()) + "\"\n" + roffFooter(sub->get_footer());
    if (!examples.empty()) out << ".SH EXAMPLES\n" << examples;
    if (!doc.seeAlso.empty()) {
        out << ".SH \"SEE ALSO\"\n";
        for (std::size_t i = 0; i < doc.seeAlso.size(); ++i) {
            const std::string& ref = doc.seeAlso[i];
            const auto paren = ref.find('(');
            out << ".BR " << roff(ref.substr(0, paren)) << " " << ref.substr(paren)
                << (i + 1 < doc.seeAlso.size() ? "," : "") << "\n";
        }
    }
    return out.str();
}

std::optional<Shell> parseShell(std::string_view name) {
    if (name == "bash") return Shell::Bash;
    if (name == "zsh") return Shell::Zsh;
    if (name == "fish") return Shell::Fish;
    return std::nullopt;
}

std::string completionScript(const CLI::App& app, Shell shell) {
    switch (shell) {
        case Shell::Bash:
            return bashScript(app);
        case Shell::Zsh:
            return zshScript(app);
        case Shell::Fish:
            return fishScript(app);
    }
    return {};
}

}  // namespace alibi::cli_docs
