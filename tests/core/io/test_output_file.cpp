// Tests for <alibi/output_file.hpp>: atomic replacement of regular files (no partial file, the
// old file intact, no temporary left behind), in-place writing of devices and FIFOs, and clear
// errors naming the path for missing folders, read-only folders and a full disk (/dev/full).
#include <alibi/io/output_file.hpp>

#include <gtest/gtest.h>

#include "temp_dir_fixture.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
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
    // Before commit the target does not exist; only the temporary file beside it.
    EXPECT_FALSE(fs::exists(path("out.txt")));
    ASSERT_EQ(entries().size(), 1u);
    EXPECT_EQ(entries()[0].rfind(".out.txt.tmp-", 0), 0u) << entries()[0];
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
        EXPECT_EQ(entries().size(), 2u);
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
        const std::string piece = i % 3 == 0 ? std::string((std::size_t{1} << 20) + 7 * i, static_cast<char>('a' + i % 26))
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

TEST_F(OutputFileTest, ReadFileTextFromAPipeIsBoundedToo) {
    const std::string fifo = path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The reader gives up early; the writer then gets EPIPE, which must not kill the test.
    const auto oldHandler = std::signal(SIGPIPE, SIG_IGN);
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        const std::string data(10000, 'q');
        if (fd >= 0) {
            (void)!::write(fd, data.data(), data.size());
            ::close(fd);
        }
    });
    auto text = readFileText(fifo, 100);
    writer.join();
    std::signal(SIGPIPE, oldHandler);
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().code, ErrorCode::TooLarge);
}
