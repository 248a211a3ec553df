// alibi-explorer-imgui: the GLFW + OpenGL 3.3 shell around the Explorer. It opens the window,
// runs the frame loop, uploads textures, writes screenshots, and offers three scripted modes:
//   --screenshot FILE.png --frames N   render N frames (and until every result is in), save, exit 0
//   --bench-frames N                   vary max_bias every frame, print median frame time and latency
//   --storm SECONDS                    random input and parameters, print frame gaps and memory
// Without a display or an OpenGL 3.3 context it says so and exits with status 1.
#include "explorer.hpp"
#include "export_job.hpp"
#include "gl_texture.hpp"
#include "storm.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/render/png.hpp>
#include <alibi/io/session.hpp>
#include <alibi/base/thread_priority.hpp>

#include <CLI/CLI.hpp>
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <nlohmann/json.hpp>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <system_error>
#include <vector>

namespace {

using alibi::imgui::Clock;
using alibi::imgui::Explorer;

// The storm fails when two frames lie further apart than this.
constexpr double kStormMaxGapMs = 250.0;

struct Options {
    std::string session;
    std::string screenshot;
    std::string layout;  // JSON with the grid's screen rectangle (for the screenshot test)
    int frames = 30;
    int width = 1600;
    int height = 1000;
    int benchFrames = 0;
    int heads = 0;             // > 0: overrides the session's H (benchmarks)
    std::int64_t length = 0;   // > 0: overrides the session's T
    double stormSeconds = 0;
};

// GLFW reports errors through a C callback without a user pointer; the last one is kept here so
// the "cannot open a display" message can say what GLFW said.
std::string g_glfwError;

void onGlfwError(int code, const char* description) {
    g_glfwError = fmt::format("{} (GLFW error {:#x})", description != nullptr ? description : "unknown", code);
}

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

// CPU time of the calling thread: the frame loop's own cost, whatever else loads the machine.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long long size = 0, resident = 0;
    statm >> size >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Reads the back buffer (call after rendering, before swapping) as an image, top row first.
alibi::Image readBackBuffer(GLFWwindow* window) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    alibi::Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
    // OpenGL's first row is the bottom one; PNG's is the top.
    for (int y = 0; y < height / 2; ++y) {
        std::swap_ranges(image.pixels.begin() + static_cast<std::ptrdiff_t>(y) * width,
                         image.pixels.begin() + static_cast<std::ptrdiff_t>(y + 1) * width,
                         image.pixels.begin() + static_cast<std::ptrdiff_t>(height - 1 - y) * width);
    }
    for (alibi::Rgba& p : image.pixels) p.a = 255;
    return image;
}

// Screenshots asked for from the UI: the frame loop reads the pixels (the GL context is its
// own), and a background thread encodes and writes the PNG, which takes about 100 ms for a
// 1600x1000 window, so no frame waits for it. Every request is written, in the order asked
// (each write waits for the one before, so the newest picture ends up in the file), and
// reported in that order.
class ScreenshotWriter {
public:
    void write(alibi::Image image, std::string path) {
        ++m_requested;
        Written previous = m_pending.empty() ? Written{} : m_pending.back().written;
        try {
            Written written = std::async(std::launch::async, [image = std::move(image), path, previous] {
                                  alibi::lowerThisThreadPriority(alibi::imgui::kExportNiceness);
                                  if (previous.valid()) previous.wait();
                                  return alibi::writePng(image, path);
                              }).share();
            m_pending.push_back({std::move(path), std::move(written)});
        } catch (const std::system_error& e) {
            m_failures.push_back(fmt::format("cannot start writing {}: {}", path, e.what()));
        }
    }

    // Reports the screenshots written since the last call into the status line or error popup.
    void report(alibi::imgui::AppState& state) {
        for (std::string& failure : m_failures) state.errorPopup = std::move(failure);
        m_failures.clear();
        while (!m_pending.empty() &&
               m_pending.front().written.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
            const Pending& done = m_pending.front();
            if (const auto& result = done.written.get(); !result) {
                state.errorPopup = result.error().message;
            } else {
                state.statusMessage = fmt::format("saved {}", done.path);
                ++m_saved;
            }
            m_pending.erase(m_pending.begin());
        }
    }

