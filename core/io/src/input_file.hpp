// Opening a user's file for reading without ever blocking on it: only a regular file is opened
// (a FIFO, device, socket or folder is refused before open(2), and again after it, in case the
// path was swapped in between), and every interrupted system call gives up once the user asked
// to stop (alibi/base/interrupt.hpp).
#pragma once

#include <alibi/base/error.hpp>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace alibi::detail {

class InputFile {
public:
    // `path` must name a regular file (symbolic links are followed). The error message says
    // why, without the path ("it is a FIFO (named pipe), not a regular file"): callers prefix it.
    [[nodiscard]] static Result<InputFile> open(const std::string& path);

    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    ~InputFile();

    [[nodiscard]] int fd() const { return m_fd; }
    [[nodiscard]] std::uint64_t size() const { return m_size; }
    // Exactly `size` bytes at `offset`; 0 or an errno (EIO when the file ends early, EINTR when
    // the user asked to stop).
    [[nodiscard]] int readAt(std::uint64_t offset, std::byte* out, std::uint64_t size) const;

private:
    InputFile() = default;
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

// What a non-regular file is, for messages: "a FIFO (named pipe)", "a folder", "a character device".
[[nodiscard]] const char* fileKind(mode_t mode);

}  // namespace alibi::detail
