// The table of field_names.hpp and the rewording of CLI-worded messages.
#include <alibi/base/field_names.hpp>

#include <algorithm>
#include <array>

namespace alibi {
namespace {

constexpr std::array kFields{
    FieldNames{Field::Heads, "--heads", "heads", "Heads H", "bias.heads"},
    FieldNames{Field::Scheme, "--scheme", "scheme", "Scheme"},
    FieldNames{Field::MaxBias, "--max-bias", "max_bias", "max_bias B"},
    FieldNames{Field::Slopes, "--slopes", "slopes", "Custom slopes", "bias.slopes"},
    FieldNames{Field::Dtype, "--dtype", "dtype", "Dtype"},
    FieldNames{Field::Arith, "--arith", "arith", "Arithmetic"},
    FieldNames{Field::Seq, "--seq", "seq", "Length T"},
    FieldNames{Field::Keys, "--keys", "keys", "Keys K"},
    FieldNames{Field::Mode, "--mode", "mode", "Mode"},
    FieldNames{Field::Mask, "--mask", "mask", "Mask"},
    FieldNames{Field::Layout, "--layout", "layout", "Layout"},
    FieldNames{Field::Lengths, "--lengths", "lengths", "Lengths"},
    FieldNames{Field::Padding, "--padding", "padding", "Padding"},
    FieldNames{Field::Documents, "--documents", "documents", "Documents"},
    FieldNames{Field::Window, "--window", "window", "Window"},
    FieldNames{Field::Prefix, "--prefix", "prefix", "Prefix"},
    FieldNames{Field::Positions, "--positions", "positions", "Positions"},
    FieldNames{Field::BatchRow, "--batch-row", "batch_row", "Batch row", "batch.row"},
    FieldNames{Field::Query, "--query", "query", "Query row", "attention.query"},
    FieldNames{Field::Head, "--head", "head", "Head", "view.head"},
    FieldNames{Field::Width, "--width", "width", "Width"},
    FieldNames{Field::Height, "--height", "height", "Height"},
    FieldNames{Field::PixelRatio, "--pixel-ratio", "pixel_ratio", "Pixel ratio"},
    FieldNames{Field::Preset, "--preset", "preset", "Preset"},
    FieldNames{Field::FromConfig, "--from-config", "from_config", "Import config.json"},
    FieldNames{Field::MaxMemory, "--max-memory", "max_memory", "Memory budget"},
    FieldNames{Field::Rows, "--rows", "rows", "Rows"},
    FieldNames{Field::Layer, "--layer", "layer", "Layer"},
    FieldNames{Field::What, "--what", "what", "View"},
    FieldNames{Field::Values, "--values", "values", "Values"},
    FieldNames{Field::Tensor, "--tensor", "tensor", "Tensor"},
    FieldNames{Field::Content, "--content", "content", "Content"},
    FieldNames{Field::Seed, "--seed", "seed", "Seed"},
    FieldNames{Field::Sigma, "--sigma", "sigma", "σ"},
    FieldNames{Field::Dk, "--dk", "dk", "d_k"},
    FieldNames{Field::Temperature, "--temperature", "temperature", "Temperature"},
    FieldNames{Field::SlopeScale, "--slope-scale", "slope_scale", "B: slopes ×", "model.slope_scale"},
    FieldNames{Field::SlopeScheme, "--slope-scheme", "slope_scheme", "B scheme", "model.slope_scheme"},
    FieldNames{Field::SlopeMaxBias, "--slope-max-bias", "slope_max_bias", "B max_bias", "model.slope_max_bias"},
    FieldNames{Field::HeadSlope, "--head-slope", "head_slopes", "B heads", "model.head_slopes"},
    FieldNames{Field::Length, "--length", "length", "Length", "model.length"},
    FieldNames{Field::Text, "--text", "text", "Text", "model.text"},
};

bool flagChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

}  // namespace

std::span<const FieldNames> fieldTable() {
    return kFields;
}

std::string_view fieldName(Field field, FrontEnd frontEnd) {
    for (const FieldNames& f : kFields)
        if (f.field == field)
            return frontEnd == FrontEnd::Cli ? f.cli : frontEnd == FrontEnd::Python ? f.python : f.gui;
    return {};
}

std::optional<Field> fieldOfFlag(std::string_view flag) {
    for (const FieldNames& f : kFields)
        if (f.cli == flag) return f.field;
    return std::nullopt;
}

std::string wordMessage(std::string_view message, FrontEnd frontEnd) {
    if (frontEnd == FrontEnd::Cli) return std::string(message);
    std::string out;
    out.reserve(message.size());
    std::size_t i = 0;
    constexpr std::string_view kSessionField = "session field `";
    while (i < message.size()) {
        if (message.compare(i, kSessionField.size(), kSessionField) == 0) {
            const std::size_t start = i + kSessionField.size();
            const std::size_t close = message.find('`', start);
            if (close != std::string_view::npos) {
                const std::string_view name = message.substr(start, close - start);
                const auto f = std::find_if(kFields.begin(), kFields.end(), [&](const FieldNames& n) {
                    return !n.session.empty() && n.session == name;
                });
                if (f != kFields.end()) {
                    out += fieldName(f->field, frontEnd);
                    i = close + 1;
                    continue;
                }
            }
        }
        if (message.compare(i, 2, "--") == 0 && (i == 0 || !flagChar(message[i - 1]))) {
            std::size_t end = i + 2;
            while (end < message.size() && flagChar(message[end])) ++end;
            if (const auto field = fieldOfFlag(message.substr(i, end - i))) {
                out += fieldName(*field, frontEnd);
                i = end;
                continue;
            }
        }
        out += message[i++];
    }
    return out;
}

}  // namespace alibi
