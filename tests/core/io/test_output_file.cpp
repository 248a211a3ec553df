// Tests for <alibi/output_file.hpp>: atomic replacement of regular files (no partial file, the
// old file intact, no temporary left behind), in-place writing of devices and FIFOs, and clear
// errors naming the path for missing folders, read-only folders and a full disk (/dev/full).
#include <alibi/base/interrupt.hpp>
#include <alibi/io/output_file.hpp>

#include <gtest/gtest.h>

#include "temp_dir_fixture.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace alibi;

using alibi::test::slurp;
using alibi::test::spit;

namespace {

class OutputFileTest : public alibi::test::TempDirTest {};

bool isCharDevice(const char* path) {
    struct stat st {};
    return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

TEST_F(OutputFileTest, WritesAndCommitsANewFile) {
    auto file = OutputFile::open(path("out.txt"));
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_FALSE(file->inPlace());
    ASSERT_TRUE(file->write("hello "));
    ASSERT_TRUE(file->write(std::string_view("world\n")));
    // Before commit the target does not exist, nor any name: the file is an unnamed O_TMPFILE one.
    EXPECT_FALSE(fs::exists(path("out.txt")));
    EXPECT_TRUE(entries().empty()) << entries()[0];
    ASSERT_TRUE(file->commit());
    EXPECT_EQ(slurp(path("out.txt")), "hello world\n");
    EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
}

TEST_F(OutputFileTest, NewFileGetsDefaultPermissionsUnderTheUmask) {
    const mode_t old = ::umask(027);
    auto ok = writeFileAtomic(path("perm.txt"), "x");
    ::umask(old);
    ASSERT_TRUE(ok) << ok.error().message;
    struct stat st {};
    ASSERT_EQ(::stat(path("perm.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);  // 0666 & ~027, not mkstemp's 0600
}

TEST_F(OutputFileTest, OverwriteKeepsTheOldPermissions) {
    spit(path("keep.txt"), "old");
    ASSERT_EQ(::chmod(path("keep.txt").c_str(), 0604), 0);
    ASSERT_TRUE(writeFileAtomic(path("keep.txt"), "new"));
    struct stat st {};
    ASSERT_EQ(::stat(path("keep.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0604u);
    EXPECT_EQ(slurp(path("keep.txt")), "new");
}

TEST_F(OutputFileTest, WithoutCommitNothingAppearsAndTheOldFileStays) {
    spit(path("old.txt"), "previous content");
    {
        auto file = OutputFile::open(path("old.txt"));
        ASSERT_TRUE(file);
        ASSERT_TRUE(file->write(std::string(3 << 20, 'x')));  // beyond the buffer: really on disk
        EXPECT_EQ(entries().size(), 1u);
    }  // destroyed without commit
    EXPECT_EQ(slurp(path("old.txt")), "previous content");
    EXPECT_EQ(entries(), std::vector<std::string>{"old.txt"});

    auto file = OutputFile::open(path("new.txt"));
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write("partial"));
    file->abort();
    EXPECT_FALSE(fs::exists(path("new.txt")));
    EXPECT_EQ(entries(), std::vector<std::string>{"old.txt"});
    EXPECT_FALSE(file->write("more")) << "writing after abort must fail";
}

TEST_F(OutputFileTest, LargeAndSmallWritesKeepTheirOrder) {
    std::string expected;
    auto file = OutputFile::open(path("big.bin"));
    ASSERT_TRUE(file);
    for (int i = 0; i < 40; ++i) {
        // Alternate tiny writes with writes larger than the 1 MiB buffer.
        const std::string piece = i % 3 == 0
                                      ? std::string((std::size_t{1} << 20) + 7 * i, static_cast<char>('a' + i % 26))
                                      : std::to_string(i) + ",";
        expected += piece;
        ASSERT_TRUE(file->write(piece));
    }
    ASSERT_TRUE(file->commit());
    EXPECT_EQ(slurp(path("big.bin")), expected);
    EXPECT_FALSE(file->commit()) << "a second commit is a programming error, reported";
}

TEST_F(OutputFileTest, MoveTransfersOwnership) {
    auto opened = OutputFile::open(path("moved.txt"));
    ASSERT_TRUE(opened);
    OutputFile first = std::move(*opened);
    ASSERT_TRUE(first.write("abc"));
    OutputFile second = std::move(first);
    ASSERT_TRUE(second.write("def"));
    ASSERT_TRUE(second.commit());
    EXPECT_EQ(slurp(path("moved.txt")), "abcdef");
    EXPECT_EQ(entries(), std::vector<std::string>{"moved.txt"});
}

TEST_F(OutputFileTest, ReplacesTheFileBehindASymlink) {
    spit(path("real.txt"), "old");
    fs::create_symlink(path("real.txt"), path("link.txt"));
    ASSERT_TRUE(writeFileAtomic(path("link.txt"), "new"));
    EXPECT_TRUE(fs::is_symlink(path("link.txt")));
    EXPECT_EQ(slurp(path("real.txt")), "new");
}

TEST_F(OutputFileTest, MissingFolderIsAClearError) {
    const std::string target = path("no/such/folder/out.npy");
    auto file = OutputFile::open(target);
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().code, ErrorCode::Io);
    EXPECT_NE(file.error().message.find(target), std::string::npos) << file.error().message;
    EXPECT_NE(file.error().message.find("does not exist"), std::string::npos) << file.error().message;
    EXPECT_NE(file.error().message.find("mkdir -p"), std::string::npos) << file.error().message;
    EXPECT_FALSE(fs::exists(path("no")));
}

TEST_F(OutputFileTest, FolderAsTargetIsRefused) {
    auto file = OutputFile::open(m_dir.string());
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(file.error().message.find("folder"), std::string::npos) << file.error().message;
}

TEST_F(OutputFileTest, ReadOnlyFolderIsAClearErrorAndLeavesTheOldFile) {
    fs::create_directory(path("ro"));
    spit(path("ro/keep.npy"), "old");
    // Root ignores permission bits, so as root make the folder immutable (ext4/xfs/btrfs
    // support FS_IMMUTABLE_FL); as another user a mode of 0555 is enough.
    bool restricted = false;
    int dirFd = -1;
    int oldFlags = 0;
    if (::geteuid() != 0) {
        restricted = ::chmod(path("ro").c_str(), 0555) == 0;
    } else {
        dirFd = ::open(path("ro").c_str(), O_RDONLY | O_DIRECTORY);
        if (dirFd >= 0 && ::ioctl(dirFd, FS_IOC_GETFLAGS, &oldFlags) == 0) {
            int flags = oldFlags | FS_IMMUTABLE_FL;
            restricted = ::ioctl(dirFd, FS_IOC_SETFLAGS, &flags) == 0;
        }
    }
    if (!restricted) {
        if (dirFd >= 0) ::close(dirFd);
        GTEST_SKIP() << "cannot make a read-only folder here (running as root without CAP_LINUX_IMMUTABLE or on a "
                        "file system without the immutable flag)";
    }
    const std::string target = path("ro/keep.npy");
    auto result = writeFileAtomic(target, "new content");
    // Undo the restriction before any assertion can return early.
    if (dirFd >= 0) {
        ::ioctl(dirFd, FS_IOC_SETFLAGS, &oldFlags);
        ::close(dirFd);
    } else {
        ::chmod(path("ro").c_str(), 0755);
    }
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::Io);
    EXPECT_NE(result.error().message.find(target), std::string::npos) << result.error().message;
    EXPECT_NE(result.error().message.find("not writable"), std::string::npos) << result.error().message;
    EXPECT_EQ(slurp(target), "old");
    EXPECT_EQ(fs::directory_iterator(path("ro"))->path().filename(), "keep.npy");
}

TEST_F(OutputFileTest, DevFullReportsNoSpaceAndStaysADevice) {
    if (!isCharDevice("/dev/full")) GTEST_SKIP() << "/dev/full is not available";
    auto file = OutputFile::open("/dev/full");
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_TRUE(file->inPlace());
    auto written = file->write(std::string(100, 'x'));
    auto committed = written ? file->commit() : written;
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().code, ErrorCode::Io);
    EXPECT_EQ(committed.error().message, "cannot write /dev/full: No space left on device");
    EXPECT_TRUE(isCharDevice("/dev/full"));

    // A write larger than the buffer fails at once.
    auto again = OutputFile::open("/dev/full");
    ASSERT_TRUE(again);
    auto big = again->write(std::string(2 << 20, 'x'));
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message.find("No space left on device"), std::string::npos);
}

TEST_F(OutputFileTest, DevNullSucceedsAndStaysADevice) {
    if (!isCharDevice("/dev/null")) GTEST_SKIP() << "/dev/null is not available";
    auto result = writeFileAtomic("/dev/null", std::string(3 << 20, 'x'));
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_TRUE(isCharDevice("/dev/null"));
    auto file = OutputFile::open("/dev/null");
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write("dropped"));
    file->abort();  // in place: never deleted
    EXPECT_TRUE(isCharDevice("/dev/null"));
}

TEST_F(OutputFileTest, FifoIsWrittenInPlace) {
    const std::string fifo = path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = slurp(fifo); });
    std::string expected;
    for (int i = 0; i < 1000; ++i) expected += "line " + std::to_string(i) + "\n";
    expected += std::string(2 << 20, 'z');  // more than a pipe holds: the writer must wait for the reader
    auto result = writeFileAtomic(fifo, expected);
    reader.join();
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(received, expected);
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(entries(), std::vector<std::string>{"pipe"});
}

