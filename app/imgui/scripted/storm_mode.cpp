// --storm SECONDS: random input and parameters (see storm.hpp); prints the largest gap between two
// frames and the resident memory, and fails past the limits below.
#include "scripted_modes.hpp"
#include "storm.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace alibi::imgui {

namespace {

// Frames are rasterised in software under Xvfb, on the same two cores as the workers: the largest
// gap measured was 46 ms on a quiet machine, 88 ms beside two busy loops.
constexpr double kStormMaxGapMs = 250.0;
constexpr double kStormMaxResidentMiB = 2048.0;

double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long long size = 0, resident = 0;
    statm >> size >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

class StormDriver final : public FrameDriver {
public:
    explicit StormDriver(double seconds) : m_seconds(seconds) {}

    ~StormDriver() override {
        std::error_code ignored;
        if (!m_scratch.empty()) std::filesystem::remove_all(m_scratch, ignored);
    }

    void start(Explorer& /*explorer*/) override {
        std::string pattern = (std::filesystem::temp_directory_path() / "alibi-storm-XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) m_scratch = pattern;
        m_storm = std::make_unique<Storm>(0x5eedULL, m_scratch.empty()
                                                          ? std::filesystem::temp_directory_path().string()
                                                          : m_scratch);
        m_rssStart = m_rssPeak = residentMiB();
        m_started = m_lastFrameEnd = std::chrono::steady_clock::now();
    }

    void beforeFrame(Explorer& explorer, FrameIo& frame) override {
        m_storm->injectInput(frame.io);
        m_storm->perturbState(explorer.state());
        // A figure a random click exports lands in the scratch folder, not the working folder.
        const std::filesystem::path folder =
            m_scratch.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(m_scratch);
        explorer.state().figure.path = (folder / "storm-figure.png").string();
        explorer.state().figure.pathEdited = true;
    }

    void afterFrame(Explorer& /*explorer*/, double /*workMs*/, double /*cpuMs*/) override {
        ++m_frames;
        const auto now = std::chrono::steady_clock::now();
        m_maxGapMs = std::max(m_maxGapMs, std::chrono::duration<double, std::milli>(now - m_lastFrameEnd).count());
        m_lastFrameEnd = now;
        m_rssPeak = std::max(m_rssPeak, residentMiB());
        m_done = std::chrono::duration<double>(now - m_started).count() >= m_seconds;
    }

    [[nodiscard]] bool done() const override { return m_done; }

    int finish(Explorer& explorer) override {
        const AppState& state = explorer.state();
        const double rssEnd = residentMiB();
        // Every screenshot asked for (into the scratch folder) must have been written.
        const bool ok = m_maxGapMs < kStormMaxGapMs && m_rssPeak < kStormMaxResidentMiB &&
                        state.screenshotsSaved == state.screenshotsRequested;
        std::printf("storm: seconds=%.0f frames=%d edits=%llu exports=%llu screenshots=%d/%d "
                    "max_frame_gap_ms=%.1f median_frame_ms=%.2f rss_start_mib=%.1f rss_peak_mib=%.1f "
                    "rss_end_mib=%.1f %s\n",
                    m_seconds, m_frames, static_cast<unsigned long long>(m_storm->edits()),
                    static_cast<unsigned long long>(m_storm->exportsStarted()), state.screenshotsSaved,
                    state.screenshotsRequested, m_maxGapMs, state.frameMs.median(), m_rssStart, m_rssPeak, rssEnd,
                    ok ? "ok" : "FAILED (limits: frame gap < 250 ms, peak < 2048 MiB, every screenshot saved)");
        return ok ? 0 : 1;
    }

private:
    double m_seconds;
    std::string m_scratch;
    std::unique_ptr<Storm> m_storm;
    std::chrono::steady_clock::time_point m_started, m_lastFrameEnd;
    double m_maxGapMs = 0, m_rssStart = 0, m_rssPeak = 0;
    int m_frames = 0;
    bool m_done = false;
};

}  // namespace

std::unique_ptr<FrameDriver> makeStormDriver(double seconds) { return std::make_unique<StormDriver>(seconds); }

}  // namespace alibi::imgui
