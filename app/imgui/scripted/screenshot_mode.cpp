// --screenshot and --screenshot-views: render until every result is in, then save the window.
#include "scripted_modes.hpp"

#include "layout_check.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace alibi::imgui {

namespace {

constexpr double kGiveUpMs = 120000.0;

bool writeLayout(Explorer& explorer, const std::string& path, int width, int height) {
    const AppState& state = explorer.state();
    nlohmann::json doc;
    doc["window"] = {{"width", width}, {"height", height}};
    doc["grid"] = {{"x", state.gridRect.x},
                   {"y", state.gridRect.y},
                   {"width", state.gridRect.width},
                   {"height", state.gridRect.height},
                   // The renderer's layout inputs beyond the size: a test places the tiles as it did.
                   {"labelBand", state.gridLabelBand},
                   {"squareCells", true}};
    if (const auto& grid = explorer.model().grid) doc["scale"] = {{"lo", grid->heatmap.lo}, {"hi", grid->heatmap.hi}};
    // The attention maps' grid, when maps are open and shown (--attention).
    if (const auto& maps = explorer.model().maps.grid; maps && state.view == View::Maps && maps->error.empty())
        doc["maps"] = {{"x", state.maps.gridX},
                       {"y", state.maps.gridY},
                       {"width", maps->picture().image.width},
                       {"height", maps->picture().image.height},
                       {"layer", maps->request.layer},
                       {"labelBand", maps->request.labelBand}};
    std::ofstream out(path);
    out << doc.dump(2) << '\n';
    return static_cast<bool>(out);
}

// One picture of --screenshot-views: a view, and for the attention maps view which side tab and
// whether every layer is shown.
struct ViewShot {
    View view = View::Grid;
    MapsSide side = MapsSide::Head;
    bool overview = false;
    std::string slug;
};

std::vector<ViewShot> viewShots() {
    std::vector<ViewShot> shots;
    for (View view : kAllViews) {
        if (view == View::Maps) {
            shots.push_back({view, MapsSide::Head, false, "attention-maps"});
            shots.push_back({view, MapsSide::Distance, false, "attention-maps-distance"});
            shots.push_back({view, MapsSide::Row, false, "attention-maps-row"});
            shots.push_back({view, MapsSide::Similarity, false, "attention-maps-similarity"});
            shots.push_back({view, MapsSide::Head, true, "attention-maps-all-layers"});
        } else {
            shots.push_back({view, MapsSide::Head, false, std::string(viewSlug(view))});
        }
    }
    return shots;
}

class ScreenshotDriver final : public FrameDriver {
public:
    explicit ScreenshotDriver(ScreenshotOptions options) : m_options(std::move(options)), m_shots(viewShots()) {}

