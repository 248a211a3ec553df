// Preset files: parsing and lookup.
#include "presets.hpp"

#include <alibi/base/data_dir.hpp>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace alibi::qt {

Result<Preset> parsePreset(const QByteArray& json, const QString& origin) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    auto bad = [&](const QString& what) {
        return fail(ErrorCode::BadInput, (origin + ": " + what).toStdString());
    };
    if (error.error != QJsonParseError::NoError) return bad(error.errorString());
    if (!doc.isObject()) return bad("expected a JSON object");
    const QJsonObject o = doc.object();
    Preset p;
    p.name = o.value("name").toString();
    p.source = o.value("source").toString();
    p.notes = o.value("notes").toString();
    if (p.name.isEmpty()) return bad("field `name` is missing");
    if (p.source.isEmpty()) return bad("field `source` is missing (name the published config)");
    p.heads = o.value("heads").toInt(0);
    if (p.heads < 1 || p.heads > kMaxHeads) return bad("field `heads` must be 1..4096");
    const auto mode = parseMode(o.value("mode").toString("causal").toStdString());
    if (!mode) return bad("field `mode`: unknown mode");
    p.mode = *mode;
    const auto scheme = parseScheme(o.value("scheme").toString("press").toStdString());
    if (!scheme || *scheme == SlopeScheme::Custom) return bad("field `scheme`: expected press, geometric or linear");
    p.scheme = *scheme;
    p.maxBias = o.value("max_bias").toDouble(8.0);
    p.trainLength = o.value("train_length").toInteger(0);
    if (p.trainLength < 0 || p.trainLength > kMaxLength) return bad("field `train_length` out of range");
    return p;
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

std::vector<Preset> loadPresets(const QStringList& folders, QStringList* problems) {
    std::vector<Preset> out;
    for (const QString& folder : folders) {
        QDir dir(folder);
        if (!dir.exists()) continue;
        for (const QString& name : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
            QFile file(dir.filePath(name));
            if (!file.open(QIODevice::ReadOnly) || file.size() > (1 << 20)) {
                if (problems) *problems << dir.filePath(name) + ": cannot read";
                continue;
            }
            auto preset = parsePreset(file.readAll(), name);
            if (preset) out.push_back(std::move(*preset));
            else if (problems) *problems << QString::fromStdString(preset.error().message);
        }
        if (!out.empty()) break;
    }
    return out;
}

Session applyPreset(Session s, const Preset& p) {
    auto& slopes = s.attention.bias.slopes;
    slopes.heads = p.heads;
    slopes.scheme = p.scheme;
    slopes.maxBias = p.maxBias;
    s.attention.bias.mode = p.mode;
    s.trainLength = p.trainLength;
    if (s.head >= p.heads) s.head = -1;
    return s;
}

}  // namespace alibi::qt
