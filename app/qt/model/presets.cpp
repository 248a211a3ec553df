// Preset lookup for the Qt explorer; parsing and applying are the core's.
#include "presets.hpp"

#include <alibi/base/data_dir.hpp>

#include <filesystem>

namespace alibi::qt {

std::vector<Preset> loadPresets(const QStringList& folders, QStringList* problems) {
    std::vector<std::filesystem::path> paths;
    for (const QString& folder : folders) paths.emplace_back(folder.toStdString());
    std::vector<std::string> messages;
    auto presets = alibi::loadPresets(paths, &messages);
    if (problems)
        for (const std::string& m : messages) *problems << QString::fromStdString(m);
    return presets;
}

QStringList presetFolders() {
    QStringList folders;
    for (const auto& dir : dataDirs()) folders << QString::fromStdString((dir / "presets").string());
    return folders;
}

QString exampleSessionFolder() {
    const auto dir = findDataDir("sessions");
    return dir ? QString::fromStdString(dir->string()) : QString();
}

Session withPreset(Session session, const Preset& preset) {
    applyPreset(session, preset);
    return session;
}

}  // namespace alibi::qt
