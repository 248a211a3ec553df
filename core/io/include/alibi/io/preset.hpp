// Model presets and Hugging Face configurations: the ALiBi parameters of a published model
// (heads, max_bias, bias form, training length, arithmetic profile), each naming its source.
// Preset files live in assets/presets/ (one JSON object per model); `presetFromHfConfig` reads a
// model's own config.json (BLOOM, Falcon, MPT, Baichuan, JAIS, jina/BERT key names).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

struct Preset {
    std::string id;      // file stem, the name --preset takes ("bloom-176b")
    std::string name;    // "BLOOM-176B"
    std::string source;  // the published config and modeling code the numbers come from
    std::string notes;
    int heads = 8;
    BiasMode mode = BiasMode::Causal;
    SlopeScheme scheme = SlopeScheme::Press;
    double maxBias = 8.0;
    std::int64_t trainLength = 0;
    Arith arith = Arith::Exact;  // the arithmetic of the model's own code
    // What the model's code does beyond textbook ALiBi, for `alibi diagnose --preset`: the scale
    // its attention applies to the bias (Falcon multiplies logits and bias by 1/sqrt(head_dim)),
    // and each convention with the source line it comes from ("file, function: what").
    double biasScale = 1.0;
    int headDim = 0;  // with biasScale: the head_dim it is 1/sqrt of (0: none)
    std::vector<std::string> conventions;
};

// Parses one preset file's text; `origin` names it in messages.
[[nodiscard]] Result<Preset> parsePreset(std::string_view json, const std::string& origin);

// Every *.json of `folder`, sorted by id; a bad file is an error naming it.
[[nodiscard]] Result<std::vector<Preset>> loadPresetFolder(const std::filesystem::path& folder);

// The explorers' list: the presets of the first of `folders` that holds any, sorted by id; a bad
// file is skipped and its message added to `problems` (so one broken file hides no other).
[[nodiscard]] std::vector<Preset> loadPresets(const std::vector<std::filesystem::path>& folders,
                                              std::vector<std::string>* problems = nullptr);

// The preset called `name` (its id, or its display name, case-insensitive) in the first of
// `folders` that holds presets, or a path to a preset file. The error lists the known ids.
[[nodiscard]] Result<Preset> findPreset(std::string_view name, const std::vector<std::filesystem::path>& folders);

// A Hugging Face config.json read into a preset (source: `origin` and the keys read). Errors name
// the missing key and the model_type it is needed for.
[[nodiscard]] Result<Preset> presetFromHfConfig(std::string_view json, const std::string& origin);

// Heads, scheme, max_bias, mode, training length and arithmetic of the session; nothing else.
void applyPreset(Session& session, const Preset& preset);
// True while the session still has every setting applyPreset gave it (an explorer names the
// preset only then).
[[nodiscard]] bool presetMatches(const Session& session, const Preset& preset);

}  // namespace alibi
