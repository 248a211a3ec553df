// alibi-explorer-imgui: command-line options (those of alibi-explorer, app/common/explorer_options.hpp,
// plus window size and the scripted runs), the session to open, and the frame driver to run
// (a person's interactive session, or one of the scripted runs in scripted/). Without a display or
// an OpenGL 3.3 context it says so and exits with status 1.
#include "scripted/scripted_modes.hpp"
#include "window_shell.hpp"

#include <explorer_options.hpp>

#include <alibi/base/image_size.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/attention.hpp>

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>

#ifndef ALIBI_VERSION
#define ALIBI_VERSION "0.0.0"
#endif

namespace {

using alibi::imgui::Explorer;

struct Options {
    alibi::cli_docs::ExplorerOptions shared;  // FILE, --lesson, --attention, --zoom (as alibi-explorer)
    std::string session;                      // FILE when it is a session (or the older --session)
    std::string attention;                    // FILE when it is attention maps, or --attention
    alibi::imgui::ScreenshotOptions screenshot;
    int width = 1600;
    int height = 1000;
    int benchFrames = 0;
    int heads = 0;            // > 0: overrides the session's H (benchmarks, screenshots)
    std::int64_t length = 0;  // > 0: overrides the session's T
    double stormSeconds = 0;
    bool parametersPanel = false;  // presentation mode with its Parameters panel open (F9)
};

// GLFW reports errors through a C callback without a user pointer; the last one is kept here so
// the "cannot open a display" message can say what GLFW said.
std::string g_glfwError;

// What the OpenGL driver may need beyond what the process has mapped when it starts.
constexpr std::uint64_t kDriverAddressSpace = std::uint64_t{640} << 20;

// The address-space limit in bytes when it leaves less than `needed` free now (an mmap of that
// much address space, never touched, fails); nullopt when there is no limit or room enough.
std::optional<std::uint64_t> addressSpaceShortfall(std::uint64_t needed) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
    void* probe = ::mmap(nullptr, needed, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe != MAP_FAILED) {
        ::munmap(probe, needed);
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(limit.rlim_cur);
}

// The last resort for an allocation that fails where nothing catches it (a frame under an
// address-space limit): a message and exit 1, not an abort (issue 25, item 8).
[[noreturn]] void onTerminate() {
    if (const std::exception_ptr error = std::current_exception()) {
        try {
            std::rethrow_exception(error);
        } catch (const std::bad_alloc&) {
            std::fputs(
                "alibi-explorer-imgui: out of memory: the system allows less memory than the explorer needs "
                "(an address-space limit, ulimit -v?); raise the limit, or lower H and T\n",
                stderr);
            std::_Exit(1);
        } catch (...) {
        }
    }
    std::abort();
}

void onGlfwError(int code, const char* description) {
    g_glfwError = fmt::format("{} (GLFW error {:#x})", description != nullptr ? description : "unknown", code);
}

// --heads / --length over the session.
alibi::Result<void> applyOverrides(Explorer& explorer, const Options& options) {
    if (options.heads <= 0 && options.length <= 0) return {};
    alibi::Session session = explorer.state().session;
    if (options.heads > 0) session.attention.bias.slopes.heads = options.heads;
    if (options.length > 0) session.attention.bias.queries = options.length;
    return explorer.applySession(session);
}

// Opens --session and applies --heads / --length. Interactive runs read the session on a worker
// while the window shows its progress (issue 25, item 3), show a bad file in the error popup and
// go on; scripted runs read it first and stop with status 2.
int setUpSession(Explorer& explorer, const Options& options, bool interactive) {
    alibi::imgui::AppState& state = explorer.state();
    state.zoom = static_cast<float>(options.shared.zoom);
    if (options.shared.presentation) explorer.setPresentation(true);
    if (options.shared.presentation && options.parametersPanel) state.presentationParameters = true;
    int status = 0;
    const bool overridesLater = interactive && !options.session.empty();
    if (overridesLater) {
        state.sessionPath = options.session;
        // Once it is read (or refused, or cancelled): the lesson, then --heads / --length, in the
        // order a scripted run takes them.
        explorer.startOpenSession(options.session, [&explorer, options](const alibi::Result<void>& opened) {
            if (!opened && opened.error().code != alibi::ErrorCode::Cancelled)
                std::fprintf(stderr, "alibi-explorer-imgui: %s\n", opened.error().message.c_str());
            if (!options.shared.lesson.empty()) {
                if (auto lesson = explorer.openLesson(options.shared.lesson); !lesson) {
                    explorer.state().errorPopup = lesson.error().message;
                    std::fprintf(stderr, "alibi-explorer-imgui: %s\n", lesson.error().message.c_str());
                }
            }
            if (auto applied = applyOverrides(explorer, options); !applied)
                std::fprintf(stderr, "alibi-explorer-imgui: %s\n", applied.error().message.c_str());
        });
    } else if (!options.session.empty()) {
        auto session = alibi::loadSession(options.session);
        alibi::Result<void> applied =
            session ? explorer.openSession(*session, options.session) : std::unexpected(session.error());
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
    if (!options.shared.lesson.empty() && !overridesLater) {
        if (auto opened = explorer.openLesson(options.shared.lesson); !opened) {
            state.errorPopup = opened.error().message;
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", state.errorPopup.c_str());
            if (!interactive) status = 2;
        }
    }
    if (!options.attention.empty()) explorer.openAttentionMaps(options.attention);
    if (!overridesLater) {
        if (auto applied = applyOverrides(explorer, options); !applied) {
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", applied.error().message.c_str());
            status = 2;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    // Under an address-space limit (ulimit -v) every thread's malloc arena reserved 64 MB of it, so
    // 600 MB ran out after a few threads and Qt or the driver failed inside (issue 25, item 8):
    // one arena then, shared by every thread.
    if (rlimit limit{}; ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        ::mallopt(M_ARENA_MAX, 1);
    namespace docs = alibi::cli_docs;
    Options options;
    CLI::App cli{
        "alibi-explorer-imgui: the Dear ImGui explorer of ALiBi Explorer. Scrub ALiBi parameters and see "
        "the bias, attention, curves and statistics the core computes."};
    docs::addExplorerOptions(
        cli, options.shared, "alibi-explorer-imgui",
        std::string("alibi-explorer-imgui ") + ALIBI_VERSION + "\n" + alibi::attentionKernelDescription(),
        alibi::imgui::kMinZoom, alibi::imgui::kMaxZoom);
    cli.add_option("--screenshot", options.screenshot.path, "Render, save the window to this PNG, and exit")
        ->type_name("FILE");
    cli.add_option("--screenshot-views", options.screenshot.viewsDir,
                   "Render every view in turn, save each as DIR/<n>-<view>.png, and exit")
        ->type_name("DIR");
    cli.add_option("--width", options.width, "Window width in pixels (default 1600)")
        ->type_name("PIXELS")
        ->check(CLI::Range(640, alibi::kMaxImageSide));
    cli.add_option("--height", options.height, "Window height in pixels (default 1000)")
        ->type_name("PIXELS")
        ->check(CLI::Range(480, alibi::kMaxImageSide));
    cli.add_option("--heads", options.heads, "Override the session's number of heads H")
        ->type_name("N")
        ->check(CLI::Range(1, alibi::kMaxHeads));
    cli.add_option("--seq", options.length, "Override the session's sequence length T")
        ->type_name("N")
        ->check(CLI::Range(std::int64_t{1}, alibi::kMaxLength));
    // Kept for older scripts and tests, not shown: --session FILE (now FILE), --length (now --seq).
    cli.add_option("--session", options.session, "Open this *.alibi.json session")->group("");
    cli.add_option("--length", options.length, "Same as --seq")
        ->check(CLI::Range(std::int64_t{1}, alibi::kMaxLength))
        ->group("");
    // Developer runs (tests and scripts/bench), hidden from --help and the man page.
    cli.add_option("--frames", options.screenshot.frames, "Frames to render before --screenshot (at least)")
        ->check(CLI::Range(1, 100000))
        ->group("");
    cli.add_option("--layout", options.screenshot.layout,
                   "With --screenshot: write the grid's screen rectangle as JSON")
        ->group("");
    cli.add_flag("--parameters-panel", options.parametersPanel,
                 "With --presentation: open the Parameters panel (F9), as the layout test checks it")
        ->group("");
    cli.add_option("--bench-frames", options.benchFrames,
                   "Vary max_bias every frame for N frames; print the median frame time and latency")
        ->check(CLI::Range(1, 1000000))
        ->group("");
    cli.add_option("--storm", options.stormSeconds, "Feed random input for SECONDS; print frame gaps and memory")
        ->check(CLI::Range(0.1, 3600.0))
        ->group("");
    if (const auto status = docs::parseExplorerArgs(cli, "alibi-explorer-imgui", argc, argv)) return *status;
    if (options.shared.manPage) {
        std::fputs(docs::manPage(
                       cli, docs::explorerManDoc("alibi-explorer-imgui", "explore ALiBi attention biases (Dear ImGui)",
                                                 ALIBI_VERSION, "Dear ImGui"))
                       .c_str(),
                   stdout);
        return 0;
    }
    const std::string& file = options.shared.file;
    if (!file.empty()) (docs::isAttentionMapsFile(file) ? options.attention : options.session) = file;
    if (!options.shared.attention.empty()) options.attention = options.shared.attention;

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

    // Issue 25, item 8: under an address-space limit (ulimit -v 600000 or 300000) the OpenGL
    // driver crashes while the window's GL objects are made (Mesa's llvmpipe needs several
    // hundred MB of address space for its compiler; measured: 600 MB crashes, 900 MB works).
    // When the limit leaves less than that, say so instead of crashing.
    if (const auto short_ = addressSpaceShortfall(kDriverAddressSpace)) {
        std::fprintf(stderr,
                     "alibi-explorer-imgui: the address-space limit (ulimit -v %llu) leaves less than %llu MB for "
                     "the window's OpenGL driver, which then crashes; raise the limit (ulimit -v unlimited)\n",
                     static_cast<unsigned long long>(*short_ >> 10),
                     static_cast<unsigned long long>(kDriverAddressSpace >> 20));
        return 1;
    }

    std::set_terminate(onTerminate);
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
