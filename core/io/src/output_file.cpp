// OutputFile: honest file writing. A regular-file target is written to an unnamed O_TMPFILE file
// in its folder (the kernel frees it if the process dies, even by SIGKILL), which is linked
// under a temporary name and renamed over the target only once complete and fsync'ed (rename(2)
// is atomic and never crosses file systems). Where O_TMPFILE is missing, a named temporary file
// takes its place, and the stale ones a killed process left (our naming pattern, our uid, a dead
// pid, untouched for minutes) are removed. Replacing keeps the old file's mode, owner and group,
// and is refused where a shell redirect would be. Devices (/dev/null, /dev/full), FIFOs and
// stdout ("-") cannot be replaced by a rename: they are written in place and never deleted.
#include <alibi/base/interrupt.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/output_file.hpp>

#include "input_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <utility>

namespace alibi {
namespace {

// Small writes are coalesced up to this size; larger ones go straight to the kernel.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

std::string errnoText(int err) {
    return std::strerror(err);
}

// A path short enough for a message.
std::string excerptPath(const std::string& path) {
    return path.size() <= 80 ? path : path.substr(0, 77) + "...";
}

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
            // The folder may exist and still refuse new files (/proc, /sys: virtual file systems).
            if (::access(folder.c_str(), F_OK) == 0)
                return fmt::format(
                    "the folder '{}' does not accept new files (a virtual file system such as /proc "
                    "or /sys?); choose another output path",
                    folder);
            return fmt::format(
                "the folder '{}' does not exist; create it first (mkdir -p '{}') or choose "
                "another output path",
                folder, folder);
        case ENOTDIR:
            return fmt::format("'{}' is not a folder; choose another output path", folder);
        case EACCES:
        case EPERM:
            return fmt::format("the folder '{}' is not writable ({}); choose a folder you can write to", folder,
                               errnoText(err));
        case EROFS:
            return fmt::format("the folder '{}' is on a read-only file system; choose a folder you can write to",
                               folder);
        case ENOSPC:
        case EDQUOT:
            return fmt::format("{}; free some space or choose another folder", errnoText(err));
        default:
            return errnoText(err);
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
        if (n < 0 && errno == EINTR && !interruptRequested()) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, -1) < 0 && errno == EINTR && interruptRequested()) return EINTR;
            continue;
        }
        return n < 0 ? errno : EIO;  // a zero-byte write of a non-empty buffer: report, never spin
    }
    return 0;
}

}  // namespace

// ---------------------------------------------------------------------------
// Resolving the target

namespace {

// A symbolic link the kernel's fs.protected_symlinks rule would not follow: it lies in a sticky,
// world-writable folder (/tmp) and belongs to neither the user nor the folder's owner. Another
// user could have planted it there to make us replace a file of their choosing.
bool isProtectedSymlink(const struct stat& link, const std::string& folder) {
    if (link.st_uid == ::geteuid()) return false;
    struct stat dir {};
    if (::stat(folder.c_str(), &dir) != 0) return false;
    const bool stickyWorldWritable = (dir.st_mode & S_ISVTX) && (dir.st_mode & S_IWOTH);
    return stickyWorldWritable && dir.st_uid != link.st_uid;
}

struct Target {
    std::string path;  // the file to replace (or create): the end of any chain of links
    bool exists = false;
    struct stat st {};  // when it exists
};

// Follows symbolic links one at a time (checking each against the protected-symlink rule) to
// the file a shell redirect would write; a dangling link names the file to create.
Result<Target> resolveTarget(const std::string& path) {
    Target t;
    t.path = path;
    for (int hops = 0;; ++hops) {
        if (hops > 40)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("cannot write {}: too many levels of symbolic links", path));
        struct stat lst {};
        if (::lstat(t.path.c_str(), &lst) != 0) return t;  // a new file (the folder is checked on creation)
        if (!S_ISLNK(lst.st_mode)) {
            t.exists = true;
            t.st = lst;
            return t;
        }
        const auto folder = splitPath(t.path).first;
        if (isProtectedSymlink(lst, folder))
            return fail(ErrorCode::Io,
                        fmt::format("cannot write {}: {} is a symbolic link in the shared folder '{}' (sticky and "
                                    "writable by everyone) that belongs to another user (uid {}); following it could "
                                    "replace a file of that user's choosing, which the kernel refuses too "
                                    "(fs.protected_symlinks). Write to the file it points to directly",
                                    path, t.path, folder, lst.st_uid));
        std::string link(PATH_MAX, '\0');
        const ssize_t n = ::readlink(t.path.c_str(), link.data(), link.size());
        if (n < 0 || static_cast<std::size_t>(n) >= link.size())
            return fail(ErrorCode::Io, fmt::format("cannot write {}: cannot read the symbolic link {}", path, t.path));
        link.resize(static_cast<std::size_t>(n));
        t.path = link.front() == '/' ? link : folder + "/" + link;
    }
}

