// The one output writer (render/core/output_file.h) and the up-front output
// checks (render/options.h) on every kind of target: regular files, symbolic
// links (to files, to /proc/self/fd/N, dangling), FIFOs, pipes, standard
// output, and character devices made with mknod in a temporary folder (c 1 3,
// a null device; c 1 7, a full one). The system's own /dev is never used.
// The device cases need root (mknod); elsewhere they are skipped.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "render/compare.h"
#include "render/core/numbers.h"
#include "render/core/output_file.h"
#include "render/options.h"

#include "tests/file_checks.h"

namespace {

using cr::testing_files::entries;
using cr::testing_files::is_char_device;
using cr::testing_files::is_symlink_to;
using cr::testing_files::slurp;
using cr::testing_files::TempDir;

/// Each test in a fresh folder `dir` under /tmp, removed afterwards.
class OutputFile : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_FALSE(dir.empty()) << "mkdtemp failed"; }
    TempDir tmp{"out"};
    const std::string dir = tmp.path();
};

TEST_F(OutputFile, RegularFileIsReplacedAtomicallyAndKeepsItsMode) {
    const std::string path = dir + "/out.json";
    { std::ofstream(path) << "old"; }
    ASSERT_EQ(chmod(path.c_str(), 0640), 0);
    cr::write_text_file(path, "new\n");
    EXPECT_EQ(slurp(path), "new\n");
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(entries(dir), std::set<std::string>{"out.json"});  // no temporary file left
}

TEST_F(OutputFile, FailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
    const std::string path = dir + "/keep.txt";
    { std::ofstream(path) << "KEEP"; }
    EXPECT_THROW(cr::write_output_file(path, [](std::FILE*) { return false; }), cr::FileError);
    EXPECT_EQ(slurp(path), "KEEP");
    EXPECT_EQ(entries(dir), std::set<std::string>{"keep.txt"});
}

TEST_F(OutputFile, SymlinkToAFileIsWrittenThrough) {
    ASSERT_EQ(mkdir((dir + "/data").c_str(), 0755), 0);
    { std::ofstream(dir + "/data/target.json") << "old"; }
    ASSERT_EQ(symlink("data/target.json", (dir + "/link.json").c_str()), 0);  // relative link
    cr::write_text_file(dir + "/link.json", "{}\n");
    EXPECT_TRUE(is_symlink_to(dir + "/link.json", "data/target.json"));
    EXPECT_EQ(slurp(dir + "/data/target.json"), "{}\n");
    EXPECT_EQ(entries(dir + "/data"), std::set<std::string>{"target.json"});
}

TEST_F(OutputFile, ChainOfLinksAndDanglingLinkCreateTheFinalTarget) {
    ASSERT_EQ(symlink("b.json", (dir + "/a.json").c_str()), 0);
    ASSERT_EQ(symlink((dir + "/c.json").c_str(), (dir + "/b.json").c_str()), 0);  // absolute, dangling
    cr::write_text_file(dir + "/a.json", "x");
    EXPECT_TRUE(is_symlink_to(dir + "/a.json", "b.json"));
    EXPECT_TRUE(is_symlink_to(dir + "/b.json", dir + "/c.json"));
    EXPECT_EQ(slurp(dir + "/c.json"), "x");
}

TEST_F(OutputFile, LinkLoopIsAnError) {
    ASSERT_EQ(symlink("loop2", (dir + "/loop1").c_str()), 0);
    ASSERT_EQ(symlink("loop1", (dir + "/loop2").c_str()), 0);
    EXPECT_THROW(cr::write_text_file(dir + "/loop1", "x"), cr::FileError);
    EXPECT_TRUE(is_symlink_to(dir + "/loop1", "loop2"));
}

TEST_F(OutputFile, FolderIsRefused) {
    try {
        cr::write_text_file(dir, "x");
        ADD_FAILURE() << "no error";
    } catch (const cr::FileError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write '" + dir + "': it is a folder");
    }
}

TEST_F(OutputFile, FifoIsWrittenInPlace) {
    const std::string fifo = dir + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });
    cr::write_text_file(fifo, "through the fifo\n");
    reader.join();
    EXPECT_EQ(got, "through the fifo\n");
    struct stat st;
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(entries(dir), std::set<std::string>{"fifo"});
}

