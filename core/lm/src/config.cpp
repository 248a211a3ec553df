// See config.hpp. Field names and defaults follow the published code: HF transformers'
// BloomConfig, MptConfig and FalconConfig (with the names tiiuae's RW configs use: n_layer,
// n_head, n_embed), llm-foundry's MPTConfig (attn_config, ffn_config, no_bias, learned_pos_emb,
// logit_scale) and its gen_slopes (alibi_bias_max).
#include <alibi/lm/config.hpp>

#include <alibi/base/json_depth.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <alibi/io/json_value.hpp>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace alibi::lm {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;

std::unexpected<Error> bad(const std::string& what, std::string message) {
    return fail(ErrorCode::BadInput, fmt::format("{}: {}", what, std::move(message)));
}

// A short, printable excerpt of a value for messages.
std::string shown(const json& v) {
    std::string text = v.dump(-1, ' ', true, json::error_handler_t::replace);
    if (text.size() > 48) text = text.substr(0, 45) + "...";
    return text;
}

Result<json> parseObject(std::string_view text, const std::string& what) {
    if (text.size() > kMaxConfigBytes)
        return fail(ErrorCode::TooLarge, fmt::format("{}: {} bytes, far larger than a model's config (at most {} are "
                                                     "read)",
                                                     what, text.size(), kMaxConfigBytes));
    if (jsonDepth(text) > kMaxJsonDepth)
        return bad(what, fmt::format("JSON nested more than {} levels deep; the file is damaged", kMaxJsonDepth));
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) return bad(what, "not valid JSON");
    if (!doc.is_object()) return bad(what, "the JSON is not an object");
    return doc;
}

// Reads one field of an object with a type check and a range check, naming the field on error.
class Fields {
public:
    Fields(const json& object, std::string what) : m_object(object), m_what(std::move(what)) {}

    [[nodiscard]] const json* find(std::string_view name) const {
        if (!m_object.is_object()) return nullptr;
        const auto it = m_object.find(name);
        return it == m_object.end() || it->is_null() ? nullptr : &*it;
    }

    // An integer in [lo, hi]; nullopt when absent.
    Result<std::optional<std::int64_t>> integer(std::string_view name, std::int64_t lo, std::int64_t hi) const {
        const json* v = find(name);
        if (v == nullptr) return std::optional<std::int64_t>{};
        std::int64_t n = 0;
        if (v->is_number_integer()) {
            if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
                return outOfRange(name, *v, lo, hi);
            n = v->get<std::int64_t>();
        } else if (v->is_number_float() && std::isfinite(v->get<double>()) &&
                   v->get<double>() == std::floor(v->get<double>()) && std::abs(v->get<double>()) < 1e15) {
            n = static_cast<std::int64_t>(v->get<double>());
        } else {
            return bad(m_what, fmt::format("\"{}\" must be an integer, got {}", name, shown(*v)));
        }
        if (n < lo || n > hi) return outOfRange(name, *v, lo, hi);
        return std::optional<std::int64_t>{n};
    }

    Result<std::int64_t> requiredInteger(std::string_view name, std::int64_t lo, std::int64_t hi,
                                         std::string_view alias = {}) const {
        auto v = integer(name, lo, hi);
        if (!v) return std::unexpected(v.error());
        if (!*v && !alias.empty()) {
            v = integer(alias, lo, hi);
            if (!v) return std::unexpected(v.error());
        }
        if (!*v)
            return bad(m_what, fmt::format("no \"{}\"{}; a model's config names it", name,
                                           alias.empty() ? "" : fmt::format(" (or \"{}\")", alias)));
        return **v;
    }

    // A finite number in [lo, hi]; nullopt when absent.
    Result<std::optional<double>> number(std::string_view name, double lo, double hi) const {
        const json* v = find(name);
        if (v == nullptr) return std::optional<double>{};
        if (!v->is_number() || !std::isfinite(v->get<double>()))
            return bad(m_what, fmt::format("\"{}\" must be a number, got {}", name, shown(*v)));
        const double d = v->get<double>();
        if (d < lo || d > hi)
            return bad(m_what, fmt::format("\"{}\" is {}, outside [{}, {}]", name, shown(*v), lo, hi));
        return std::optional<double>{d};
    }

    Result<std::optional<bool>> boolean(std::string_view name) const {
        const json* v = find(name);
        if (v == nullptr) return std::optional<bool>{};
        if (!v->is_boolean()) return bad(m_what, fmt::format("\"{}\" must be true or false, got {}", name, shown(*v)));
        return std::optional<bool>{v->get<bool>()};
    }