// What the temporary files of `name` are called: ".NAME.alibi-tmp-PID-XXXXXX" (a long name is
// cut so the temporary name still fits in NAME_MAX).
std::string temporaryPrefix(const std::string& name) {
    return "." + name.substr(0, 160) + ".alibi-tmp-";
}

// A named temporary file is stale when a process killed before commit() left it: our naming
// pattern for this target, a regular file of ours with no other link, its writer's pid gone,
// and untouched for this long (so a writer on another host or in another pid namespace, whose
// pid we cannot check, is never disturbed: a live export keeps writing).
constexpr std::time_t kStaleSeconds = 600;

void removeStaleTemporaries(int dirFd, const std::string& prefix) {
    const int listFd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (listFd < 0) return;
    DIR* dir = ::fdopendir(listFd);
    if (!dir) {
        ::close(listFd);
        return;
    }
    const std::time_t now = std::time(nullptr);
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name.substr(0, prefix.size()) != prefix) continue;
        const std::string_view rest = name.substr(prefix.size());  // "PID-XXXXXX"
        const auto dash = rest.find('-');
        if (dash == std::string_view::npos || dash == 0 || rest.size() - dash - 1 != 6) continue;
        long pid = 0;
        const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + dash, pid);
        if (ec != std::errc() || ptr != rest.data() + dash || pid <= 0 || pid == ::getpid()) continue;
        struct stat st {};
        if (::fstatat(dirFd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_nlink != 1) continue;
        if (now - st.st_mtime < kStaleSeconds) continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
        ::unlinkat(dirFd, entry->d_name, 0);
    }
    ::closedir(dir);
}

// A fresh name for a temporary file of `prefix` in the folder.
std::string temporaryName(const std::string& prefix) {
    static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    thread_local std::mt19937_64 random{std::random_device{}()};
    std::string name = prefix + std::to_string(::getpid()) + "-";
    for (int i = 0; i < 6; ++i) name += kChars[random() % (sizeof kChars - 1)];
    return name;
}

}  // namespace

// ---------------------------------------------------------------------------
// Opening

