// alibi-explorer-imgui: command-line options, the session to open, and the frame driver to run
// (a person's interactive session, or one of the scripted runs in scripted/). Without a display or
// an OpenGL 3.3 context it says so and exits with status 1.
#include "scripted/scripted_modes.hpp"
#include "window_shell.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/io/session.hpp>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

using alibi::imgui::Explorer;

struct Options {
    std::string session;
    std::string lesson;  // --lesson NAME or path
    std::string attention;     // attention maps to open (issue 12)
    alibi::imgui::ScreenshotOptions screenshot;
    int width = 1600;
    int height = 1000;
    int benchFrames = 0;
    int heads = 0;             // > 0: overrides the session's H (benchmarks, screenshots)
    std::int64_t length = 0;   // > 0: overrides the session's T
    double stormSeconds = 0;
    float zoom = 1.0f;         // font scale to start with (View > Zoom)
};

// GLFW reports errors through a C callback without a user pointer; the last one is kept here so
// the "cannot open a display" message can say what GLFW said.
std::string g_glfwError;

void onGlfwError(int code, const char* description) {
    g_glfwError = fmt::format("{} (GLFW error {:#x})", description != nullptr ? description : "unknown", code);
}

// Opens --session and applies --heads / --length. Interactive runs show a bad file in the error
// popup and go on; scripted runs stop with status 2.
int setUpSession(Explorer& explorer, const Options& options, bool interactive) {
    alibi::imgui::AppState& state = explorer.state();
    state.zoom = options.zoom;
    int status = 0;
    if (!options.session.empty()) {
        auto session = alibi::loadSession(options.session);
        alibi::Result<void> applied = session ? explorer.openSession(*session, options.session)
                                              : std::unexpected(session.error());
        if (!applied) {
            // The loader's messages name the file already; validation messages do not.
            const std::string& message = applied.error().message;
            state.errorPopup = message.find(options.session) != std::string::npos
                                   ? message
                                   : fmt::format("{}: {}", options.session, message);
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", state.errorPopup.c_str());
            if (!interactive) status = 2;
        }
        state.sessionPath = options.session;
    }
    if (!options.lesson.empty()) {
        if (auto opened = explorer.openLesson(options.lesson); !opened) {
            state.errorPopup = opened.error().message;
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", state.errorPopup.c_str());
            if (!interactive) status = 2;
        }
    }
    if (!options.attention.empty()) explorer.openAttentionMaps(options.attention);
    if (options.heads > 0 || options.length > 0) {
        alibi::Session session = state.session;
        if (options.heads > 0) session.attention.bias.slopes.heads = options.heads;
        if (options.length > 0) session.attention.bias.queries = options.length;
        if (auto applied = explorer.applySession(session); !applied) {
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", applied.error().message.c_str());
            status = 2;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    CLI::App cli{"ALiBi Explorer (Dear ImGui): scrub ALiBi parameters and see the bias, attention, curves "
                 "and statistics the core computes."};
    cli.set_version_flag(
        "--version", [] { return "alibi-imgui (ALiBi Explorer)\n" + alibi::attentionKernelDescription(); },
        "Print the attention kernels in use and exit");
    cli.add_option("--session", options.session, "Open this *.alibi.json session");
    cli.add_option("--lesson", options.lesson,
                   "Start the guided lesson NAME (e.g. alibi-in-five-steps) or the lesson file at a path");
    cli.add_option("--attention", options.attention,
                   "Open a trained model's saved attention maps (.npy (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or "
                   ".safetensors with one tensor per layer) in the Attention maps view");
    cli.add_option("--screenshot", options.screenshot.path, "Render, save the window to this PNG, and exit");
    cli.add_option("--screenshot-views", options.screenshot.viewsDir,
                   "Render every view in turn, save each as DIR/<n>-<view>.png, and exit");
    cli.add_option("--frames", options.screenshot.frames, "Frames to render before --screenshot (at least)")
        ->check(CLI::Range(1, 100000));
    cli.add_option("--layout", options.screenshot.layout,
                   "With --screenshot: write the grid's screen rectangle as JSON");
    cli.add_option("--width", options.width, "Window width in pixels")->check(CLI::Range(640, 16384));
    cli.add_option("--height", options.height, "Window height in pixels")->check(CLI::Range(480, 16384));
    cli.add_option("--bench-frames", options.benchFrames,
                   "Vary max_bias every frame for N frames; print the median frame time and latency")
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--heads", options.heads, "Override the session's H")->check(CLI::Range(1, alibi::kMaxHeads));
    cli.add_option("--length", options.length, "Override the session's T")
        ->check(CLI::Range(std::int64_t{1}, alibi::kMaxLength));
    cli.add_option("--zoom", options.zoom, "Start with this font scale (View > Zoom; a projector wants 1.5 to 2)")
        ->check(CLI::Range(alibi::imgui::kMinZoom, alibi::imgui::kMaxZoom));
    cli.add_option("--storm", options.stormSeconds, "Feed random input for SECONDS; print frame gaps and memory")
        ->check(CLI::Range(0.1, 3600.0));
    CLI11_PARSE(cli, argc, argv);

    std::unique_ptr<alibi::imgui::FrameDriver> driver;
    if (options.stormSeconds > 0) {
        driver = alibi::imgui::makeStormDriver(options.stormSeconds);
    } else if (options.benchFrames > 0) {
        driver = alibi::imgui::makeBenchDriver(options.benchFrames, options.width, options.height);
    } else if (!options.screenshot.path.empty() || !options.screenshot.viewsDir.empty()) {
        driver = alibi::imgui::makeScreenshotDriver(options.screenshot);
    } else {
        driver = std::make_unique<alibi::imgui::InteractiveDriver>();
    }
    const bool interactive = driver->waitsForEvents();

    glfwSetErrorCallback(onGlfwError);
    if (glfwInit() == GLFW_FALSE) {
        std::fprintf(stderr,
                     "alibi-explorer-imgui: cannot open a display: %s\n"
                     "Set DISPLAY to an X server, or run headless under `xvfb-run -a -s \"-screen 0 1920x1080x24\"`.\n",
                     g_glfwError.c_str());
        return 1;
    }
    // Scripted runs keep the exact size asked for (pictures and timings depend on it).
    GLFWwindow* window = alibi::imgui::openWindow({options.width, options.height, interactive, interactive});
    if (window == nullptr) {
        std::fprintf(stderr,
                     "alibi-explorer-imgui: cannot create an OpenGL 3.3 core window: %s\n"
                     "This explorer needs OpenGL 3.3 (Mesa's llvmpipe provides it under Xvfb).\n",
                     g_glfwError.c_str());
        glfwTerminate();
        return 1;
    }
    const int status = alibi::imgui::runExplorerWindow(
        window, *driver, [&](Explorer& explorer) { return setUpSession(explorer, options, interactive); });
    driver.reset();
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}