    // Waits for every screenshot still being written.
    void finish() {
        if (!m_pending.empty()) m_pending.back().written.wait();  // each waits for the one before
    }

    [[nodiscard]] int requested() const { return m_requested; }
    [[nodiscard]] int saved() const { return m_saved; }  // written and reported

private:
    // The last reference to a std::async state waits for its thread: nothing is lost at exit.
    using Written = std::shared_future<alibi::Result<void>>;
    struct Pending {
        std::string path;
        Written written;
    };
    std::vector<Pending> m_pending;
    std::vector<std::string> m_failures;
    int m_requested = 0;
    int m_saved = 0;
};

bool writeLayout(Explorer& explorer, const std::string& path, int width, int height) {
    const alibi::imgui::AppState& state = explorer.state();
    nlohmann::json doc;
    doc["window"] = {{"width", width}, {"height", height}};
    doc["grid"] = {{"x", state.gridRect.x}, {"y", state.gridRect.y}, {"width", state.gridRect.width},
                   {"height", state.gridRect.height}};
    if (const auto& grid = explorer.model().grid) doc["scale"] = {{"lo", grid->heatmap.lo}, {"hi", grid->heatmap.hi}};
    std::ofstream out(path);
    out << doc.dump(2) << '\n';
    return static_cast<bool>(out);
}

void setUpStyle(ImGuiIO& io) {
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10, 8);
    style.FramePadding = ImVec2(6, 3);
    style.ItemSpacing = ImVec2(8, 5);
    style.WindowBorderSize = 1.0f;
    const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (std::filesystem::exists(font)) io.Fonts->AddFontFromFileTTF(font, 15.0f);
}

enum class Mode { Interactive, Screenshot, Bench, Storm };