Result<OutputFile> OutputFile::open(const std::string& path, const OutputOptions& options) {
    if (path.empty()) return fail(ErrorCode::InvalidArgument, "no output path given; name a file with -o FILE");
    OutputFile file;
    file.m_path = path;
    if (path == "-") {
        file.m_fd = STDOUT_FILENO;
        file.m_inPlace = true;
        file.m_ownsFd = false;
        return file;
    }
    if (path.size() >= PATH_MAX)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write {}...: the path is {} bytes, longer than the {} the system allows; "
                                "choose a shorter path",
                                path.substr(0, 60), path.size(), PATH_MAX - 1));

    auto target = resolveTarget(path);
    if (!target) return std::unexpected(target.error());
    const struct stat& st = target->st;
    if (target->exists && S_ISDIR(st.st_mode))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write {}: it is a folder; give a file name inside it", path));
    if (target->exists && !S_ISREG(st.st_mode)) {
        // A device, FIFO or socket: write in place. A FIFO waits for a reader, as a shell
        // redirection does; the first Ctrl-C ends the wait. The wait polls (a non-blocking open
        // fails with ENXIO until a reader comes) instead of blocking in open(): a Ctrl-C that
        // lands just before a blocking open would otherwise be missed, and the wait never end.
        int fd = -1;
        if (S_ISFIFO(st.st_mode)) {
            errno = EINTR;
            while (!interruptRequested()) {
                fd = ::open(target->path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (fd >= 0 || (errno != ENXIO && errno != EINTR)) break;
                ::usleep(20'000);
                errno = EINTR;
            }
            if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        } else {
            do fd = ::open(target->path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
            while (fd < 0 && errno == EINTR && !interruptRequested());
        }
        if (fd < 0) {
            const int err = errno;
            if (err == EINTR)
                return fail(ErrorCode::Cancelled,
                            fmt::format("cancelled while waiting for a reader of {}; nothing was written", path));
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

    const auto [folder, name] = splitPath(target->path);
    if (name.empty() || name == "." || name == "..")
        return fail(ErrorCode::InvalidArgument, fmt::format("cannot write {}: the path names no file", path));
    if (name.size() > NAME_MAX)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write {}: the file name is {} bytes, longer than the {} a file system allows; "
                                "choose a shorter name",
                                excerptPath(path), name.size(), NAME_MAX));

    // Replacing an existing file: refused where `> file` in a shell would be (no write
    // permission on it), and the new file gets the old one's permission bits (never set-user-ID
    // or set-group-ID ones), owner and group, as far as this process may set them.
    mode_t mode = 0666 & ~currentUmask();
    if (target->exists) {
        if (::faccessat(AT_FDCWD, target->path.c_str(), W_OK, AT_EACCESS) != 0) {
            const int err = errno;
            return fail(ErrorCode::Io,
                        fmt::format("cannot write {}: {}; the file is read-only for you (a shell redirect would be "
                                    "refused too): make it writable (chmod u+w) or choose another name",
                                    path, errnoText(err)));
        }
        mode = st.st_mode & 0777;
    }

    const int dirFd = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0) {
        const int err = errno;
        return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", path, folderAdvice(err, folder)));
    }
    file.m_dirFd = dirFd;
    file.m_folder = folder;
    file.m_targetName = name;
    const std::string prefix = temporaryPrefix(name);
    removeStaleTemporaries(dirFd, prefix);

    int fd = -1;
    if (!options.namedTemporary) {
        fd = ::openat(dirFd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (fd >= 0) {
            file.m_unnamed = true;
        } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
            const int err = errno;
            return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", path, folderAdvice(err, folder)));
        }
    }
    if (fd < 0) {
        // No O_TMPFILE here: a named temporary file, which a killed process leaves behind until
        // removeStaleTemporaries() finds it.
        for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
            std::string temp = temporaryName(prefix);
            fd = ::openat(dirFd, temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd >= 0)
                file.m_tempName = std::move(temp);
            else if (errno != EEXIST)
                break;
        }
        if (fd < 0) {
            const int err = errno;
            return fail(ErrorCode::Io, fmt::format("cannot write {}: {}", path, folderAdvice(err, folder)));
        }
    }
    file.m_fd = fd;
    if (target->exists && ::fchown(fd, st.st_uid, st.st_gid) != 0) {
        // Not ours to give away (an unprivileged user): keep at least the group when we may.
        (void)!::fchown(fd, static_cast<uid_t>(-1), st.st_gid);
    }
    if (::fchmod(fd, mode) != 0) {
        // Not fatal: the file is still complete and ours; it keeps the 0600 it was made with.
    }
    return file;
}

Result<void> refuseSameFile(const std::string& output, const std::string& input) {
    if (output == "-" || output.empty()) return {};
    struct stat out {
    }, in{};
    if (::stat(output.c_str(), &out) != 0 || ::stat(input.c_str(), &in) != 0) return {};
    if (out.st_dev != in.st_dev || out.st_ino != in.st_ino) return {};
    return fail(ErrorCode::InvalidArgument,
                fmt::format("refusing to write {}: it is the input file {}{}, which the output would replace; "
                            "choose another output name",
                            output, input, output == input ? "" : " (the same file under another name or link)"));
}

OutputFile::OutputFile(OutputFile&& other) noexcept {
    *this = std::move(other);
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
    if (this != &other) {
        abort();
        if (m_dirFd >= 0) ::close(m_dirFd);
        m_path = std::move(other.m_path);
        m_folder = std::move(other.m_folder);
        m_targetName = std::move(other.m_targetName);
        m_tempName = std::exchange(other.m_tempName, {});
        m_dirFd = std::exchange(other.m_dirFd, -1);
        m_fd = std::exchange(other.m_fd, -1);
        m_inPlace = other.m_inPlace;
        m_ownsFd = other.m_ownsFd;
        m_unnamed = other.m_unnamed;
        m_buffer = std::move(other.m_buffer);
    }
    return *this;
}