    void start(Explorer& explorer) override {
        m_started = std::chrono::steady_clock::now();
        // With a lesson open (--lesson), --screenshot-views shoots each of its steps instead: the
        // step sets its own parameters and view.
        if (!m_options.viewsDir.empty() && explorer.lessons().active()) {
            m_lessonSteps = explorer.lessons().state()->count();
            m_shots.clear();
            for (int k = 1; k <= m_lessonSteps; ++k)
                m_shots.push_back({View::Grid, MapsSide::Head, false, fmt::format("lesson-step{}", k)});
            std::error_code ignored;
            std::filesystem::create_directories(m_options.viewsDir, ignored);
            return;
        }
        if (!m_options.viewsDir.empty()) {
            std::error_code ignored;
            std::filesystem::create_directories(m_options.viewsDir, ignored);
            AppState& state = explorer.state();
            state.view = kAllViews[0];
            // The Diagnose view shows the first example with a known bug (as the Qt screenshots do).
            state.diagnoseExample = std::string(buggyExamples().front().code);
            state.diagnoseUseExample = true;
            state.diagnoseSerial = 1;
            // The attention views show the example maps unless --attention named a file.
            if (!state.maps.open && !explorer.model().maps.file) {
                const auto examples = attentionExamples();
                const auto npy = std::find_if(examples.begin(), examples.end(),
                                              [](const std::string& p) { return p.ends_with(".npy"); });
                // Opened in the background: the first picture stays the view it names (the head grid),
                // rather than switching to the maps when they arrive.
                if (npy != examples.end()) {
                    explorer.openAttentionMaps(*npy);
                    if (state.maps.open) state.maps.open->stayInView = true;
                }
            }
            // A session naming a model (its `model` section) runs it first: the Maps view then shows its
            // maps with the tokens, the Model view A against B.
            if (!state.session.live.path.empty()) state.live.run = true;
            apply(state, m_shots.front());
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
        // Wait for every result, so the picture shows the session rather than "updating...", and
        // then two frames more: a view drawn for the first time with its result (a table, a
        // child window) gets its scroll bars from the content size ImGui measured the frame before.
        if (explorer.busy() && !timedOut) {
            m_idleFrames = 0;
            return;
        }
        if (++m_idleFrames < 3 && !timedOut) return;
        m_idleFrames = 0;
        if (timedOut) std::fprintf(stderr, "alibi-explorer-imgui: results still computing after 120 s\n");
        AppState& state = explorer.state();
        std::string path = m_options.path;
        if (!m_options.viewsDir.empty()) {
            path = (std::filesystem::path(m_options.viewsDir) /
                    fmt::format("{}-{}.png", m_viewIndex + 1, m_shots[m_viewIndex].slug))
                       .string();
        }
        if (auto written = writePng(frame.readFrame(), path); !written) {
            std::fprintf(stderr, "alibi-explorer-imgui: %s\n", written.error().message.c_str());
            m_status = 1;
        } else {
            std::printf("screenshot: %s\n", path.c_str());
        }
        // The layout test's findings for this picture (layout_check.hpp): PATH.layout.txt, one
        // problem a line, empty when every text fits and none overlaps.
        if (const ImDrawData* data = ImGui::GetDrawData()) {
            const auto problems = checkTextLayout(*data);
            std::ofstream report(path + ".layout.txt");
            for (const LayoutProblem& p : problems) report << p.describe() << '\n';
            std::printf("layout: %zu problem(s) in %s\n", problems.size(), path.c_str());
        }
        if (!m_options.layout.empty() && m_viewIndex == 0 &&
            !writeLayout(explorer, m_options.layout, frame.framebufferWidth, frame.framebufferHeight)) {
            std::fprintf(stderr, "alibi-explorer-imgui: cannot write %s\n", m_options.layout.c_str());
            m_status = 1;
        }
        ++m_viewIndex;
        if (m_options.viewsDir.empty() || m_viewIndex >= m_shots.size() || timedOut) {
            m_done = true;
            return;
        }
        if (m_lessonSteps > 0) {
            explorer.lessonNext();
            m_framesInView = 0;
            return;
        }
        apply(state, m_shots[m_viewIndex]);
        if (state.view == View::Fit && !explorer.model().maps.fit) state.maps.runFit = true;
        m_framesInView = 0;
    }

    [[nodiscard]] bool done() const override { return m_done; }
    int finish(Explorer& /*explorer*/) override { return m_status; }

private:
    static void apply(AppState& state, const ViewShot& shot) {
        state.view = shot.view;
        state.maps.side = shot.side;
        state.maps.overview = shot.overview;
    }

    ScreenshotOptions m_options;
    std::vector<ViewShot> m_shots;
    std::chrono::steady_clock::time_point m_started;
    int m_frame = 0;
    int m_framesInView = 0;
    int m_idleFrames = 0;   // frames since the explorer stopped being busy
    int m_lessonSteps = 0;  // > 0: shooting a lesson's steps
    std::size_t m_viewIndex = 0;
    bool m_done = false;
    int m_status = 0;
};

}  // namespace

std::unique_ptr<FrameDriver> makeScreenshotDriver(ScreenshotOptions options) {
    return std::make_unique<ScreenshotDriver>(std::move(options));
}

}  // namespace alibi::imgui