int run(GLFWwindow* window, const Options& options, Mode mode) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // leave no imgui.ini behind
    io.LogFilename = nullptr;
    setUpStyle(io);
    if (!ImGui_ImplGlfw_InitForOpenGL(window, true) || !ImGui_ImplOpenGL3_Init("#version 330 core")) {
        std::fprintf(stderr, "alibi-explorer-imgui: could not initialise the ImGui OpenGL 3.3 backend\n");
        ImGui::DestroyContext();
        return 1;
    }

    int status = 0;
    {
        alibi::imgui::GlTextureUploader textures;
        Explorer explorer(&textures, [] { glfwPostEmptyEvent(); });
        alibi::imgui::AppState& state = explorer.state();

        if (!options.session.empty()) {
            auto session = alibi::loadSession(options.session);
            alibi::Result<void> applied = session ? explorer.applySession(*session) : std::unexpected(session.error());
            if (!applied) {
                // The loader's messages name the file already; validation messages do not.
                const std::string& message = applied.error().message;
                state.errorPopup = message.find(options.session) != std::string::npos
                                       ? message
                                       : fmt::format("{}: {}", options.session, message);
                std::fprintf(stderr, "alibi-explorer-imgui: %s\n", state.errorPopup.c_str());
                if (mode != Mode::Interactive) status = 2;
            }
            state.sessionPath = options.session;
        }
        if (options.heads > 0 || options.length > 0) {
            alibi::Session session = state.session;
            if (options.heads > 0) session.attention.bias.slopes.heads = options.heads;
            if (options.length > 0) session.attention.bias.queries = options.length;
            if (auto applied = explorer.applySession(session); !applied) {
                std::fprintf(stderr, "alibi-explorer-imgui: %s\n", applied.error().message.c_str());
                status = 2;
            }
        }

        std::string scratch;
        std::unique_ptr<alibi::imgui::Storm> storm;
        if (mode == Mode::Storm) {
            std::string pattern = (std::filesystem::temp_directory_path() / "alibi-storm-XXXXXX").string();
            scratch = mkdtemp(pattern.data()) != nullptr ? pattern : std::filesystem::temp_directory_path().string();
            storm = std::make_unique<alibi::imgui::Storm>(0x5eedULL, scratch);
        }

        ScreenshotWriter screenshots;
        std::vector<double> benchFrameMs;
        std::vector<double> benchCpuMs;  // the frame loop thread's CPU time per frame
        bool benchStarted = false;
        double maxGapMs = 0, rssStart = residentMiB(), rssPeak = rssStart;
        const Clock::time_point started = Clock::now();
        Clock::time_point lastFrameEnd = started;
        int frame = 0;
        bool done = status != 0;

        while (!done && !glfwWindowShouldClose(window)) {
            if (mode == Mode::Interactive) {
                // Idle frames cost nothing: sleep until input or a worker's result wakes the loop;
                // tick while work is in flight (deferred requests, an export's progress bar).
                glfwWaitEventsTimeout(explorer.busy() ? 0.03 : 0.5);
            } else {
                glfwPollEvents();
            }
            const Clock::time_point frameStart = Clock::now();
            const double cpuStart = threadCpuMs();

            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            if (mode == Mode::Screenshot || mode == Mode::Bench) {
                // Scripted runs ignore wherever the X pointer happens to be, so pictures and
                // timings do not depend on it.
                io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
                for (bool& down : io.MouseDown) down = false;
            }
            if (storm) {
                storm->injectInput(io);
                storm->perturbState(state);
            }
            if (mode == Mode::Bench && benchStarted) {
                // A new max_bias every frame: every frame asks the core for a new grid.
                state.session.attention.bias.slopes.scheme = alibi::SlopeScheme::Press;
                state.session.attention.bias.slopes.maxBias = 4.0 + 8.0 * (frame % 97) / 97.0;
            }
            ImGui::NewFrame();
            explorer.frame();
            ImGui::Render();

            int fbWidth = 0, fbHeight = 0;
            glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
            glViewport(0, 0, fbWidth, fbHeight);
            // The panels draw no background (see explorer.cpp); the clear colour is theirs.
            const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
            glClearColor(background.x, background.y, background.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

            if (state.actions.screenshot) {
                state.actions.screenshot = false;
                screenshots.write(readBackBuffer(window), state.screenshotPath);
            }
            screenshots.report(state);
            ++frame;
            if (mode == Mode::Screenshot && frame >= options.frames) {
                // Wait for every result so the picture shows the session, not "computing...".
                const bool timedOut = msSince(started) > 120000.0;
                if (!explorer.busy() || timedOut) {
                    if (timedOut) std::fprintf(stderr, "alibi-explorer-imgui: results still computing after 120 s\n");
                    if (auto written = alibi::writePng(readBackBuffer(window), options.screenshot); !written) {
                        std::fprintf(stderr, "alibi-explorer-imgui: %s\n", written.error().message.c_str());
                        status = 1;
                    } else if (!options.layout.empty() && !writeLayout(explorer, options.layout, fbWidth, fbHeight)) {
                        std::fprintf(stderr, "alibi-explorer-imgui: cannot write %s\n", options.layout.c_str());
                        status = 1;
                    }
                    done = true;
                }
            }
            glfwSwapBuffers(window);
            explorer.framePresented();

            const Clock::time_point frameEnd = Clock::now();
            const double workMs = std::chrono::duration<double, std::milli>(frameEnd - frameStart).count();
            state.frameMs.push(workMs);
            maxGapMs = std::max(maxGapMs, std::chrono::duration<double, std::milli>(frameEnd - lastFrameEnd).count());
            lastFrameEnd = frameEnd;

            if (mode == Mode::Bench) {
                // Measure once every panel shows results (the curves and the table cost the most
                // to draw), or after a minute of warm-up at sizes whose statistics take longer.
                if (benchStarted) {
                    benchFrameMs.push_back(workMs);
                    benchCpuMs.push_back(threadCpuMs() - cpuStart);
                    done = static_cast<int>(benchFrameMs.size()) >= options.benchFrames;
                } else if (frame > 10 && (!explorer.busy() || msSince(started) > 60000.0)) {
                    benchStarted = true;
                    state.gridLatencyMs.clear();
                    state.coreMs.clear();
                }
            }
            if (mode == Mode::Storm) {
                rssPeak = std::max(rssPeak, residentMiB());
                done = msSince(started) >= options.stormSeconds * 1000.0;
            }
        }

        if (mode == Mode::Bench) {
            const alibi::BiasParams& bias = state.session.attention.bias;
            std::printf("bench: H=%d T=%lld window=%dx%d frames=%zu frame_ms_median=%.2f frame_cpu_ms_median=%.2f "
                        "core_ms_median=%.2f change_to_grid_ms_median=%.1f (%zu grids)\n",
                        bias.slopes.heads, static_cast<long long>(bias.queries), options.width, options.height,
                        benchFrameMs.size(), median(benchFrameMs), median(benchCpuMs), state.coreMs.median(),
                        state.gridLatencyMs.median(), state.gridLatencyMs.total());
        }
        if (mode == Mode::Storm) {
            screenshots.finish();
            screenshots.report(state);
            const double rssEnd = residentMiB();
            // Frames are rasterised in software under Xvfb, on the same two cores as the workers:
            // the largest gap measured was 46 ms on a quiet machine, 88 ms beside two busy loops.
            // Every screenshot asked for (into the scratch folder) must have been written.
            const bool ok = maxGapMs < kStormMaxGapMs && rssPeak < 2048.0 &&
                            screenshots.saved() == screenshots.requested();
            std::printf("storm: seconds=%.0f frames=%d edits=%llu exports=%llu screenshots=%d/%d "
                        "max_frame_gap_ms=%.1f median_frame_ms=%.2f rss_start_mib=%.1f rss_peak_mib=%.1f "
                        "rss_end_mib=%.1f %s\n",
                        options.stormSeconds, frame, static_cast<unsigned long long>(storm->edits()),
                        static_cast<unsigned long long>(storm->exportsStarted()), screenshots.saved(),
                        screenshots.requested(), maxGapMs, state.frameMs.median(), rssStart, rssPeak, rssEnd,
                        ok ? "ok" : "FAILED (limits: frame gap < 250 ms, peak < 2048 MiB, every screenshot saved)");
            if (!ok) status = 1;
            std::error_code ignored;
            if (!scratch.empty()) std::filesystem::remove_all(scratch, ignored);
        }
    }  // the Explorer (workers, textures) goes before the GL context and ImGui

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
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
    cli.add_option("--screenshot", options.screenshot, "Render, save the window to this PNG, and exit");
    cli.add_option("--frames", options.frames, "Frames to render before --screenshot (at least)")
        ->check(CLI::Range(1, 100000));
    cli.add_option("--layout", options.layout, "With --screenshot: write the grid's screen rectangle as JSON");
    cli.add_option("--width", options.width, "Window width in pixels")->check(CLI::Range(640, 16384));
    cli.add_option("--height", options.height, "Window height in pixels")->check(CLI::Range(480, 16384));
    cli.add_option("--bench-frames", options.benchFrames,
                   "Vary max_bias every frame for N frames; print the median frame time and latency")
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--heads", options.heads, "Override the session's H")->check(CLI::Range(1, 4096));
    cli.add_option("--length", options.length, "Override the session's T")
        ->check(CLI::Range(std::int64_t{1}, alibi::kMaxLength));
    cli.add_option("--storm", options.stormSeconds, "Feed random input for SECONDS; print frame gaps and memory")
        ->check(CLI::Range(0.1, 3600.0));
    CLI11_PARSE(cli, argc, argv);

    const Mode mode = options.stormSeconds > 0  ? Mode::Storm
                      : options.benchFrames > 0 ? Mode::Bench
                      : !options.screenshot.empty() ? Mode::Screenshot
                                                    : Mode::Interactive;

    glfwSetErrorCallback(onGlfwError);
    if (glfwInit() == GLFW_FALSE) {
        std::fprintf(stderr,
                     "alibi-explorer-imgui: cannot open a display: %s\n"
                     "Set DISPLAY to an X server, or run headless under `xvfb-run -a -s \"-screen 0 1920x1080x24\"`.\n",
                     g_glfwError.c_str());
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, mode == Mode::Interactive ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(options.width, options.height, "ALiBi Explorer (ImGui)", nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr,
                     "alibi-explorer-imgui: cannot create an OpenGL 3.3 core window: %s\n"
                     "This explorer needs OpenGL 3.3 (Mesa's llvmpipe provides it under Xvfb).\n",
                     g_glfwError.c_str());
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(mode == Mode::Interactive ? 1 : 0);

    const int status = run(window, options, mode);
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}
