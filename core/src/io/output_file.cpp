// OutputFile: honest file writing. A regular-file target is written to a temporary file created
// beside it (same folder, so the final rename(2) is atomic and never crosses file systems), and
// only a complete, fsync'ed file is renamed over the target. Anything that stops before commit()
// (an error, a cancelled export, an exception unwinding the stack) removes the temporary file, so
// the target is either the old file or the complete new one, never a partial one. Devices
// (/dev/null, /dev/full), FIFOs and stdout ("-") cannot be replaced by a rename: they are written
// in place and never deleted.
#include <alibi/io/output_file.hpp>
#include <alibi/base/tensor.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <utility>

namespace alibi {
namespace {

// Small writes are coalesced up to this size; larger ones go straight to the kernel.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

std::string errnoText(int err) { return std::strerror(err); }

// The folder holding `path` ("." for a bare name) and the bare file name.
std::pair<std::string, std::string> splitPath(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return {".", path};
    if (slash == 0) return {"/", path.substr(1)};
    return {path.substr(0, slash), path.substr(slash + 1)};
}

// The process umask without the race of umask(0)/umask(old): Linux reports it in
// /proc/self/status since 4.7. The fallback is the classic dance.
mode_t currentUmask() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    }
    const mode_t old = ::umask(022);
    ::umask(old);
    return old;
}

// What a person should do when the folder refuses a new file.
std::string folderAdvice(int err, const std::string& folder) {
    switch (err) {
        case ENOENT:
            return fmt::format("the folder '{}' does not exist; create it first (mkdir -p '{}') or choose "
                               "another output path",
                               folder, folder);
        case ENOTDIR: return fmt::format("'{}' is not a folder; choose another output path", folder);
        case EACCES:
        case EPERM:
            return fmt::format("the folder '{}' is not writable ({}); choose a folder you can write to", folder,
                               errnoText(err));
        case EROFS:
            return fmt::format("the folder '{}' is on a read-only file system; choose a folder you can write to",
                               folder);
        case ENOSPC:
        case EDQUOT: return fmt::format("{}; free some space or choose another folder", errnoText(err));
        default: return errnoText(err);
    }
}

// Writes everything, resuming after EINTR and partial writes, and waiting when a non-blocking
// descriptor (a pipe someone set O_NONBLOCK on) is momentarily full. Returns 0 or an errno.
int writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n > 0) {
            data += n;
            size -= static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, -1);
            continue;
        }
        return n < 0 ? errno : EIO;  // a zero-byte write of a non-empty buffer: report, never spin
    }
    return 0;
}

}  // namespace

// ---------------------------------------------------------------------------
// Opening

Result<OutputFile> OutputFile::open(const std::string& path) {
    if (path.empty()) return fail(ErrorCode::InvalidArgument, "no output path given; name a file with -o FILE");
    OutputFile file;
    file.m_path = path;
    if (path == "-") {
        file.m_fd = STDOUT_FILENO;
        file.m_inPlace = true;
        file.m_ownsFd = false;
        return file;
    }

    std::string target = path;
    struct stat st {};
    bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write {}: it is a folder; give a file name inside it", path));
    if (exists && !S_ISREG(st.st_mode)) {
        // A device, FIFO or socket: write in place. Opening a FIFO blocks until a reader comes,
        // which is what a shell redirection does too.
        int fd;
        do fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            const int err = errno;
            if (err == ENXIO)
                return fail(ErrorCode::Io, fmt::format("cannot write {}: it is a socket (or a FIFO with no reader), "
                                                       "which cannot be opened as a file; choose a regular file",
                                                       path));
            return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", path, errnoText(err)));
        }
        file.m_fd = fd;
        file.m_inPlace = true;
        return file;
    }

    // A symbolic link to a regular file: replace the file it points to, keep the link.
    mode_t mode = 0666 & ~currentUmask();
    if (exists) {
        struct stat lst {};
        if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
            if (char* real = ::realpath(path.c_str(), nullptr)) {
                target = real;
                std::free(real);
            }
        }
        // Overwriting keeps the old file's permission bits, as a shell redirection would
        // (but never set-user-ID or set-group-ID bits on new content).
        mode = st.st_mode & 0777;
    }

    const auto [folder, name] = splitPath(target);
    if (name.empty())
        return fail(ErrorCode::InvalidArgument, fmt::format("cannot write {}: the path names no file", path));
    std::string temp = fmt::format("{}/.{}.tmp-XXXXXX", folder, name);
    if (temp.size() >= PATH_MAX)
        return fail(ErrorCode::InvalidArgument, fmt::format("cannot write {}: the path is too long", path));
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", path, folderAdvice(err, folder)));
    }
    if (::fchmod(fd, mode) != 0) {
        // Not fatal: the file is still complete and ours; keep mkstemp's 0600.
    }
    file.m_fd = fd;
    file.m_tempPath = std::move(temp);
    file.m_targetPath = std::move(target);
    return file;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_tempPath(std::exchange(other.m_tempPath, {})),
      m_fd(std::exchange(other.m_fd, -1)),
      m_inPlace(other.m_inPlace),
      m_ownsFd(other.m_ownsFd),
      m_buffer(std::move(other.m_buffer)),
      m_targetPath(std::move(other.m_targetPath)) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
    if (this != &other) {
        abort();
        m_path = std::move(other.m_path);
        m_tempPath = std::exchange(other.m_tempPath, {});
        m_fd = std::exchange(other.m_fd, -1);
        m_inPlace = other.m_inPlace;
        m_ownsFd = other.m_ownsFd;
        m_buffer = std::move(other.m_buffer);
        m_targetPath = std::move(other.m_targetPath);
    }
    return *this;
}

