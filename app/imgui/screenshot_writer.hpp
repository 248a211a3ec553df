// ScreenshotWriter: the "Save PNG" button's pictures of the window. The frame loop reads the
// pixels (the GL context is its own), and a background thread encodes and writes the PNG, which
// takes about 100 ms for a 1600x1000 window, so no frame waits for it. Every request is written,
// in the order asked (the core's runner in queue mode, so the newest picture ends up in the
// file), and reported in that order.
#pragma once

#include "app_state.hpp"

#include <alibi/base/error.hpp>
#include <alibi/explore/job_runner.hpp>
#include <alibi/render/render.hpp>

#include <mutex>
#include <string>
#include <vector>

namespace alibi::imgui {

class ScreenshotWriter {
public:
    void write(Image image, std::string path);
    // Reports the screenshots written since the last call into the status line or error popup.
    void report(AppState& state);
    // Waits for every screenshot still being written.
    void finish();

private:
    struct Written {
        std::string path;
        Result<void> result;
    };
    std::mutex m_mutex;
    std::vector<Written> m_written;  // finished, in order, not yet reported
    int m_requested = 0;
    int m_saved = 0;
    explore::JobRunner m_runner{{.niceness = 10, .queue = true}};  // last: joined first
};

}  // namespace alibi::imgui
