// Writing files honestly: a regular file is written to a temporary file beside the target and
// renamed over it only when complete, so a failed, cancelled or killed export leaves no partial
// file (and the old file intact). A device, FIFO or "-" (stdout) is written in place, never
// renamed over and never deleted.
//
// Replacing follows a shell redirect's rules: a file you may not write is refused; a symbolic
// link is followed (the link stays, its target is replaced; a dangling link creates its target),
// except a link another user planted in a sticky world-writable folder such as /tmp (the rule of
// fs.protected_symlinks); the new file keeps the old one's mode, owner and group as far as the
// process may set them. Hard links: the replacement is a new file under the given name, so other
// hard links to the old file keep the old content (as with every atomic save: editors, rsync).
#pragma once

#include <alibi/base/error.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace alibi {

struct OutputOptions {
    // Use a named temporary file (".NAME.alibi-tmp-PID-XXXXXX") even where O_TMPFILE works: the
    // fallback for file systems without it, chosen by tests.
    bool namedTemporary = false;
};

class OutputFile {
public:
    // Opens `path` for writing ("-" is stdout). Fails with a clear message when the folder
    // does not exist or is not writable, or the file may not be replaced (see above).
    [[nodiscard]] static Result<OutputFile> open(const std::string& path, const OutputOptions& options = {});

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

    std::string m_path;        // as the caller gave it, for messages
    std::string m_folder;      // the folder of the file replaced (a symbolic link's target's)
    std::string m_targetName;  // the name in that folder that commit() replaces
    std::string m_tempName;    // the temporary file's name there, while it has one
    int m_dirFd = -1;          // the folder: names resolve there even if the path changes
    int m_fd = -1;
    bool m_inPlace = false;
    bool m_ownsFd = true;
    bool m_unnamed = false;  // an O_TMPFILE file, linked under m_tempName only by commit()
    std::string m_buffer;    // coalesces small writes
};

// Refuses writing `output` when it is the same file as `input` (same device and inode, through
// any path, symbolic link or hard link): the output would destroy the input. "-" never is.
[[nodiscard]] Result<void> refuseSameFile(const std::string& output, const std::string& input);

// Convenience: the whole content at once, atomically.
[[nodiscard]] Result<void> writeFileAtomic(const std::string& path, std::string_view content);
// The whole of a regular file of at most `maxBytes` (a FIFO, device or folder is refused before
// it is opened, so nothing blocks).
[[nodiscard]] Result<std::string> readFileText(const std::string& path, std::size_t maxBytes);

}  // namespace alibi
