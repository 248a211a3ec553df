// Presets and Hugging Face configurations (see preset.hpp). Parsing is strict in the style of
// session files: a missing or mistyped field is an error naming it, never a silent default that
// would show another model's bias.
#include <alibi/io/preset.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <alibi/io/json_value.hpp>
#include <cctype>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>
#include <sstream>

namespace alibi {
namespace {

using Json = nlohmann::json;

constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{1} << 20;

Result<Json> parseJson(std::string_view text, const std::string& origin) {
    Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return fail(ErrorCode::BadInput, fmt::format("{}: not valid JSON", origin));
    if (!doc.is_object()) return fail(ErrorCode::BadInput, fmt::format("{}: expected a JSON object", origin));
    return doc;
}

Result<std::string> readSmallFile(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return fail(ErrorCode::Io, fmt::format("{}: cannot read ({})", path.string(), ec.message()));
    if (size > kMaxConfigBytes)
        return fail(ErrorCode::BadInput,
                    fmt::format("{}: {} bytes is too large for a configuration file", path.string(), size));
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(ErrorCode::Io, fmt::format("{}: cannot open", path.string()));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// ---------------------------------------------------------------------------
// Hugging Face config keys

struct ConfigReader {
    const Json& doc;
    const std::string& origin;
    std::string modelType;
    std::vector<std::string> keysRead;

    // The first of `keys` present as an integer in [lo, hi].
    Result<std::int64_t> integer(std::initializer_list<const char*> keys, std::int64_t lo, std::int64_t hi) {
        for (const char* key : keys) {
            if (!doc.contains(key)) continue;
            const Json& v = doc[key];
            if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
                return fail(ErrorCode::BadInput, fmt::format("{}: `{}` must be a whole number from {} to {}, got {}",
                                                             origin, key, lo, hi, v.dump()));
            keysRead.push_back(fmt::format("{} {}", key, v.get<std::int64_t>()));
            return v.get<std::int64_t>();
        }
        std::string names;
        for (const char* key : keys) names += fmt::format("{}`{}`", names.empty() ? "" : " or ", key);
        return fail(ErrorCode::BadInput,
                    fmt::format("{}: the {} configuration has no {}: add it, or give --heads, --max-bias and --mode "
                                "instead of --from-config",
                                origin, modelType, names));
    }
    std::int64_t optionalInteger(std::initializer_list<const char*> keys, std::int64_t fallback) {
        for (const char* key : keys)
            if (doc.contains(key)) {
                auto v = integer({key}, 1, kMaxLength);
                return v ? *v : fallback;
            }
        return fallback;
    }
};

}  // namespace

Result<Preset> parsePreset(std::string_view json, const std::string& origin) {
    auto doc = parseJson(json, origin);
    if (!doc) return std::unexpected(doc.error());
    const auto bad = [&](const std::string& what) {
        return fail(ErrorCode::BadInput, fmt::format("{}: {}", origin, what));
    };
    const auto text = [&](const char* key) -> std::string {
        return doc->contains(key) && (*doc)[key].is_string() ? (*doc)[key].get<std::string>() : std::string();
    };
    Preset p;
    p.name = text("name");
    p.source = text("source");
    p.notes = text("notes");
    if (p.name.empty()) return bad("field `name` is missing");
    if (p.source.empty()) return bad("field `source` is missing (name the published config)");
    if (!doc->contains("heads") || !(*doc)["heads"].is_number_integer() || (*doc)["heads"].get<int>() < 1 ||
        (*doc)["heads"].get<int>() > kMaxHeads)
        return bad(fmt::format("field `heads` must be a whole number from 1 to {}", kMaxHeads));
    p.heads = (*doc)["heads"].get<int>();
    const auto mode = parseMode(jsonStringOr(*doc, "mode", "causal"));
    if (!mode) return bad("field `mode`: expected causal, symmetric, clamped, bloom or mpt");
    p.mode = *mode;
    const auto scheme = parseScheme(jsonStringOr(*doc, "scheme", "press"));
    if (!scheme || *scheme == SlopeScheme::Custom) return bad("field `scheme`: expected press, geometric or linear");
    p.scheme = *scheme;
    if (doc->contains("max_bias")) {
        if (!(*doc)["max_bias"].is_number() || (*doc)["max_bias"].get<double>() < 0 ||
            (*doc)["max_bias"].get<double>() > 1000)
            return bad("field `max_bias` must be a number from 0 to 1000");
        p.maxBias = (*doc)["max_bias"].get<double>();
    }
    if (doc->contains("train_length")) {
        if (!(*doc)["train_length"].is_number_integer() || (*doc)["train_length"].get<std::int64_t>() < 0 ||
            (*doc)["train_length"].get<std::int64_t>() > kMaxLength)
            return bad(fmt::format("field `train_length` must be a whole number from 0 to {}", kMaxLength));
        p.trainLength = (*doc)["train_length"].get<std::int64_t>();
    }
    const auto arith = parseArith(jsonStringOr(*doc, "arith", "exact"));
    if (!arith) return bad("field `arith`: expected exact, hf-bloom, hf-falcon, llm-foundry, fairseq or ggml");
    p.arith = *arith;
    // "bias_scale": "inv_sqrt_head_dim" with "head_dim": d (Falcon), or a number.
    if (doc->contains("head_dim")) {
        if (!(*doc)["head_dim"].is_number_integer() || (*doc)["head_dim"].get<int>() < 1 ||
            (*doc)["head_dim"].get<int>() > 65536)
            return bad("field `head_dim` must be a whole number from 1 to 65536");
        p.headDim = (*doc)["head_dim"].get<int>();
    }
    if (doc->contains("bias_scale")) {
        const auto& v = (*doc)["bias_scale"];
        if (v.is_string() && v.get<std::string>() == "inv_sqrt_head_dim" && p.headDim > 0)
            p.biasScale = 1.0 / std::sqrt(static_cast<double>(p.headDim));
        else if (v.is_number() && v.get<double>() > 0)
            p.biasScale = v.get<double>();
        else
            return bad("field `bias_scale`: expected a positive number, or \"inv_sqrt_head_dim\" with `head_dim`");
    }
    if (doc->contains("conventions") && (*doc)["conventions"].is_array())
        for (const auto& c : (*doc)["conventions"])
            if (c.is_string()) p.conventions.push_back(c.get<std::string>());
    return p;
}

Result<std::vector<Preset>> loadPresetFolder(const std::filesystem::path& folder) {
    std::vector<Preset> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.path().extension() != ".json" || !entry.is_regular_file()) continue;
        auto text = readSmallFile(entry.path());
        if (!text) return std::unexpected(text.error());
        auto preset = parsePreset(*text, entry.path().string());
        if (!preset) return std::unexpected(preset.error());
        preset->id = entry.path().stem().string();
        out.push_back(std::move(*preset));
    }
    if (ec) return fail(ErrorCode::Io, fmt::format("{}: cannot list presets ({})", folder.string(), ec.message()));
    std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.id < b.id; });
    return out;
}

