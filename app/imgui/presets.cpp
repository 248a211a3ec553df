// Preset files: parsing, lookup and application.
#include "presets.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace alibi::imgui {

Result<Preset> parsePreset(std::string_view json, const std::string& origin) {
    auto bad = [&](const std::string& what) { return fail(ErrorCode::BadInput, origin + ": " + what); };
    const nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
    if (doc.is_discarded()) return bad("not valid JSON");
    if (!doc.is_object()) return bad("expected a JSON object");
    auto text = [&](const char* key) {
        const auto it = doc.find(key);
        return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    Preset p;
    p.name = text("name");
    p.source = text("source");
    p.notes = text("notes");
    if (p.name.empty()) return bad("field `name` is missing");
    if (p.source.empty()) return bad("field `source` is missing (name the published config)");
    const auto heads = doc.find("heads");
    if (heads == doc.end() || !heads->is_number_integer()) return bad("field `heads` must be an integer 1..4096");
    p.heads = heads->get<int>();
    if (p.heads < 1 || p.heads > kMaxHeads) return bad("field `heads` must be 1..4096");
    const auto mode = parseMode(doc.contains("mode") ? text("mode") : "causal");
    if (!mode) return bad("field `mode`: unknown mode");
    p.mode = *mode;
    const auto scheme = parseScheme(doc.contains("scheme") ? text("scheme") : "press");
    if (!scheme || *scheme == SlopeScheme::Custom) return bad("field `scheme`: expected press, geometric or linear");
    p.scheme = *scheme;
    if (const auto it = doc.find("max_bias"); it != doc.end()) {
        if (!it->is_number()) return bad("field `max_bias` must be a number");
        p.maxBias = it->get<double>();
    }
    if (const auto it = doc.find("train_length"); it != doc.end()) {
        if (!it->is_number_integer()) return bad("field `train_length` must be an integer");
        p.trainLength = it->get<std::int64_t>();
    }
    if (p.trainLength < 0 || p.trainLength > kMaxLength) return bad("field `train_length` out of range");
    return p;
}

std::vector<Preset> loadPresets(const std::vector<std::string>& folders, std::vector<std::string>* problems) {
    namespace fs = std::filesystem;
    std::vector<Preset> out;
    for (const std::string& folder : folders) {
        std::error_code error;
        if (!fs::is_directory(folder, error)) continue;
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(folder, error))
            if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) {
            std::ifstream in(file);
            std::ostringstream text;
            text << in.rdbuf();
            if (!in || fs::file_size(file, error) > (1u << 20)) {
                if (problems != nullptr) problems->push_back(file.string() + ": cannot read");
                continue;
            }
            auto preset = parsePreset(text.str(), file.filename().string());
            if (preset) {
                out.push_back(std::move(*preset));
            } else if (problems != nullptr) {
                problems->push_back(preset.error().message);
            }
        }
        if (!out.empty()) break;
    }
    return out;
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

Session applyPreset(Session s, const Preset& p) {
    SlopeParams& slopes = s.attention.bias.slopes;
    slopes.heads = p.heads;
    slopes.scheme = p.scheme;
    slopes.maxBias = p.maxBias;
    s.attention.bias.mode = p.mode;
    s.trainLength = p.trainLength;
    return s;
}

bool matchesPreset(const Session& s, const Preset& p) {
    const SlopeParams& slopes = s.attention.bias.slopes;
    return slopes.heads == p.heads && slopes.scheme == p.scheme && slopes.maxBias == p.maxBias &&
           s.attention.bias.mode == p.mode && s.trainLength == p.trainLength;
}

}  // namespace alibi::imgui
