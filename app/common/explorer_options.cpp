// See explorer_options.hpp.
#include "explorer_options.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace alibi::cli_docs {

void addExplorerOptions(CLI::App& app, ExplorerOptions& options, const std::string& program,
                        const std::string& versionText, double minZoom, double maxZoom) {
    app.name(program);
    app.formatter(wrappingFormatter());
    app.set_version_flag(
        "--version", [versionText] { return versionText; }, "Print the version and exit");
    app.add_option("file", options.file,
                   "A session (*.alibi.json) to open, or a trained model's attention maps (.npy or .safetensors) "
                   "to open in the Attention maps view")
        ->type_name("FILE");
    app.add_option("--lesson", options.lesson,
                   "Start the guided lesson NAME (e.g. alibi-in-five-steps) or the lesson file at a path")
        ->type_name("NAME");
    app.add_option("--attention", options.attention,
                   "Open a trained model's saved attention maps (.npy (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or "
                   ".safetensors with one tensor per layer) in the Attention maps view")
        ->type_name("FILE");
    app.add_option("--zoom", options.zoom, "Start with this font scale (View > Zoom; a projector wants 1.5 to 2)")
        ->type_name("SCALE")
        ->check(CLI::Range(minZoom, maxZoom));
    app.add_flag("--presentation", options.presentation,
                 "Start in presentation mode (View > Presentation): large text and thick lines that fit the screen");
    app.add_flag("--man-page", options.manPage, "Print the man page (roff) and exit")->group("");
}

std::optional<int> parseExplorerArgs(CLI::App& app, const std::string& program, int argc, const char* const* argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::string message = e.what();
        if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
            const std::vector<std::string> known = optionNames(app);
            std::string unknown;
            for (int i = 1; i < argc; ++i) {
                std::string arg = argv[i];
                if (arg == "--") break;
                if (!arg.starts_with("-")) continue;
                arg = arg.substr(0, arg.find('='));
                if (std::find(known.begin(), known.end(), arg) != known.end()) continue;
                unknown += (unknown.empty() ? "" : "; ") + std::string("unknown option ") + arg;
                if (const auto close = closestName(arg, known)) unknown += "; did you mean " + *close + "?";
            }
            if (unknown.empty()) unknown = message + " (one FILE at most)";
            message = unknown;
        }
        std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for every option.\n", program.c_str(), message.c_str(),
                     program.c_str());
        return 2;
    }
    return std::nullopt;
}

bool isAttentionMapsFile(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".npy" || ext == ".safetensors";
}

ProgramDoc explorerManDoc(const std::string& program, const std::string& summary, const std::string& version,
                          const std::string& toolkit) {
    ProgramDoc doc;
    doc.name = program;
    doc.summary = summary;
    doc.version = version;
    doc.synopsis = {"[\\fIOPTIONS\\fR] [\\fIFILE\\fR]"};
    doc.description = {
        program + " is the " + toolkit +
            " explorer of ALiBi Explorer: scrub the parameters of ALiBi (Attention with Linear Biases, Press et "
            "al., ICLR 2022) and see the slopes, the bias and attention of every head, curves against distance, "
            "statistics, a comparison of two settings, extrapolation past the training length, a diagnosis of a "
            "saved bias tensor and a trained model's attention maps, all computed by the same core as the alibi "
            "command-line tool.",
        "FILE is a session saved by either explorer (*.alibi.json) or a trained model's attention maps (.npy or "
        ".safetensors). Guided lessons (Help > Lessons, or --lesson) walk through ALiBi step by step."};
    doc.exitStatus = {{"0", "The window was closed (or --help, --version)."},
                      {"1", "No display, or no OpenGL 3.3 context (the ImGui explorer)."},
                      {"2", "A bad argument, or with --screenshot a file that cannot be opened."}};
    doc.environment = {{"ALIBI_DATA_DIR",
                        "A folder searched first for presets/, sessions/, lessons/ and attention/ (before the "
                        "share/alibi-explorer folder beside the installed program)."},
                       {"DISPLAY, WAYLAND_DISPLAY", "The display to open the window on."}};
    doc.files = {{"/usr/share/alibi-explorer/sessions/*.alibi.json", "Example sessions."},
                 {"/usr/share/alibi-explorer/lessons/*.lesson.json", "The guided lessons (--lesson NAME)."},
                 {"/usr/share/alibi-explorer/presets/*.json", "Model presets."},
                 {"/usr/share/alibi-explorer/attention/", "Example trained-like attention maps."}};
    doc.seeAlso = {"alibi(1)", program == "alibi-explorer" ? "alibi-explorer-imgui(1)" : "alibi-explorer(1)"};
    return doc;
}

}  // namespace alibi::cli_docs