    Result<std::optional<std::string>> string(std::string_view name) const {
        const json* v = find(name);
        if (v == nullptr) return std::optional<std::string>{};
        if (!v->is_string()) return bad(m_what, fmt::format("\"{}\" must be a string, got {}", name, shown(*v)));
        return std::optional<std::string>{v->get<std::string>()};
    }

    [[nodiscard]] const std::string& what() const { return m_what; }

private:
    std::unexpected<Error> outOfRange(std::string_view name, const json& v, std::int64_t lo, std::int64_t hi) const {
        return bad(m_what, fmt::format("\"{}\" is {}, outside [{}, {}]", name, shown(v), lo, hi));
    }
    const json& m_object;
    std::string m_what;
};

// Unwraps Result<std::optional<T>> with a default.
#define ALIBI_LM_FIELD(var, expr, fallback)                \
    auto var##_r = (expr);                                 \
    if (!var##_r) return std::unexpected(var##_r.error()); \
    const auto var = var##_r->value_or(fallback)

// Architectures known not to use ALiBi, with what they use instead.
struct NotAlibi {
    std::string_view modelType;
    std::string_view uses;
};
constexpr NotAlibi kNotAlibi[] = {
    {"llama", "rotary position embeddings (RoPE)"},    {"mistral", "rotary position embeddings (RoPE)"},
    {"qwen2", "rotary position embeddings (RoPE)"},    {"gemma", "rotary position embeddings (RoPE)"},
    {"gpt_neox", "rotary position embeddings (RoPE)"}, {"gptj", "rotary position embeddings (RoPE)"},
    {"phi", "rotary position embeddings (RoPE)"},      {"gpt2", "learned absolute position embeddings"},
    {"opt", "learned absolute position embeddings"},   {"gpt_neo", "learned absolute position embeddings"},
    {"bert", "learned absolute position embeddings"},  {"roberta", "learned absolute position embeddings"},
    {"t5", "relative position buckets (T5 bias)"},
};

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

constexpr std::string_view kSupported =
    "alibi runs BLOOM (BloomForCausalLM), MPT (MptForCausalLM, llm-foundry's MPTForCausalLM) and Falcon "
    "(FalconForCausalLM, RWForCausalLM with \"alibi\": true) models with ALiBi";

// The sizes every architecture names, each under its family's key with the other families'
// spelling accepted as an alias: layers, heads, model width, and the vocabulary.
struct ShapeKeys {
    std::string_view layers, layersAlias, heads, headsAlias, width, widthAlias;
};

Result<void> readShape(const Fields& f, const ShapeKeys& k, LmConfig& c) {
    auto layers = f.requiredInteger(k.layers, 1, kMaxLayers, k.layersAlias);
    if (!layers) return std::unexpected(layers.error());
    auto heads = f.requiredInteger(k.heads, 1, kMaxHeads, k.headsAlias);
    if (!heads) return std::unexpected(heads.error());
    auto d = f.requiredInteger(k.width, 1, kMaxWidth, k.widthAlias);
    if (!d) return std::unexpected(d.error());
    auto vocab = f.requiredInteger("vocab_size", 1, kMaxVocab);
    if (!vocab) return std::unexpected(vocab.error());
    c.layers = static_cast<int>(*layers);
    c.heads = static_cast<int>(*heads);
    c.dModel = *d;
    c.vocab = *vocab;
    return {};
}

Result<LmConfig> parseBloom(const Fields& f, LmConfig c) {
    if (auto ok = readShape(
            f, {"n_layer", "num_hidden_layers", "n_head", "num_attention_heads", "hidden_size", "n_embed"}, c);
        !ok)
        return std::unexpected(ok.error());
    ALIBI_LM_FIELD(eps, f.number("layer_norm_epsilon", 0, 1), 1e-5);
    ALIBI_LM_FIELD(tied, f.boolean("tie_word_embeddings"), true);
    ALIBI_LM_FIELD(post, f.boolean("apply_residual_connection_post_layernorm"), false);
    ALIBI_LM_FIELD(seq, f.integer("seq_length", 0, std::int64_t{1} << 40), 0);
    c.ffnHidden = 4 * c.dModel;
    c.layerNormEps = eps;
    c.tiedEmbeddings = tied;
    c.residualPostLn = post;
    c.trainingLength = seq;
    c.maxBias = 8.0;
    return c;
}

Result<LmConfig> parseMpt(const Fields& f, const json& doc, LmConfig c) {
    if (auto ok = readShape(
            f, {"n_layers", "num_hidden_layers", "n_heads", "num_attention_heads", "d_model", "hidden_size"}, c);
        !ok)
        return std::unexpected(ok.error());
    ALIBI_LM_FIELD(ratio, f.number("expansion_ratio", 0, 1024), 4.0);
    ALIBI_LM_FIELD(maxSeq, f.integer("max_seq_len", 0, std::int64_t{1} << 40), 2048);
    ALIBI_LM_FIELD(noBias, f.boolean("no_bias"), true);
    ALIBI_LM_FIELD(tied, f.boolean("tie_word_embeddings"), true);
    ALIBI_LM_FIELD(learned, f.boolean("learned_pos_emb"), false);
    ALIBI_LM_FIELD(eps, f.number("layer_norm_epsilon", 0, 1), 1e-5);
    ALIBI_LM_FIELD(normType, f.string("norm_type"), std::string("low_precision_layernorm"));

    const json empty = json::object();
    const auto sub = [&](const char* name) -> Result<const json*> {
        const auto it = doc.find(name);
        if (it == doc.end() || it->is_null()) return &empty;
        if (!it->is_object()) return bad(f.what(), fmt::format("\"{}\" must be an object, got {}", name, shown(*it)));
        return &*it;
    };
    auto attnJson = sub("attn_config");
    if (!attnJson) return std::unexpected(attnJson.error());
    auto ffnJson = sub("ffn_config");
    if (!ffnJson) return std::unexpected(ffnJson.error());
    const Fields attn(**attnJson, f.what() + ", attn_config");
    const Fields ffn(**ffnJson, f.what() + ", ffn_config");

    ALIBI_LM_FIELD(alibi, attn.boolean("alibi"), false);
    if (!alibi) {
        ALIBI_LM_FIELD(rope, attn.boolean("rope"), false);
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: this {} model does not use ALiBi (attn_config.alibi is false; it uses {}); {}",
                                f.what(), c.architectureText,
                                rope ? "rotary position embeddings" : "learned position embeddings", kSupported));
    }
    ALIBI_LM_FIELD(maxBias, attn.number("alibi_bias_max", 0, 1024), 8.0);
    ALIBI_LM_FIELD(qkLn, attn.boolean("qk_ln"), false);
    ALIBI_LM_FIELD(prefixLm, attn.boolean("prefix_lm"), false);
    ALIBI_LM_FIELD(attnType, attn.string("attn_type"), std::string("multihead_attention"));
    auto clip = attn.number("clip_qkv", 0, 1e30);
    if (!clip) return std::unexpected(clip.error());
    auto scale = attn.number("softmax_scale", 1e-30, 1e30);
    if (!scale) return std::unexpected(scale.error());
    if (qkLn)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: attn_config.qk_ln is true (layer norms on q and k), which alibi does not "
                                "implement yet",
                                f.what()));
    if (prefixLm)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: attn_config.prefix_lm is true; alibi runs causal language models only", f.what()));
    if (attnType != "multihead_attention") {
        auto kv = attn.integer("kv_n_heads", 1, kMaxHeads);
        if (!kv) return std::unexpected(kv.error());
        if (!*kv || **kv != c.heads)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{}: attn_config.attn_type is \"{}\" (keys and values shared between heads), "
                                    "which alibi does not implement; it runs multihead_attention",
                                    f.what(), attnType));
    }
    if (normType != "low_precision_layernorm" && normType != "layernorm")
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: norm_type \"{}\" is not implemented (alibi runs layernorm and "
                                "low_precision_layernorm, the same in float32)",
                                f.what(), normType));
    ALIBI_LM_FIELD(ffnType, ffn.string("ffn_type"), std::string("mptmlp"));
    if (ffnType != "mptmlp")
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("{}: ffn_config.ffn_type \"{}\" is not implemented (alibi runs mptmlp)", f.what(), ffnType));
    if (const json* act = ffn.find("ffn_act_fn"); act != nullptr) {
        const bool gelu = act->is_object() && jsonStringOr(*act, "name", "") == "gelu" &&
                          jsonStringOr(*act, "approximate", "none") == "none";
        if (!gelu)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{}: ffn_config.ffn_act_fn {} is not implemented (alibi runs exact GELU)", f.what(),
                                    shown(*act)));
    }
    auto hidden = ffn.integer("ffn_hidden_size", 1, kMaxWidth * 64);
    if (!hidden) return std::unexpected(hidden.error());
    const json* logit = f.find("logit_scale");
    double logitScale = 1.0;
    if (logit != nullptr) {
        if (logit->is_string() && logit->get<std::string>() == "inv_sqrt_d_model") {
            logitScale = 1.0 / std::sqrt(static_cast<double>(c.dModel));
        } else {
            ALIBI_LM_FIELD(ls, f.number("logit_scale", -1e30, 1e30), 1.0);
            logitScale = ls;
        }
    }

    const double inner = ratio * static_cast<double>(c.dModel);
    c.ffnHidden = *hidden ? **hidden : static_cast<std::int64_t>(inner);
    if (!*hidden && inner != std::floor(inner))
        return bad(f.what(), fmt::format("expansion_ratio {} times d_model {} is not a whole number", ratio, c.dModel));
    if (c.ffnHidden < 1 || c.ffnHidden > kMaxWidth * 64)
        return bad(f.what(), fmt::format("the MLP width {} is outside [1, {}]", c.ffnHidden, kMaxWidth * 64));
    c.layerNormEps = eps;
    c.maxBias = maxBias;
    c.linearBias = !noBias;
    c.normBias = !noBias;
    c.tiedEmbeddings = tied;
    c.learnedPosEmb = learned;
    c.trainingLength = maxSeq;
    c.clipQkv = *clip;
    if (*scale) c.softmaxScale = **scale;
    c.logitScale = logitScale;
    return c;
}

