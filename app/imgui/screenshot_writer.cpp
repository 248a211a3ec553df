// ScreenshotWriter: PNGs written on background threads, reported in the order asked.
#include "screenshot_writer.hpp"

#include "export_job.hpp"

#include <alibi/base/thread_priority.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>

#include <chrono>
#include <system_error>

namespace alibi::imgui {

void ScreenshotWriter::write(Image image, std::string path) {
    ++m_requested;
    Written previous = m_pending.empty() ? Written{} : m_pending.back().written;
    try {
        Written written = std::async(std::launch::async, [image = std::move(image), path, previous] {
                              lowerThisThreadPriority(kExportNiceness);
                              if (previous.valid()) previous.wait();
                              return writePng(image, path);
                          }).share();
        m_pending.push_back({std::move(path), std::move(written)});
    } catch (const std::system_error& e) {
        m_failures.push_back(fmt::format("cannot start writing {}: {}", path, e.what()));
    }
}

void ScreenshotWriter::report(AppState& state) {
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
    state.screenshotsRequested = m_requested;
    state.screenshotsSaved = m_saved;
}

void ScreenshotWriter::finish() {
    if (!m_pending.empty()) m_pending.back().written.wait();  // each waits for the one before
}

}  // namespace alibi::imgui
