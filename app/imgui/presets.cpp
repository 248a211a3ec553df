// Preset lookup for the ImGui explorer; parsing, applying and matching are the core's.
#include "presets.hpp"

#include <filesystem>

namespace alibi::imgui {

std::vector<Preset> loadPresets(const std::vector<std::string>& folders, std::vector<std::string>* problems) {
    std::vector<std::filesystem::path> paths(folders.begin(), folders.end());
    return alibi::loadPresets(paths, problems);
}

std::vector<std::string> presetFolders() {
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error).parent_path();
    std::vector<std::string> folders{(exe / "../share/alibi-explorer/presets").string(), (exe / "presets").string()};
#ifdef ALIBI_SOURCE_ASSETS
    folders.push_back(std::string(ALIBI_SOURCE_ASSETS) + "/presets");
#endif
    return folders;
}

Session withPreset(Session session, const Preset& preset) {
    applyPreset(session, preset);
    return session;
}

}  // namespace alibi::imgui
