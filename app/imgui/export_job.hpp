// ExportJob: one tensor export running on its own thread, with progress and cancellation, so a
// multi-gigabyte .npy never stalls the frame loop. The core's exportTensor streams and writes
// atomically; cancelling leaves no file behind.
#pragma once

#include <alibi/base/tensor.hpp>
#include <alibi/io/tensor_io.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace alibi::imgui {

// Nice value of the export thread: below the frame loop and the display server.
inline constexpr int kExportNiceness = 10;

class ExportJob {
public:
    ExportJob() = default;
    ~ExportJob();
    ExportJob(const ExportJob&) = delete;
    ExportJob& operator=(const ExportJob&) = delete;

    // Starts streaming `source` to `path` (`tensorName` keys it in safetensors). Refused (false)
    // while another export runs.
    bool start(std::unique_ptr<TensorSource> source, std::string path, FileFormat format, std::string tensorName);
    void cancel() { m_cancel.store(true); }

    [[nodiscard]] bool running() const { return m_running.load(); }
    [[nodiscard]] std::uint64_t done() const { return m_done.load(); }
    [[nodiscard]] std::uint64_t total() const { return m_total.load(); }
    [[nodiscard]] const std::string& path() const { return m_path; }
    // The outcome of a finished export, once: "" on success, otherwise the core's message.
    [[nodiscard]] std::optional<std::string> takeOutcome();

private:
    void join();

    std::string m_path;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_cancel{false};
    std::atomic<std::uint64_t> m_done{0};
    std::atomic<std::uint64_t> m_total{0};
    std::mutex m_mutex;
    std::optional<std::string> m_outcome;
    std::thread m_thread;
};

}  // namespace alibi::imgui
