// --screenshot and --screenshot-views: render until every result is in, then save the window.
#include "scripted_modes.hpp"

#include <alibi/render/png.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cfloat>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace alibi::imgui {

namespace {

constexpr double kGiveUpMs = 120000.0;

bool writeLayout(Explorer& explorer, const std::string& path, int width, int height) {
    const AppState& state = explorer.state();
    nlohmann::json doc;
    doc["window"] = {{"width", width}, {"height", height}};
    doc["grid"] = {{"x", state.gridRect.x}, {"y", state.gridRect.y}, {"width", state.gridRect.width},
                   {"height", state.gridRect.height}};
    if (const auto& grid = explorer.model().grid) doc["scale"] = {{"lo", grid->heatmap.lo}, {"hi", grid->heatmap.hi}};
    std::ofstream out(path);
    out << doc.dump(2) << '\n';
    return static_cast<bool>(out);
}

class ScreenshotDriver final : public FrameDriver {
public:
    explicit ScreenshotDriver(ScreenshotOptions options) : m_options(std::move(options)) {}

    void start(Explorer& explorer) override {
        m_started = std::chrono::steady_clock::now();
        if (!m_options.viewsDir.empty()) {
            std::error_code ignored;
            std::filesystem::create_directories(m_options.viewsDir, ignored);
            AppState& state = explorer.state();
            state.view = kAllViews[0];
            // The Diagnose view shows the first example with a known bug (as the Qt screenshots do).
            state.diagnoseExample = diagnoseExamples().front();
            state.diagnoseUseExample = true;
            state.diagnoseSerial = 1;
        }
    }

    void beforeFrame(Explorer& /*explorer*/, FrameIo& frame) override {
        // Scripted runs ignore wherever the X pointer happens to be, so pictures do not depend on it.
        frame.io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        for (bool& down : frame.io.MouseDown) down = false;
    }

    void afterRender(Explorer& explorer, FrameIo& frame) override {
        ++m_frame;
        ++m_framesInView;
        if (m_frame < m_options.frames || m_framesInView < 3) return;
        const double elapsed =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_started).count();
        const bool timedOut = elapsed > kGiveUpMs;
        // Wait for every result, so the picture shows the session rather than "updating...".
        if (explorer.busy() && !timedOut) return;
        if (timedOut) std::fprintf(stderr, "alibi-explorer-imgui: results still computing after 120 s\n");
        AppState& state = explorer.state();
        std::string path = m_options.path;
        if (!m_options.viewsDir.empty()) {
            path = (std::filesystem::path(m_options.viewsDir) /
                    fmt::format("{}-{}.png", m_viewIndex + 1, viewSlug(state.view)))
                       .string();
        }
        if (auto written = writePng(frame.readFrame(), path); !written) {
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", written.error().message.c_str());
            m_status = 1;
        } else {
            std::printf("screenshot: %s\n", path.c_str());
        }
        if (!m_options.layout.empty() && m_viewIndex == 0 &&
            !writeLayout(explorer, m_options.layout, frame.framebufferWidth, frame.framebufferHeight)) {
            std::fprintf(stderr, "alibi-explorer-imgui: cannot write %s\n", m_options.layout.c_str());
            m_status = 1;
        }
        ++m_viewIndex;
        if (m_options.viewsDir.empty() || m_viewIndex >= kAllViews.size() || timedOut) {
            m_done = true;
            return;
        }
        state.view = kAllViews[m_viewIndex];
        m_framesInView = 0;
    }

    [[nodiscard]] bool done() const override { return m_done; }
    int finish(Explorer& /*explorer*/) override { return m_status; }

private:
    ScreenshotOptions m_options;
    std::chrono::steady_clock::time_point m_started;
    int m_frame = 0;
    int m_framesInView = 0;
    std::size_t m_viewIndex = 0;
    bool m_done = false;
    int m_status = 0;
};

}  // namespace

std::unique_ptr<FrameDriver> makeScreenshotDriver(ScreenshotOptions options) {
    return std::make_unique<ScreenshotDriver>(std::move(options));
}

}  // namespace alibi::imgui
