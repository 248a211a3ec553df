// --bench-frames N: a new max_bias every frame, so every frame asks the core for a new grid; prints
// the median frame time, the frame loop's CPU time, the core's time and change-to-grid latency.
#include "scripted_modes.hpp"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <vector>

namespace alibi::imgui {

namespace {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

class BenchDriver final : public FrameDriver {
public:
    BenchDriver(int frames, int width, int height) : m_frames(frames), m_width(width), m_height(height) {}

    void start(Explorer& /*explorer*/) override { m_started = std::chrono::steady_clock::now(); }

    void beforeFrame(Explorer& explorer, FrameIo& frame) override {
        // Timings must not depend on where the X pointer happens to be.
        frame.io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        for (bool& down : frame.io.MouseDown) down = false;
        if (!m_measuring) return;
        SlopeParams& slopes = explorer.state().session.attention.bias.slopes;
        slopes.scheme = SlopeScheme::Press;
        slopes.maxBias = 4.0 + 8.0 * (m_frame % 97) / 97.0;
    }

    void afterFrame(Explorer& explorer, double workMs, double cpuMs) override {
        ++m_frame;
        // Measure once every panel shows results (the curves and the table cost the most to
        // draw), or after a minute of warm-up at sizes whose statistics take longer.
        if (m_measuring) {
            m_frameMs.push_back(workMs);
            m_cpuMs.push_back(cpuMs);
            return;
        }
        const double elapsed =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_started).count();
        if (m_frame > 10 && (!explorer.busy() || elapsed > 60000.0)) {
            m_measuring = true;
            explorer.state().gridLatencyMs.clear();
            explorer.state().coreMs.clear();
        }
    }

    [[nodiscard]] bool done() const override { return static_cast<int>(m_frameMs.size()) >= m_frames; }

    int finish(Explorer& explorer) override {
        const AppState& state = explorer.state();
        const BiasParams& bias = state.session.attention.bias;
        std::printf(
            "bench: H=%d T=%lld window=%dx%d frames=%zu frame_ms_median=%.2f frame_cpu_ms_median=%.2f "
            "core_ms_median=%.2f change_to_grid_ms_median=%.1f (%zu grids)\n",
            bias.slopes.heads, static_cast<long long>(bias.queries), m_width, m_height, m_frameMs.size(),
            median(m_frameMs), median(m_cpuMs), state.coreMs.median(), state.gridLatencyMs.median(),
            state.gridLatencyMs.total());
        return 0;
    }

private:
    int m_frames;
    int m_width;
    int m_height;
    int m_frame = 0;
    bool m_measuring = false;
    std::chrono::steady_clock::time_point m_started;
    std::vector<double> m_frameMs;
    std::vector<double> m_cpuMs;  // the frame loop thread's CPU time per frame
};

}  // namespace

std::unique_ptr<FrameDriver> makeBenchDriver(int frames, int width, int height) {
    return std::make_unique<BenchDriver>(frames, width, height);
}

}  // namespace alibi::imgui