std::vector<Preset> loadPresets(const std::vector<std::filesystem::path>& folders, std::vector<std::string>* problems) {
    for (const auto& folder : folders) {
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec)) continue;
        std::vector<Preset> out;
        for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
            if (entry.path().extension() != ".json" || !entry.is_regular_file()) continue;
            auto text = readSmallFile(entry.path());
            auto preset =
                text ? parsePreset(*text, entry.path().string()) : Result<Preset>(std::unexpected(text.error()));
            if (!preset) {
                if (problems) problems->push_back(preset.error().message);
                continue;
            }
            preset->id = entry.path().stem().string();
            out.push_back(std::move(*preset));
        }
        std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.id < b.id; });
        if (!out.empty()) return out;
    }
    return {};
}

Result<Preset> findPreset(std::string_view name, const std::vector<std::filesystem::path>& folders) {
    std::error_code ec;
    if (name.ends_with(".json") && std::filesystem::is_regular_file(std::filesystem::path(name), ec)) {
        auto text = readSmallFile(std::filesystem::path(name));
        if (!text) return std::unexpected(text.error());
        auto preset = parsePreset(*text, std::string(name));
        if (preset) preset->id = std::filesystem::path(name).stem().string();
        return preset;
    }
    for (const auto& folder : folders) {
        if (!std::filesystem::is_directory(folder, ec)) continue;
        auto presets = loadPresetFolder(folder);
        if (!presets) return std::unexpected(presets.error());
        if (presets->empty()) continue;
        const std::string wanted = lower(name);
        for (const Preset& p : *presets)
            if (p.id == wanted || lower(p.name) == wanted) return p;
        std::string ids;
        for (const Preset& p : *presets) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", p.id);
        return fail(ErrorCode::InvalidArgument, fmt::format("no preset called '{}'; the presets are: {}", name, ids));
    }
    return fail(ErrorCode::Io,
                "no preset folder found (assets/presets next to the program or in the source tree); "
                "give a preset file instead: --preset path/to/model.json");
}

