// See inputs.hpp. One command runs per process, so a list local to this file is the whole state.
#include "inputs.hpp"

#include <alibi/io/output_file.hpp>

#include <vector>

namespace alibi::cli {
namespace {

std::vector<std::string>& inputs() {
    static std::vector<std::string> paths;
    return paths;
}

}  // namespace

void noteInput(const std::string& path) {
    inputs().push_back(path);
}

Result<void> checkNotAnInput(const std::string& output) {
    for (const auto& input : inputs())
        if (auto ok = refuseSameFile(output, input); !ok) return ok;
    return {};
}

}  // namespace alibi::cli