TEST_F(OutputFileTest, StdoutIsInPlace) {
    auto file = OutputFile::open("-");
    ASSERT_TRUE(file);
    EXPECT_TRUE(file->inPlace());
    EXPECT_EQ(file->path(), "-");
    ASSERT_TRUE(file->commit());  // nothing written; stdout stays open
    EXPECT_NE(::fcntl(STDOUT_FILENO, F_GETFD), -1);
}

TEST_F(OutputFileTest, EmptyPathIsRefused) {
    auto file = OutputFile::open("");
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().code, ErrorCode::InvalidArgument);
}

TEST_F(OutputFileTest, ReadFileTextRoundTripAndLimits) {
    ASSERT_TRUE(writeFileAtomic(path("a.json"), "{\"version\": 1}"));
    auto text = readFileText(path("a.json"), 1024);
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_EQ(*text, "{\"version\": 1}");

    auto tooBig = readFileText(path("a.json"), 5);
    ASSERT_FALSE(tooBig);
    EXPECT_EQ(tooBig.error().code, ErrorCode::TooLarge);
    EXPECT_NE(tooBig.error().message.find(path("a.json")), std::string::npos) << tooBig.error().message;

    auto missing = readFileText(path("missing.json"), 1024);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::Io);
    EXPECT_NE(missing.error().message.find("No such file or directory"), std::string::npos);
    EXPECT_NE(missing.error().message.find(path("missing.json")), std::string::npos);

    auto folder = readFileText(m_dir.string(), 1024);
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, ErrorCode::InvalidArgument);
}