TEST_F(OutputFile, SymlinkToProcSelfFdOfAPipeIsWrittenThrough) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const std::string link = dir + "/to_fd";
    const std::string to = "/proc/self/fd/" + std::to_string(fds[1]);
    ASSERT_EQ(symlink(to.c_str(), link.c_str()), 0);
    EXPECT_EQ(cr::classify_output(link), cr::OutputTarget::Special);
    cr::write_text_file(link, "piped");
    close(fds[1]);
    char buf[16] = {};
    EXPECT_EQ(read(fds[0], buf, sizeof buf), 5);
    close(fds[0]);
    EXPECT_EQ(std::string(buf), "piped");
    EXPECT_TRUE(is_symlink_to(link, to));
}

TEST_F(OutputFile, ClosedPipeIsAnErrorNotADeath) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    close(fds[0]);  // no reader: EPIPE (SIGPIPE is ignored while writing)
    const std::string link = dir + "/broken";
    ASSERT_EQ(symlink(("/proc/self/fd/" + std::to_string(fds[1])).c_str(), link.c_str()), 0);
    try {
        cr::write_text_file(link, "lost");
        ADD_FAILURE() << "no error";
    } catch (const cr::FileError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write '" + link + "': " + std::strerror(EPIPE));
    }
    close(fds[1]);
}

TEST_F(OutputFile, DashAndTheFileOfStandardOutputGoToStandardOutput) {
    const std::string captured = dir + "/stdout.txt";
    std::fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    const int fd = open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    ASSERT_EQ(symlink("/proc/self/fd/1", (dir + "/out1").c_str()), 0);
    const cr::OutputTarget via_dash = cr::classify_output("-");
    const cr::OutputTarget via_link = cr::classify_output(dir + "/out1");
    cr::write_text_file("-", "one\n");
    cr::write_text_file(dir + "/out1", "two\n");
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    EXPECT_EQ(via_dash, cr::OutputTarget::StandardOutput);
    EXPECT_EQ(via_link, cr::OutputTarget::StandardOutput);
    EXPECT_EQ(slurp(captured), "one\ntwo\n");  // appended in order, not replaced
    EXPECT_TRUE(is_symlink_to(dir + "/out1", "/proc/self/fd/1"));
}

TEST_F(OutputFile, NullDeviceStaysADevice) {
    const std::string null_dev = dir + "/null";
    MAKE_CHAR_DEVICE_OR_SKIP(null_dev, 1, 3);
    EXPECT_EQ(cr::classify_output(null_dev), cr::OutputTarget::Special);
    cr::write_text_file(null_dev, std::string(100000, 'x'));
    EXPECT_TRUE(is_char_device(null_dev, 1, 3));
    EXPECT_EQ(entries(dir), std::set<std::string>{"null"});
}

TEST_F(OutputFile, FullDeviceIsAnErrorAndStaysADevice) {
    const std::string full_dev = dir + "/full";
    MAKE_CHAR_DEVICE_OR_SKIP(full_dev, 1, 7);
    try {
        cr::write_text_file(full_dev, "{}\n");
        ADD_FAILURE() << "writing to a full device succeeded";
    } catch (const cr::FileError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write '" + full_dev + "': " + std::strerror(ENOSPC));
    }
    EXPECT_TRUE(is_char_device(full_dev, 1, 7));
    EXPECT_EQ(entries(dir), std::set<std::string>{"full"});
}

TEST_F(OutputFile, SymlinkToADeviceIsWrittenThroughTheLink) {
    const std::string null_dev = dir + "/null";
    MAKE_CHAR_DEVICE_OR_SKIP(null_dev, 1, 3);
    ASSERT_EQ(symlink("null", (dir + "/to_null").c_str()), 0);
    cr::write_text_file(dir + "/to_null", "x");
    EXPECT_TRUE(is_symlink_to(dir + "/to_null", "null"));
    EXPECT_TRUE(is_char_device(null_dev, 1, 3));
}

// ---- the up-front checks (render/options.h) ----------------------------------