Result<Preset> presetFromHfConfig(std::string_view json, const std::string& origin) {
    auto parsed = parseJson(json, origin);
    if (!parsed) return std::unexpected(parsed.error());
    const Json& doc = *parsed;
    ConfigReader r{doc, origin, lower(jsonStringOr(doc, "model_type", "")), {}};
    Preset p;
    p.id = "from-config";
    p.name = doc.contains("_name_or_path") && doc["_name_or_path"].is_string() ? doc["_name_or_path"].get<std::string>()
                                                                               : origin;
    const auto heads = [&](std::initializer_list<const char*> keys) -> Result<void> {
        auto h = r.integer(keys, 1, kMaxHeads);
        if (!h) return std::unexpected(h.error());
        p.heads = static_cast<int>(*h);
        return {};
    };
    Result<void> ok;
    if (r.modelType == "bloom") {
        ok = heads({"n_head", "num_attention_heads"});
        p.mode = BiasMode::Bloom;
        p.arith = Arith::HfBloom;
        p.trainLength = r.optionalInteger({"seq_length"}, 2048);
        p.notes = "BLOOM builds +m*j from the attention mask's positions (cumsum(mask) - 1).";
    } else if (r.modelType == "falcon" || r.modelType == "refinedweb" || r.modelType == "refinedwebmodel") {
        if (!jsonBoolOr(doc, "alibi", false))
            return fail(ErrorCode::BadInput, fmt::format("{}: this {} configuration has `alibi` false or missing: the "
                                                         "model uses rotary embeddings, not ALiBi",
                                                         origin, r.modelType));
        r.keysRead.push_back("alibi true");
        ok = heads({"num_attention_heads", "n_head"});
        p.mode = BiasMode::Bloom;
        p.arith = Arith::HfFalcon;
        // FalconAttention.forward multiplies (scores + alibi) by inv_norm_factor = 1/sqrt(head_dim).
        if (ok && doc.contains("hidden_size") && doc["hidden_size"].is_number_integer() && p.heads > 0 &&
            doc["hidden_size"].get<int>() % p.heads == 0) {
            p.headDim = doc["hidden_size"].get<int>() / p.heads;
            p.biasScale = 1.0 / std::sqrt(static_cast<double>(p.headDim));
            r.keysRead.push_back(fmt::format("hidden_size {} (head_dim {})", doc["hidden_size"].get<int>(), p.headDim));
            p.conventions.push_back(
                "transformers models/falcon/modeling_falcon.py, FalconAttention.forward: the "
                "alibi is added to the raw scores and the sum multiplied by inv_norm_factor = "
                "1/sqrt(head_dim)");
        }
        p.trainLength = r.optionalInteger({"max_position_embeddings"}, 2048);
    } else if (r.modelType == "mpt") {
        const Json attn = doc.value("attn_config", Json::object());
        if (!attn.is_object() || !jsonBoolOr(attn, "alibi", false))
            return fail(
                ErrorCode::BadInput,
                fmt::format("{}: this MPT configuration has no `attn_config.alibi: true`; it does not use ALiBi",
                            origin));
        r.keysRead.push_back("attn_config.alibi true");
        ok = heads({"n_heads"});
        if (attn.contains("alibi_bias_max")) {
            if (!attn["alibi_bias_max"].is_number())
                return fail(ErrorCode::BadInput,
                            fmt::format("{}: `attn_config.alibi_bias_max` must be a number", origin));
            p.maxBias = attn["alibi_bias_max"].get<double>();
            r.keysRead.push_back(fmt::format("attn_config.alibi_bias_max {}", p.maxBias));
        }
        p.mode = BiasMode::Mpt;
        p.arith = Arith::LlmFoundry;
        auto len = r.integer({"max_seq_len"}, 1, kMaxLength);
        if (!len) return std::unexpected(len.error());
        p.trainLength = *len;
    } else if (r.modelType == "baichuan") {
        ok = heads({"num_attention_heads"});
        p.mode = BiasMode::Bloom;
        p.arith = Arith::Fairseq;  // _get_interleave in Python floats, torch.Tensor, slope * arange
        p.trainLength = r.optionalInteger({"model_max_length", "max_position_embeddings"}, 4096);
    } else if (r.modelType == "jais") {
        if (jsonStringOr(doc, "position_embedding_type", "") != "alibi")
            return fail(ErrorCode::BadInput, fmt::format("{}: this JAIS configuration has no `position_embedding_type: "
                                                         "\"alibi\"`",
                                                         origin));
        ok = heads({"n_head", "num_attention_heads"});
        p.mode = BiasMode::Causal;
        auto len = r.integer({"n_positions"}, 1, kMaxLength);
        if (!len) return std::unexpected(len.error());
        p.trainLength = *len;
    } else if (r.modelType == "bert" || r.modelType == "jina_bert" || doc.contains("alibi_starting_size") ||
               jsonStringOr(doc, "position_embedding_type", "") == "alibi") {
        if (jsonStringOr(doc, "position_embedding_type", "") != "alibi" && !doc.contains("alibi_starting_size"))
            return fail(ErrorCode::BadInput, fmt::format("{}: this BERT configuration has neither "
                                                         "`position_embedding_type: \"alibi\"` (jina) nor "
                                                         "`alibi_starting_size` (MosaicBERT): it does not use ALiBi",
                                                         origin));
        ok = heads({"num_attention_heads"});
        p.mode = BiasMode::Symmetric;
        p.trainLength = r.optionalInteger({"alibi_starting_size", "max_position_embeddings"}, 512);
    } else {
        return fail(ErrorCode::BadInput,
                    fmt::format("{}: model_type '{}' is not an ALiBi model this reader knows; supported: bloom, falcon "
                                "(alibi true), mpt, baichuan, jais, bert/jina_bert (alibi); give --heads, --max-bias "
                                "and --mode instead",
                                origin, r.modelType.empty() ? std::string("(missing)") : r.modelType));
    }
    if (!ok) return std::unexpected(ok.error());
    std::string keys;
    for (const auto& k : r.keysRead) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    p.source = fmt::format("{} (model_type {}: {})", origin, r.modelType, keys);
    return p;
}

void applyPreset(Session& session, const Preset& preset) {
    auto& slopes = session.attention.bias.slopes;
    slopes.heads = preset.heads;
    slopes.scheme = preset.scheme;
    slopes.maxBias = preset.maxBias;
    slopes.custom.clear();
    slopes.arith = preset.arith;
    session.attention.bias.mode = preset.mode;
    session.trainLength = preset.trainLength;
    if (session.head >= preset.heads) session.head = -1;
}

bool presetMatches(const Session& session, const Preset& preset) {
    const SlopeParams& slopes = session.attention.bias.slopes;
    return slopes.heads == preset.heads && slopes.scheme == preset.scheme && slopes.maxBias == preset.maxBias &&
           slopes.arith == preset.arith && session.attention.bias.mode == preset.mode &&
           session.trainLength == preset.trainLength;
}

}  // namespace alibi