// HF FalconConfig (configuration_falcon.py) and the RW configs of tiiuae/falcon-rw-*: the
// decoder of modeling_falcon.py with "alibi": true. The new decoder architecture (grouped keys
// and values, two layer norms) is refused: no published ALiBi checkpoint uses it.
Result<LmConfig> parseFalcon(const Fields& f, LmConfig c) {
    ALIBI_LM_FIELD(alibiFlag, f.boolean("alibi"), false);
    if (!alibiFlag)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: this {} model does not use ALiBi (\"alibi\" is false: it uses rotary position "
                                "embeddings); {}",
                                f.what(), c.architectureText, kSupported));
    if (auto ok = readShape(
            f, {"num_hidden_layers", "n_layer", "num_attention_heads", "n_head", "hidden_size", "n_embed"}, c);
        !ok)
        return std::unexpected(ok.error());
    ALIBI_LM_FIELD(eps, f.number("layer_norm_epsilon", 0, 1), 1e-5);
    ALIBI_LM_FIELD(tied, f.boolean("tie_word_embeddings"), true);
    // FalconConfig's defaults (those of falcon-7b, which uses RoPE): a config that leaves them out
    // means them.
    ALIBI_LM_FIELD(newDecoder, f.boolean("new_decoder_architecture"), false);
    ALIBI_LM_FIELD(multiQuery, f.boolean("multi_query"), true);
    ALIBI_LM_FIELD(parallel, f.boolean("parallel_attn"), true);
    ALIBI_LM_FIELD(bias, f.boolean("bias"), false);
    // apply_residual_connection_post_layernorm is stored and never read by HF's Falcon and by
    // tiiuae's RW code alike: ignored here too.
    ALIBI_LM_FIELD(activation, f.string("activation"), std::string("gelu"));
    ALIBI_LM_FIELD(maxPos, f.integer("max_position_embeddings", 0, std::int64_t{1} << 40), 0);
    auto hidden = f.integer("ffn_hidden_size", 1, kMaxWidth * 64);
    if (!hidden) return std::unexpected(hidden.error());
    if (newDecoder)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: \"new_decoder_architecture\" is true (grouped keys and values, ln_attn and "
                                "ln_mlp, as falcon-40b), which alibi does not run with ALiBi; it runs Falcon's first "
                                "decoder (new_decoder_architecture false, as tiiuae/falcon-rw-1b)",
                                f.what()));
    if (activation != "gelu")
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: \"activation\" \"{}\" is not implemented (alibi runs Falcon's exact GELU, "
                                "\"gelu\")",
                                f.what(), activation));
    c.ffnHidden = *hidden ? **hidden : 4 * c.dModel;
    c.layerNormEps = eps;
    c.tiedEmbeddings = tied;
    c.multiQuery = multiQuery;
    c.parallelAttn = parallel;
    c.linearBias = bias;
    c.normBias = true;
    c.trainingLength = maxPos;
    c.maxBias = 8.0;
    return c;
}

}  // namespace

