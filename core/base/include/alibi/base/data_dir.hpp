// Where the shared data lives at run time (presets, example sessions, lessons): found relative
// to the running executable, so an installed copy (PREFIX/bin/x -> PREFIX/share/alibi-explorer)
// and a build-tree copy (build/app/qt/x -> build/share/alibi-explorer, which CMake links to the
// source tree's assets/) both work without a compiled-in absolute path.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace alibi {

// The folder holding the running executable (from /proc/self/exe); empty when unknown.
[[nodiscard]] std::filesystem::path executableDir();

// The data folders to search, best first: $ALIBI_DATA_DIR when set, then
// <exe>/../share/alibi-explorer and the same under each further ancestor of the executable
// (a build tree's share/ sits one or two folders above its programs).
[[nodiscard]] std::vector<std::filesystem::path> dataDirs();
// The same for an executable in `exeDir` (testable without moving the executable).
[[nodiscard]] std::vector<std::filesystem::path> dataDirs(const std::filesystem::path& exeDir);

// The first `dataDirs()/sub` that is an existing folder ("presets", "sessions", "lessons").
[[nodiscard]] std::optional<std::filesystem::path> findDataDir(std::string_view sub);

}  // namespace alibi