TEST_F(OutputFile, CheckWritableAcceptsSpecialTargets) {
    ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
    ASSERT_EQ(symlink("/proc/self/fd/1", (dir + "/out1").c_str()), 0);
    { std::ofstream(dir + "/file") << "x"; }
    ASSERT_EQ(symlink("file", (dir + "/link").c_str()), 0);
    EXPECT_NO_THROW(cr::check_writable("-"));
    EXPECT_NO_THROW(cr::check_writable(dir + "/fifo"));  // not opened: no reader needed
    EXPECT_NO_THROW(cr::check_writable(dir + "/out1"));
    EXPECT_NO_THROW(cr::check_writable(dir + "/link"));
    EXPECT_NO_THROW(cr::check_writable(dir + "/new.json"));
}

TEST_F(OutputFile, CheckWritableMakesNoProbeFileBesideADevice) {
    const std::string null_dev = dir + "/null";
    MAKE_CHAR_DEVICE_OR_SKIP(null_dev, 1, 3);
    const int in = inotify_init1(IN_NONBLOCK);
    ASSERT_GE(in, 0);
    ASSERT_GE(inotify_add_watch(in, dir.c_str(), IN_CREATE), 0);
    EXPECT_NO_THROW(cr::check_writable(null_dev));
    char buf[4096];
    EXPECT_EQ(read(in, buf, sizeof buf), -1) << "a file was created beside the device";
    close(in);
    EXPECT_TRUE(is_char_device(null_dev, 1, 3));
}

TEST_F(OutputFile, CheckWritableLooksAtTheLinksTargetFolder) {
    ASSERT_EQ(symlink((dir + "/gone/x.json").c_str(), (dir + "/link").c_str()), 0);
    try {
        cr::check_writable(dir + "/link");
        ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write '" + dir + "/link': folder '" + dir + "/gone' does not exist");
    }
    EXPECT_THROW(cr::check_writable(dir), std::invalid_argument);  // a folder
}

TEST_F(OutputFile, CheckOutputFolderCreatesAMissingFolder) {
    const std::string out = dir + "/a/b";
    EXPECT_TRUE(cr::check_output_folder(out, true));
    struct stat st;
    ASSERT_EQ(stat(out.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_FALSE(cr::check_output_folder(out, true));  // exists now: nothing created
    { std::ofstream(dir + "/plain") << "x"; }
    try {
        cr::check_output_folder(dir + "/plain", false);
        ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write to folder '" + dir + "/plain': it is not a folder");
    }
}

// ---- numbers as a person writes them ---------------------------------------

TEST(Numbers, FloatsAsWritten) {
    EXPECT_EQ(cr::as_written(1e-4f), 0.0001);
    EXPECT_EQ(cr::as_written(0.1f), 0.1);
    EXPECT_EQ(cr::as_written(0.01f), 0.01);
    EXPECT_EQ(cr::as_written(2.98023224e-08f), 2.9802322e-08);  // 8 digits are enough for this float
    EXPECT_EQ(cr::as_written(0.f), 0.0);
    EXPECT_EQ(nlohmann::json(cr::as_written(cr::kStrictTolerance)).dump(), "0.0001");
    EXPECT_EQ(nlohmann::json(cr::as_written(cr::kCourseTolerance)).dump(), "0.1");
}

TEST(Numbers, RoundSignificant) {
    EXPECT_EQ(cr::round_significant(0.0331493, 4), 0.03315);
    EXPECT_EQ(cr::round_significant(123.456789, 4), 123.5);
    EXPECT_EQ(cr::round_significant(0.0, 4), 0.0);
    EXPECT_EQ(nlohmann::json(cr::round_significant(0.000991234, 4)).dump(), "0.0009912");
}

TEST(Numbers, IntegersHaveNoMoreDigitsThanTheLimit) {
    long long v = -1;
    EXPECT_TRUE(cr::parse_integer("005", 1, 100, v));  // 3 digits, as 100 has
    EXPECT_EQ(v, 5);
    EXPECT_FALSE(cr::parse_integer("0005", 1, 100, v));
    EXPECT_EQ(v, 5);  // unchanged
    EXPECT_FALSE(cr::parse_integer("00000000005", 0, 4294967295ll, v));  // seeds: at most 10 digits
    EXPECT_FALSE(cr::parse_integer("101", 1, 100, v));
    EXPECT_FALSE(cr::parse_integer("1e2", 1, 1000, v));
    EXPECT_THROW(cr::parse_whole_number("00005", "--repeat", 1, 100, "use 1..100"), std::invalid_argument);
    EXPECT_EQ(cr::parse_whole_number("5", "--repeat", 1, 100, "use 1..100"), 5);
}

}  // namespace
