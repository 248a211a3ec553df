// The names a parameter goes by in each front end, in one table: the CLI's flag ("--lengths"),
// Python's keyword ("lengths") and the explorers' field label ("Lengths"). Core messages about a
// parameter name it by its CLI flag; wordMessage turns such a message into another front end's
// words, so Python and the GUIs never show a flag they do not have.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace alibi {

enum class Field {
    Heads,
    Scheme,
    MaxBias,
    Slopes,
    Dtype,
    Arith,
    Seq,
    Keys,
    Mode,
    Mask,
    Layout,
    Lengths,
    Padding,
    Documents,
    Window,
    Prefix,
    Positions,
    BatchRow,
    Query,
    Head,
    Width,
    Height,
    PixelRatio,
    Preset,
    FromConfig,
    MaxMemory,
    Rows,
    Layer,
    What,
    Values,
    Tensor,
    Content,
    Seed,
    Sigma,
    Dk,
    Temperature,
    // A model run on text (alibi run / loss, ax.run / ax.loss, the explorers' Model view).
    SlopeScale,
    SlopeScheme,
    SlopeMaxBias,
    HeadSlope,
    Length,
    Text,
};

enum class FrontEnd { Cli, Python, Gui };

struct FieldNames {
    Field field;
    std::string_view cli;           // "--batch-row"
    std::string_view python;        // "batch_row"
    std::string_view gui;           // "Batch row"
    std::string_view session = {};  // "batch.row": its field in a session file, if it has one there
};

[[nodiscard]] std::span<const FieldNames> fieldTable();
[[nodiscard]] std::string_view fieldName(Field field, FrontEnd frontEnd);
// The field a CLI flag names ("--lengths" -> Lengths); nullopt for a flag not in the table.
[[nodiscard]] std::optional<Field> fieldOfFlag(std::string_view flag);

// `message` (a core message naming parameters by their CLI flags) in `frontEnd`'s words: each
// flag of the table replaced by that front end's name (whole flags only: "--keys" is not the
// start of "--keys-x"), and each "session field `x`" of the table by that name too. Cli returns
// the message unchanged.
[[nodiscard]] std::string wordMessage(std::string_view message, FrontEnd frontEnd);

}  // namespace alibi