std::string_view architectureName(Architecture architecture) {
    switch (architecture) {
        case Architecture::Bloom:
            return "BLOOM";
        case Architecture::Mpt:
            return "MPT";
        case Architecture::Falcon:
            return "Falcon";
    }
    return "?";
}

Result<LmConfig> parseLmConfig(std::string_view text) {
    const std::string what = "config.json";
    auto doc = parseObject(text, what);
    if (!doc) return std::unexpected(doc.error());
    const Fields f(*doc, what);

    std::string arch;
    if (const json* a = f.find("architectures"); a != nullptr) {
        if (!a->is_array() || a->empty() || !(*a)[0].is_string())
            return bad(what, fmt::format("\"architectures\" must be a list of names, got {}", shown(*a)));
        arch = (*a)[0].get<std::string>();
    }
    ALIBI_LM_FIELD(modelType, f.string("model_type"), std::string());
    const std::string archLower = lower(arch), typeLower = lower(modelType);
    LmConfig c;
    c.architectureText = arch.empty() ? modelType : arch;
    const bool bloom = archLower == "bloomforcausallm" || (arch.empty() && typeLower == "bloom");
    const bool mpt = archLower == "mptforcausallm" || (arch.empty() && typeLower == "mpt");
    const bool falcon =
        archLower == "falconforcausallm" || archLower == "rwforcausallm" ||
        (arch.empty() && (typeLower == "falcon" || typeLower == "refinedweb" || typeLower == "refinedwebmodel"));
    Result<LmConfig> parsed = fail(ErrorCode::Internal, "");
    if (bloom) {
        c.architecture = Architecture::Bloom;
        parsed = parseBloom(f, std::move(c));
    } else if (mpt) {
        c.architecture = Architecture::Mpt;
        parsed = parseMpt(f, *doc, std::move(c));
    } else if (falcon) {
        c.architecture = Architecture::Falcon;
        parsed = parseFalcon(f, std::move(c));
    } else {
        const std::string named =
            arch.empty() && modelType.empty()
                ? std::string("names no architecture (no \"architectures\" and no \"model_type\")")
                : fmt::format("names architecture '{}'{}", arch.empty() ? modelType : arch,
                              !arch.empty() && !modelType.empty() ? fmt::format(" (model_type '{}')", modelType) : "");
        for (const NotAlibi& n : kNotAlibi)
            if (typeLower == n.modelType)
                return fail(ErrorCode::InvalidArgument, fmt::format("{} {}, which does not use ALiBi (it uses {}); {}",
                                                                    what, named, n.uses, kSupported));
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} {}, an architecture alibi does not know; {}", what, named, kSupported));
    }
    if (!parsed) return parsed;
    LmConfig& out = *parsed;
    if (out.dModel % out.heads != 0)
        return bad(what, fmt::format("the width {} is not a multiple of the {} heads", out.dModel, out.heads));
    if (out.softmaxScale == 0) out.softmaxScale = 1.0 / std::sqrt(static_cast<double>(out.headDim()));
    return parsed;
}