OutputFile::~OutputFile() {
    abort();
    if (m_dirFd >= 0) ::close(m_dirFd);
}

// ---------------------------------------------------------------------------
// Writing

Result<void> OutputFile::flushBuffer() {
    if (m_buffer.empty()) return {};
    const std::string pending = std::exchange(m_buffer, {});
    m_buffer.reserve(kBufferBytes);
    return writeRaw(pending.data(), pending.size());
}

Result<void> OutputFile::writeRaw(const char* data, std::size_t size) {
    if (m_fd < 0) return fail(ErrorCode::Internal, fmt::format("write to {} after commit() or abort()", m_path));
    if (const int err = writeAll(m_fd, data, size); err != 0) {
        const std::string shown = m_path == "-" ? std::string("standard output") : m_path;
        std::string message = fmt::format("cannot write {}: {}", shown, errnoText(err));
        if (!m_inPlace) {
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
    if (m_fd < 0) return fail(ErrorCode::Internal, fmt::format("write to {} after commit() or abort()", m_path));
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
    if (m_inPlace) {
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
    int err = 0;
    while (::fsync(m_fd) != 0) {
        if (errno != EINTR || interruptRequested()) {
            err = errno;
            break;
        }
    }
    if (err == 0 && m_unnamed) {
        // Give the O_TMPFILE file a temporary name (link(2) cannot replace the target), then
        // rename it over the target. /proc/self/fd works unprivileged; AT_EMPTY_PATH is the
        // fallback where /proc is not mounted.
        const std::string proc = fmt::format("/proc/self/fd/{}", m_fd);
        const std::string prefix = temporaryPrefix(m_targetName);
        err = EEXIST;
        for (int attempt = 0; err == EEXIST && attempt < 100; ++attempt) {
            std::string temp = temporaryName(prefix);
            if (::linkat(AT_FDCWD, proc.c_str(), m_dirFd, temp.c_str(), AT_SYMLINK_FOLLOW) == 0 ||
                (errno == ENOENT && ::linkat(m_fd, "", m_dirFd, temp.c_str(), AT_EMPTY_PATH) == 0)) {
                m_tempName = std::move(temp);
                err = 0;
            } else {
                err = errno;
            }
        }
    }
    if (::close(std::exchange(m_fd, -1)) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err == 0 && ::renameat(m_dirFd, m_tempName.c_str(), m_dirFd, m_targetName.c_str()) != 0) err = errno;
    if (err != 0) {
        if (!m_tempName.empty()) ::unlinkat(m_dirFd, m_tempName.c_str(), 0);
        m_tempName.clear();
        if (err == EINTR && interruptRequested())
            return fail(ErrorCode::Cancelled,
                        fmt::format("export to {} cancelled; nothing was written at {}", m_path, m_path));
        return fail(ErrorCode::Io,
                    fmt::format("cannot write {}: {} (nothing was written at {})", m_path, errnoText(err), m_path));
    }
    m_tempName.clear();
    // Make the rename itself durable; best effort (some file systems refuse fsync on folders).
    const int dir = ::openat(m_dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {};
}

void OutputFile::abort() {
    m_buffer.clear();
    if (m_fd >= 0 && m_ownsFd) ::close(m_fd);  // an O_TMPFILE file vanishes with its last descriptor
    m_fd = -1;
    if (!m_tempName.empty()) {
        ::unlinkat(m_dirFd, m_tempName.c_str(), 0);
        m_tempName.clear();
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
    auto file = detail::InputFile::open(path);
    if (!file) return fail(file.error().code, fmt::format("cannot read {}: {}", path, file.error().message));
    if (file->size() > maxBytes)
        return fail(ErrorCode::TooLarge,
                    fmt::format("{} is {}, above the {} this reader accepts; is it the right file?", path,
                                humanBytes(file->size()), humanBytes(maxBytes)));
    std::string text(static_cast<std::size_t>(file->size()), '\0');
    if (const int err = file->readAt(0, reinterpret_cast<std::byte*>(text.data()), text.size()); err != 0)
        return fail(err == EINTR ? ErrorCode::Cancelled : ErrorCode::Io,
                    fmt::format("cannot read {}: {}", path, errnoText(err)));
    return text;
}

}  // namespace alibi
