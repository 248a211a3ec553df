// See input_file.hpp.
#include "input_file.hpp"

#include <alibi/base/interrupt.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace alibi::detail {

const char* fileKind(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISREG(mode)) return "a regular file";
    return "not a regular file";
}

Result<InputFile> InputFile::open(const std::string& path) {
    const auto refused = [&](mode_t mode) {
        return fail(ErrorCode::InvalidArgument, fmt::format("it is {}, not a regular file", fileKind(mode)));
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return fail(ErrorCode::Io, std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return refused(st.st_mode);
    // O_NONBLOCK: should the path have become a FIFO since the stat, open returns at once
    // instead of waiting for a writer; the fstat below then refuses it.
    int fd;
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    while (fd < 0 && errno == EINTR && !interruptRequested());
    if (fd < 0) return fail(ErrorCode::Io, std::string(std::strerror(errno)));
    InputFile file;
    file.m_fd = fd;
    if (::fstat(fd, &st) != 0) return fail(ErrorCode::Io, std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return refused(st.st_mode);
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    file.m_size = static_cast<std::uint64_t>(st.st_size);
    return file;
}

InputFile::InputFile(InputFile&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_size = other.m_size;
    }
    return *this;
}

InputFile::~InputFile() {
    if (m_fd >= 0) ::close(m_fd);
}

int InputFile::readAt(std::uint64_t offset, std::byte* out, std::uint64_t size) const {
    while (size > 0) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(size, std::uint64_t{1} << 30));
        const ssize_t n = ::pread(m_fd, out, want, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR && !interruptRequested()) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;  // shrank while we read
        out += n;
        offset += static_cast<std::uint64_t>(n);
        size -= static_cast<std::uint64_t>(n);
    }
    return 0;
}

}  // namespace alibi::detail
