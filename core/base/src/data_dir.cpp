// The run-time data folder lookup of data_dir.hpp.
#include <alibi/base/data_dir.hpp>

#include <cstdlib>
#include <system_error>

namespace alibi {
namespace {

// How many ancestors of the executable's folder are tried: PREFIX/bin needs one, a build
// tree's build/app/qt needs three.
constexpr int kAncestors = 4;

}  // namespace

std::filesystem::path executableDir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path();
}

std::vector<std::filesystem::path> dataDirs() {
    return dataDirs(executableDir());
}

std::vector<std::filesystem::path> dataDirs(const std::filesystem::path& exeDir) {
    std::vector<std::filesystem::path> dirs;
    if (const char* env = std::getenv("ALIBI_DATA_DIR"); env && *env) dirs.emplace_back(env);
    std::filesystem::path dir = exeDir;
    for (int i = 0; i < kAncestors && !dir.empty(); ++i) {
        dir = dir.parent_path();
        dirs.push_back(dir / "share" / "alibi-explorer");
        if (dir == dir.root_path()) break;
    }
    return dirs;
}

std::optional<std::filesystem::path> findDataDir(std::string_view sub) {
    for (const auto& dir : dataDirs()) {
        std::error_code ec;
        const auto candidate = dir / sub;
        if (std::filesystem::is_directory(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

}  // namespace alibi
