// ExportJob: runs alibi::exportTensor on a thread of its own and reports progress through atomics.
#include "export_job.hpp"

#include <alibi/base/thread_priority.hpp>

#include <system_error>
#include <utility>

namespace alibi::imgui {

ExportJob::~ExportJob() {
    cancel();
    join();
}

void ExportJob::join() {
    if (m_thread.joinable()) m_thread.join();
}

bool ExportJob::start(std::unique_ptr<TensorSource> source, std::string path, FileFormat format,
                      std::string tensorName) {
    if (m_running.load()) return false;
    join();  // the previous export has finished; reclaim its thread
    m_path = std::move(path);
    m_cancel.store(false);
    m_done.store(0);
    m_total.store(0);
    m_running.store(true);
    try {
        m_thread = std::thread([this, source = std::move(source), format, name = std::move(tensorName)] {
            // An export can run for minutes; the frames (and the X server drawing them) come first.
            lowerThisThreadPriority(kExportNiceness);
            ExportOptions options;
            options.format = format;
            options.tensorName = name;
            options.progress = [this](std::uint64_t done, std::uint64_t total) {
                m_done.store(done);
                m_total.store(total);
                return !m_cancel.load();
            };
            const Result<void> written = exportTensor(*source, m_path, options);
            {
                std::lock_guard lock(m_mutex);
                m_outcome = written ? std::string{} : written.error().message;
            }
            m_running.store(false);
        });
    } catch (const std::system_error& e) {  // a process or address-space limit (issue 25)
        std::lock_guard lock(m_mutex);
        m_outcome = std::string("cannot start the export: the system refused a thread (") + e.what() +
                    "); the process may be at a limit (ulimit -u, ulimit -v)";
        m_running.store(false);
    }
    return true;
}

std::optional<std::string> ExportJob::takeOutcome() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_outcome, std::nullopt);
}

}  // namespace alibi::imgui
