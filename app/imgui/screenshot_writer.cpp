// ScreenshotWriter: PNGs written on background threads, reported in the order asked.
#include "screenshot_writer.hpp"

#include <alibi/render/png.hpp>

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace alibi::imgui {

void ScreenshotWriter::write(Image image, std::string path) {
    ++m_requested;
    m_runner.submit([this, image = std::move(image), path = std::move(path)](const explore::JobContext&) {
        Result<void> result = writePng(image, path);
        std::lock_guard lock(m_mutex);
        m_written.push_back({path, std::move(result)});
    });
}

void ScreenshotWriter::report(AppState& state) {
    std::vector<Written> written;
    {
        std::lock_guard lock(m_mutex);
        written.swap(m_written);
    }
    for (const Written& done : written) {
        if (!done.result) {
            state.errorPopup = done.result.error().message;
        } else {
            state.statusMessage = fmt::format("saved {}", done.path);
            ++m_saved;
        }
    }
    state.screenshotsRequested = m_requested;
    state.screenshotsSaved = m_saved;
}

void ScreenshotWriter::finish() {
    while (!m_runner.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace alibi::imgui