OutputFile::~OutputFile() { abort(); }

// ---------------------------------------------------------------------------
// Writing

Result<void> OutputFile::flushBuffer() {
    if (m_buffer.empty()) return {};
    const std::string pending = std::exchange(m_buffer, {});
    m_buffer.reserve(kBufferBytes);
    return writeRaw(pending.data(), pending.size());
}

Result<void> OutputFile::writeRaw(const char* data, std::size_t size) {
    if (m_fd < 0)
        return fail(ErrorCode::Internal, fmt::format("write to {} after commit() or abort()", m_path));
    if (const int err = writeAll(m_fd, data, size); err != 0) {
        const std::string shown = m_path == "-" ? std::string("standard output") : m_path;
        std::string message = fmt::format("cannot write {}: {}", shown, errnoText(err));
        if (!m_tempPath.empty()) {
            message += fmt::format(" (nothing was written at {}", m_path);
            message += err == ENOSPC || err == EDQUOT ? "; free some space or choose another folder)" : ")";
        }
        return fail(ErrorCode::Io, std::move(message));
    }
    return {};
}

Result<void> OutputFile::write(std::span<const std::byte> data) {
    return write(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

Result<void> OutputFile::write(std::string_view text) {
    if (m_fd < 0)
        return fail(ErrorCode::Internal, fmt::format("write to {} after commit() or abort()", m_path));
    if (m_buffer.size() + text.size() <= kBufferBytes) {
        if (m_buffer.capacity() < kBufferBytes) m_buffer.reserve(kBufferBytes);
        m_buffer.append(text);
        return {};
    }
    if (auto ok = flushBuffer(); !ok) return ok;
    if (text.size() >= kBufferBytes) return writeRaw(text.data(), text.size());
    m_buffer.append(text);
    return {};
}

Result<void> OutputFile::commit() {
    if (m_fd < 0) return fail(ErrorCode::Internal, fmt::format("commit() of {} twice or after abort()", m_path));
    if (auto ok = flushBuffer(); !ok) return ok;
    if (m_tempPath.empty()) {
        // In place: a device or FIFO may not support fsync (EINVAL); stdout is not ours to close.
        if (m_ownsFd) {
            const int fd = std::exchange(m_fd, -1);
            if (::close(fd) != 0 && errno != EINTR)
                return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", m_path, errnoText(errno)));
        } else {
            m_fd = -1;
        }
        return {};
    }
    // fsync reports the delayed errors (ENOSPC on some file systems, EIO) before the rename
    // makes the file visible; close can report them too (NFS).
    const int fd = std::exchange(m_fd, -1);
    int err = 0;
    while (::fsync(fd) != 0) {
        if (errno != EINTR) {
            err = errno;
            break;
        }
    }
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err == 0 && ::rename(m_tempPath.c_str(), m_targetPath.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(m_tempPath.c_str());
        m_tempPath.clear();
        return fail(ErrorCode::Io,
                    fmt::format("cannot write {}: {} (nothing was written at {})", m_path, errnoText(err), m_path));
    }
    m_tempPath.clear();
    // Make the rename itself durable; best effort (some file systems refuse fsync on folders).
    const auto folder = splitPath(m_targetPath).first;
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {};
}

void OutputFile::abort() {
    m_buffer.clear();
    if (m_fd >= 0 && m_ownsFd) ::close(m_fd);
    m_fd = -1;
    if (!m_tempPath.empty()) {
        ::unlink(m_tempPath.c_str());
        m_tempPath.clear();
    }
}

// ---------------------------------------------------------------------------
// Whole files

Result<void> writeFileAtomic(const std::string& path, std::string_view content) {
    auto file = OutputFile::open(path);
    if (!file) return std::unexpected(file.error());
    if (auto ok = file->write(content); !ok) return ok;
    return file->commit();
}

Result<std::string> readFileText(const std::string& path, std::size_t maxBytes) {
    int fd;
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path, errnoText(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};

    struct stat st {};
    if (::fstat(fd, &st) != 0) return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path, errnoText(errno)));
    if (S_ISDIR(st.st_mode))
        return fail(ErrorCode::InvalidArgument, fmt::format("cannot read {}: it is a folder, not a file", path));
    const auto tooLarge = [&](std::uint64_t size) {
        return fail(ErrorCode::TooLarge, fmt::format("{} is {}, above the {} this reader accepts; is it the right file?",
                                                     path, humanBytes(size), humanBytes(maxBytes)));
    };
    std::string text;
    if (S_ISREG(st.st_mode)) {
        if (static_cast<std::uint64_t>(st.st_size) > maxBytes) return tooLarge(static_cast<std::uint64_t>(st.st_size));
        text.reserve(static_cast<std::size_t>(st.st_size));
    }
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path, errnoText(errno)));
        }
        // A file that grows while we read, or a pipe, is held to the same limit.
        if (text.size() + static_cast<std::size_t>(n) > maxBytes) return tooLarge(text.size() + static_cast<std::size_t>(n));
        text.append(chunk, static_cast<std::size_t>(n));
    }
    return text;
}

}  // namespace alibi