TEST_F(OutputFileTest, ReadFileTextRefusesAFifoWithoutWaitingForAWriter) {
    const std::string fifo = path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto text = readFileText(fifo, 100);  // no writer: opening it would block forever
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(text.error().message.find("FIFO"), std::string::npos) << text.error().message;
}

// ---------------------------------------------------------------------------
// Issue 16: temporaries that cannot outlive the process, and replacing as a shell redirect would

namespace {

constexpr uid_t kNobody = 65534;

// The pid of a process that has exited (and been reaped).
pid_t deadPid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

void makeOld(const std::string& file) {
    const timespec times[2] = {{std::time(nullptr) - 3600, 0}, {std::time(nullptr) - 3600, 0}};
    ::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

// Runs `body` in a child process as `nobody`; true when it returned true.
template <class Body>
bool asNobody(Body body) {
    const pid_t child = ::fork();
    if (child == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(3);
        ::_exit(body() ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_F(OutputFileTest, NamedFallbackTemporaryIsVisibleThenRenamed) {
    OutputOptions options;
    options.namedTemporary = true;
    auto file = OutputFile::open(path("out.txt"), options);
    ASSERT_TRUE(file) << file.error().message;
    ASSERT_TRUE(file->write("named"));
    ASSERT_EQ(entries().size(), 1u);
    const std::string prefix = ".out.txt.alibi-tmp-" + std::to_string(::getpid()) + "-";
    EXPECT_EQ(entries()[0].rfind(prefix, 0), 0u) << entries()[0];
    ASSERT_TRUE(file->commit());
    EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
    EXPECT_EQ(slurp(path("out.txt")), "named");
}

TEST_F(OutputFileTest, StaleTemporariesOfAKilledWriterAreRemovedAndNothingElse) {
    const pid_t dead = deadPid();
    const std::string stale = ".out.npy.alibi-tmp-" + std::to_string(dead) + "-AbC123";
    const std::string recent = ".out.npy.alibi-tmp-" + std::to_string(dead) + "-XyZ789";  // may still be written
    const std::string alive = ".out.npy.alibi-tmp-1-QwE456";                              // pid 1 is running
    const std::string otherTarget = ".other.npy.alibi-tmp-" + std::to_string(dead) + "-AbC123";
    const std::string notOurs = ".out.npy.alibi-tmp-" + std::to_string(dead) + "-toolong7";
    for (const auto& name : {stale, recent, alive, otherTarget, notOurs}) spit(path(name), "partial");
    for (const auto& name : {stale, alive, otherTarget, notOurs}) makeOld(path(name));
    // A symbolic link with the pattern is never followed nor removed.
    const std::string link = ".out.npy.alibi-tmp-" + std::to_string(dead) + "-LnK000";
    fs::create_symlink(path(otherTarget), path(link));
    makeOld(path(link));

    ASSERT_TRUE(writeFileAtomic(path("out.npy"), "new"));
    std::vector<std::string> expected{recent, alive, otherTarget, notOurs, link, "out.npy"};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(entries(), expected);
    EXPECT_EQ(slurp(path(otherTarget)), "partial");
}

TEST_F(OutputFileTest, KilledWriterLeavesNothingBehind) {
    // The writer is SIGKILLed with half a file written: the unnamed temporary file dies with it.
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const std::string target = path("big.bin");
    const pid_t child = ::fork();
    if (child == 0) {
        auto file = OutputFile::open(target);
        if (!file || !file->write(std::string(8 << 20, 'x'))) ::_exit(1);
        (void)!::write(ready[1], "r", 1);
        ::pause();
        ::_exit(0);
    }
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    EXPECT_TRUE(entries().empty());
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(ready[0]);
    ::close(ready[1]);
    EXPECT_TRUE(entries().empty());
}

TEST_F(OutputFileTest, ReplacingKeepsModeOwnerAndGroup) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to own a file as another user";
    spit(path("theirs.txt"), "old");
    ASSERT_EQ(::chown(path("theirs.txt").c_str(), kNobody, kNobody), 0);
    ASSERT_EQ(::chmod(path("theirs.txt").c_str(), 0640), 0);
    ASSERT_TRUE(writeFileAtomic(path("theirs.txt"), "new"));
    struct stat st {};
    ASSERT_EQ(::stat(path("theirs.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, kNobody);
    EXPECT_EQ(st.st_gid, kNobody);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(slurp(path("theirs.txt")), "new");
}

TEST_F(OutputFileTest, ReadOnlyFileIsRefusedAsAShellRedirectWouldBe) {
    spit(path("ro.txt"), "old");
    ASSERT_EQ(::chmod(path("ro.txt").c_str(), 0444), 0);
    if (::geteuid() == 0) {
        ASSERT_EQ(::chmod(m_dir.c_str(), 0777), 0);
        ASSERT_EQ(::chown(path("ro.txt").c_str(), kNobody, kNobody), 0);
        const std::string target = path("ro.txt");
        EXPECT_TRUE(asNobody([&] {
            auto result = writeFileAtomic(target, "new");
            return !result && result.error().code == ErrorCode::Io &&
                   result.error().message.find("read-only") != std::string::npos;
        }));
    } else {
        auto result = writeFileAtomic(path("ro.txt"), "new");
        ASSERT_FALSE(result);
        EXPECT_NE(result.error().message.find("read-only"), std::string::npos) << result.error().message;
    }
    EXPECT_EQ(slurp(path("ro.txt")), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"ro.txt"});
}

TEST_F(OutputFileTest, SymlinkPlantedByAnotherUserInAStickyFolderIsRefused) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a link as another user";
    fs::create_directory(path("shared"));
    ASSERT_EQ(::chmod(path("shared").c_str(), 01777), 0);
    spit(path("secret"), "root only");
    const std::string link = path("shared/out.npy");
    fs::create_symlink(path("secret"), link);
    ASSERT_EQ(::lchown(link.c_str(), kNobody, kNobody), 0);
    auto result = writeFileAtomic(link, "overwritten");
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("fs.protected_symlinks"), std::string::npos) << result.error().message;
    EXPECT_EQ(slurp(path("secret")), "root only");

    // The folder's owner may follow links in it, and anyone their own.
    ASSERT_EQ(::lchown(link.c_str(), 0, 0), 0);
    EXPECT_TRUE(writeFileAtomic(link, "mine"));
    EXPECT_EQ(slurp(path("secret")), "mine");
}

TEST_F(OutputFileTest, DanglingSymlinkCreatesItsTargetAndStaysALink) {
    fs::create_symlink("made.txt", path("link.txt"));
    ASSERT_TRUE(writeFileAtomic(path("link.txt"), "new"));
    EXPECT_TRUE(fs::is_symlink(path("link.txt")));
    EXPECT_EQ(slurp(path("made.txt")), "new");
    // A chain of links is followed link by link.
    fs::create_symlink("link.txt", path("link2.txt"));
    ASSERT_TRUE(writeFileAtomic(path("link2.txt"), "newer"));
    EXPECT_EQ(slurp(path("made.txt")), "newer");
    EXPECT_TRUE(fs::is_symlink(path("link2.txt")));
}

TEST_F(OutputFileTest, HardLinksKeepTheOldContent) {
    // Documented behaviour: an atomic replacement is a new file under the given name.
    spit(path("a.txt"), "old");
    fs::create_hard_link(path("a.txt"), path("b.txt"));
    ASSERT_TRUE(writeFileAtomic(path("a.txt"), "new"));
    EXPECT_EQ(slurp(path("a.txt")), "new");
    EXPECT_EQ(slurp(path("b.txt")), "old");
}

TEST_F(OutputFileTest, SameFileIsRecognisedThroughLinks) {
    spit(path("in.npy"), "data");
    fs::create_symlink(path("in.npy"), path("sym.npy"));
    fs::create_hard_link(path("in.npy"), path("hard.npy"));
    spit(path("other.npy"), "data");
    for (const auto& out : {path("in.npy"), path("sym.npy"), path("hard.npy"), m_dir.string() + "/./in.npy"}) {
        auto r = refuseSameFile(out, path("in.npy"));
        ASSERT_FALSE(r) << out;
        EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
    }
    EXPECT_TRUE(refuseSameFile(path("other.npy"), path("in.npy")));
    EXPECT_TRUE(refuseSameFile(path("new.npy"), path("in.npy")));
    EXPECT_TRUE(refuseSameFile("-", path("in.npy")));
}

TEST_F(OutputFileTest, LongNamesAndPathsAreUsageErrors) {
    auto longName = OutputFile::open(path(std::string(300, 'n')));
    ASSERT_FALSE(longName);
    EXPECT_EQ(longName.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(longName.error().message.find("255"), std::string::npos) << longName.error().message;
    std::string deep = m_dir.string();
    while (deep.size() < PATH_MAX + 10) deep += "/d";
    auto longPath = OutputFile::open(deep);
    ASSERT_FALSE(longPath);
    EXPECT_EQ(longPath.error().code, ErrorCode::InvalidArgument);
    EXPECT_LT(longPath.error().message.size(), 400u);
}

namespace {
extern "C" void onTestInterrupt(int) {
    alibi::requestInterrupt();
}
}  // namespace

TEST_F(OutputFileTest, OneSignalEndsTheWaitForAFifoReader) {
    const std::string fifo = path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    struct sigaction action {
    }, old{};
    action.sa_handler = onTestInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART, as the CLI installs it
    ASSERT_EQ(::sigaction(SIGUSR1, &action, &old), 0);
    const pthread_t self = ::pthread_self();
    std::thread signaller([self] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::pthread_kill(self, SIGUSR1);
    });
    auto file = OutputFile::open(fifo);  // no reader: blocks until the signal
    signaller.join();
    ::sigaction(SIGUSR1, &old, nullptr);
    alibi::clearInterrupt();
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().code, ErrorCode::Cancelled) << file.error().message;
}
