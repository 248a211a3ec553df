// Model presets: the JSON files under assets/presets/ the Qt explorer reads too, one per real ALiBi
// model, each naming the published configuration its numbers come from. Applying one changes the
// head count, mode, slope scheme, max_bias and training length of a session, nothing else.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/io/session.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace alibi::imgui {

struct Preset {
    std::string name;
    std::string source;  // the published config/modeling file the numbers come from
    std::string notes;
    int heads = 8;
    BiasMode mode = BiasMode::Causal;
    SlopeScheme scheme = SlopeScheme::Press;
    double maxBias = 8.0;
    std::int64_t trainLength = 0;
};

// `origin` names the file in messages.
[[nodiscard]] Result<Preset> parsePreset(std::string_view json, const std::string& origin);
// Every *.json of the first folder that exists, sorted by file name; bad files are skipped and
// described in `problems`.
[[nodiscard]] std::vector<Preset> loadPresets(const std::vector<std::string>& folders,
                                              std::vector<std::string>* problems = nullptr);
// The folders searched: installed share folder, next to the executable, then the source tree.
[[nodiscard]] std::vector<std::string> presetFolders();
[[nodiscard]] Session applyPreset(Session session, const Preset& preset);
// True when the session still has the preset's settings (the box names it only then).
[[nodiscard]] bool matchesPreset(const Session& session, const Preset& preset);

}  // namespace alibi::imgui
