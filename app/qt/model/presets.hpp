// Model presets in the Qt explorer: the core's preset files (alibi/io/preset.hpp, one JSON file per
// real ALiBi model under assets/presets/, each naming the published configuration its numbers come
// from), found in the data folders. Applying one sets heads, mode, scheme, max_bias, training length
// and the model's arithmetic profile, nothing else.
#pragma once

#include <alibi/io/preset.hpp>
#include <alibi/io/session.hpp>

#include <QString>
#include <QStringList>

#include <vector>

namespace alibi::qt {

using alibi::Preset;

// The presets of the first of `folders` that holds any, sorted by id (the core's loadPresets);
// bad files are skipped and described in `problems`.
[[nodiscard]] std::vector<Preset> loadPresets(const QStringList& folders, QStringList* problems = nullptr);
// The folders searched: share/alibi-explorer/presets relative to the executable (installed and
// build trees alike; see alibi/base/data_dir.hpp).
[[nodiscard]] QStringList presetFolders();
// The example sessions (share/alibi-explorer/sessions), where File > Open starts; empty if none.
[[nodiscard]] QString exampleSessionFolder();
// `session` with the preset applied (the core's applyPreset).
[[nodiscard]] Session withPreset(Session session, const Preset& preset);

}  // namespace alibi::qt
