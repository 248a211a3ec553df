// Tests for <alibi/base/data_dir.hpp>: the run-time data folder relative to the executable.
#include <alibi/base/data_dir.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

using namespace alibi;

TEST(DataDir, InstalledLayoutComesFirst) {
    unsetenv("ALIBI_DATA_DIR");
    const auto dirs = dataDirs("/opt/alibi/bin");
    ASSERT_FALSE(dirs.empty());
    EXPECT_EQ(dirs.front(), std::filesystem::path("/opt/alibi/share/alibi-explorer"));
    // A build tree's programs sit deeper (build/app/qt): an ancestor's share/ is tried too.
    const auto deep = dataDirs("/src/build/app/qt");
    EXPECT_NE(std::find(deep.begin(), deep.end(), std::filesystem::path("/src/build/share/alibi-explorer")),
              deep.end());
}

TEST(DataDir, EnvironmentOverrides) {
    setenv("ALIBI_DATA_DIR", "/somewhere/data", 1);
    EXPECT_EQ(dataDirs("/usr/bin").front(), std::filesystem::path("/somewhere/data"));
    unsetenv("ALIBI_DATA_DIR");
}

TEST(DataDir, BuildTreeFindsTheAssets) {
    // The test program runs from the build tree, whose share/alibi-explorer links to assets/.
    unsetenv("ALIBI_DATA_DIR");
    EXPECT_FALSE(executableDir().empty());
    const auto presets = findDataDir("presets");
    ASSERT_TRUE(presets) << "no share/alibi-explorer/presets above " << executableDir();
    EXPECT_TRUE(std::filesystem::exists(*presets / "bloom-176b.json"));
    EXPECT_TRUE(findDataDir("sessions"));
    EXPECT_FALSE(findDataDir("no-such-folder"));
}