Result<ShardIndex> parseShardIndex(std::string_view text) {
    const std::string what = "model.safetensors.index.json";
    auto doc = parseObject(text, what);
    if (!doc) return std::unexpected(doc.error());
    const auto it = doc->find("weight_map");
    if (it == doc->end() || !it->is_object())
        return bad(what, "no \"weight_map\" object (tensor name -> shard file), as save_pretrained writes it");
    if (it->empty()) return bad(what, "\"weight_map\" is empty");
    ShardIndex index;
    for (const auto& [name, file] : it->items()) {
        if (!file.is_string())
            return bad(what,
                       fmt::format("weight_map entry '{}' must name a file, got {}", shown(json(name)), shown(file)));
        const std::string f = file.get<std::string>();
        if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos || f[0] == '.' ||
            f.find('\0') != std::string::npos || f.size() > 255)
            return bad(what, fmt::format("weight_map entry '{}' names {}, which is not a plain file name in the "
                                         "model's folder",
                                         shown(json(name)), shown(file)));
        index.weightMap.emplace(name, f);
        index.files.push_back(f);
    }
    std::sort(index.files.begin(), index.files.end());
    index.files.erase(std::unique(index.files.begin(), index.files.end()), index.files.end());
    return index;
}

std::string describe(const LmConfig& c) {
    std::string text =
        fmt::format("{} ({}), {} layers, {} heads, d_model {}, vocabulary {}", architectureName(c.architecture),
                    c.architectureText, c.layers, c.heads, c.dModel, c.vocab);
    if (c.multiQuery) text += ", multi-query";
    if (c.parallelAttn) text += ", parallel attention";
    if (c.trainingLength > 0) text += fmt::format(", trained on {} tokens", c.trainingLength);
    return text;
}

}  // namespace alibi::lm
