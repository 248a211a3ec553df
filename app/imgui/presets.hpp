// Model presets in the ImGui explorer: the core's preset files (alibi/io/preset.hpp, the same
// assets/presets/ the Qt explorer and `alibi --preset` read), found next to the executable or in
// the source tree. Applying one sets heads, mode, scheme, max_bias, training length and the model's
// arithmetic profile, nothing else; the box names a preset while alibi::presetMatches holds.
#pragma once

#include <alibi/io/preset.hpp>
#include <alibi/io/session.hpp>

#include <string>
#include <vector>

namespace alibi::imgui {

using alibi::Preset;

// The presets of the first of `folders` that holds any (the core's loadPresets); bad files are
// skipped and described in `problems`.
[[nodiscard]] std::vector<Preset> loadPresets(const std::vector<std::string>& folders,
                                              std::vector<std::string>* problems = nullptr);
// The folders searched: installed share folder, next to the executable, then the source tree.
[[nodiscard]] std::vector<std::string> presetFolders();
// `session` with the preset applied (the core's applyPreset).
[[nodiscard]] Session withPreset(Session session, const Preset& preset);

}  // namespace alibi::imgui
