// Model presets: one JSON file per real ALiBi model under assets/presets/, each naming the
// published configuration its numbers come from. Applying a preset changes the head count,
// mode, slope scheme, max_bias and training length of a session and nothing else.
#pragma once

#include <alibi/io/session.hpp>

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace alibi::qt {

struct Preset {
    QString name;
    QString source;  // the published config/modeling file the numbers come from
    QString notes;
    int heads = 8;
    BiasMode mode = BiasMode::Causal;
    SlopeScheme scheme = SlopeScheme::Press;
    double maxBias = 8.0;
    std::int64_t trainLength = 0;
};

[[nodiscard]] Result<Preset> parsePreset(const QByteArray& json, const QString& origin);
// Every *.json in the first folder of `folders` that exists, sorted by name; bad files are
// skipped and described in `problems`.
[[nodiscard]] std::vector<Preset> loadPresets(const QStringList& folders, QStringList* problems = nullptr);
// The folders searched: share/alibi-explorer/presets relative to the executable (installed and
// build trees alike; see alibi/base/data_dir.hpp).
[[nodiscard]] QStringList presetFolders();
// The example sessions (share/alibi-explorer/sessions), where File > Open starts; empty if none.
[[nodiscard]] QString exampleSessionFolder();
[[nodiscard]] Session applyPreset(Session session, const Preset& preset);

}  // namespace alibi::qt
