// Writing files honestly: a regular file is written to a temporary file beside the target and
// renamed over it only when complete, so a failed or cancelled export leaves no partial file
// (and the old file intact). A device, FIFO or "-" (stdout) is written in place, never renamed
// over and never deleted.
#pragma once

#include <alibi/base/error.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace alibi {

class OutputFile {
public:
    // Opens `path` for writing ("-" is stdout). Fails with a clear message when the folder
    // does not exist or is not writable.
    [[nodiscard]] static Result<OutputFile> open(const std::string& path);

    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile&& other) noexcept;
    // Without commit(), the temporary file is removed: nothing appears at the target.
    ~OutputFile();

    [[nodiscard]] Result<void> write(std::span<const std::byte> data);
    [[nodiscard]] Result<void> write(std::string_view text);
    // Flushes, fsyncs and renames into place (regular files); reports ENOSPC and friends.
    [[nodiscard]] Result<void> commit();
    // Drops everything written so far (regular files) and closes.
    void abort();

    [[nodiscard]] const std::string& path() const { return m_path; }
    [[nodiscard]] bool inPlace() const { return m_inPlace; }

private:
    OutputFile() = default;
    Result<void> flushBuffer();
    Result<void> writeRaw(const char* data, std::size_t size);

    std::string m_path;      // the target
    std::string m_tempPath;  // empty when writing in place
    int m_fd = -1;
    bool m_inPlace = false;
    bool m_ownsFd = true;
    std::string m_buffer;    // coalesces small writes
    std::string m_targetPath;  // what the temporary file is renamed to (a symlink's target)
};

// Convenience: the whole content at once, atomically.
[[nodiscard]] Result<void> writeFileAtomic(const std::string& path, std::string_view content);
[[nodiscard]] Result<std::string> readFileText(const std::string& path, std::size_t maxBytes);

}  // namespace alibi
