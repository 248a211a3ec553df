// See checkpoint.hpp. Tensor names follow HF transformers (modeling_bloom.py: word_embeddings,
// h.N.self_attention.query_key_value, ...; modeling_falcon.py: BLOOM's names without the embedding
// norm, and no post_attention_layernorm with parallel_attn; modeling_mpt.py and llm-foundry: wte,
// blocks.N.attn.Wqkv, ...), with or without the "transformer." prefix of the ForCausalLM classes.
#include <alibi/lm/checkpoint.hpp>

#include <alibi/io/output_file.hpp>
#include <alibi/io/safetensors_file.hpp>

#include <sys/stat.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>

namespace alibi::lm {
namespace {

constexpr std::size_t kMaxJsonBytes = std::size_t{64} << 20;

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string join(const std::string& folder, const std::string& name) {
    return folder.empty() || folder.back() == '/' ? folder + name : folder + "/" + name;
}

void addLinear(std::vector<WeightSpec>& out, const std::string& name, std::int64_t outDim, std::int64_t inDim,
               bool bias) {
    out.push_back({name + ".weight", {outDim, inDim}, true});
    if (bias) out.push_back({name + ".bias", {outDim}, true});
}

void addNorm(std::vector<WeightSpec>& out, const std::string& name, std::int64_t d, bool bias) {
    out.push_back({name + ".weight", {d}, true});
    if (bias) out.push_back({name + ".bias", {d}, true});
}

}  // namespace

std::vector<WeightSpec> expectedWeights(const LmConfig& c) {
    std::vector<WeightSpec> w;
    const std::int64_t d = c.dModel, f = c.ffnHidden;
    if (c.architecture == Architecture::Bloom) {
        w.push_back({"word_embeddings.weight", {c.vocab, d}, true});
        addNorm(w, "word_embeddings_layernorm", d, true);
        for (int l = 0; l < c.layers; ++l) {
            const std::string p = fmt::format("h.{}.", l);
            addNorm(w, p + "input_layernorm", d, true);
            addLinear(w, p + "self_attention.query_key_value", 3 * d, d, true);
            addLinear(w, p + "self_attention.dense", d, d, true);
            addNorm(w, p + "post_attention_layernorm", d, true);
            addLinear(w, p + "mlp.dense_h_to_4h", f, d, true);
            addLinear(w, p + "mlp.dense_4h_to_h", d, f, true);
        }
        addNorm(w, "ln_f", d, true);
    } else if (c.architecture == Architecture::Falcon) {
        w.push_back({"word_embeddings.weight", {c.vocab, d}, true});
        for (int l = 0; l < c.layers; ++l) {
            const std::string p = fmt::format("h.{}.", l);
            addNorm(w, p + "input_layernorm", d, true);
            addLinear(w, p + "self_attention.query_key_value", c.qkvWidth(), d, c.linearBias);
            addLinear(w, p + "self_attention.dense", d, d, c.linearBias);
            if (!c.parallelAttn) addNorm(w, p + "post_attention_layernorm", d, true);
            addLinear(w, p + "mlp.dense_h_to_4h", f, d, c.linearBias);
            addLinear(w, p + "mlp.dense_4h_to_h", d, f, c.linearBias);
        }
        addNorm(w, "ln_f", d, true);
    } else {
        w.push_back({"wte.weight", {c.vocab, d}, true});
        if (c.learnedPosEmb) w.push_back({"wpe.weight", {c.trainingLength, d}, false});
        for (int l = 0; l < c.layers; ++l) {
            const std::string p = fmt::format("blocks.{}.", l);
            addNorm(w, p + "norm_1", d, c.normBias);
            addLinear(w, p + "attn.Wqkv", 3 * d, d, c.linearBias);
            addLinear(w, p + "attn.out_proj", d, d, c.linearBias);
            addNorm(w, p + "norm_2", d, c.normBias);
            addLinear(w, p + "ffn.up_proj", f, d, c.linearBias);
            addLinear(w, p + "ffn.down_proj", d, f, c.linearBias);
        }
        addNorm(w, "norm_f", d, c.normBias);
    }
    if (!c.tiedEmbeddings) w.push_back({"lm_head.weight", {c.vocab, d}, true});
    return w;
}

Checkpoint::Checkpoint(Checkpoint&&) noexcept = default;
Checkpoint& Checkpoint::operator=(Checkpoint&&) noexcept = default;
Checkpoint::~Checkpoint() = default;

Result<Checkpoint> Checkpoint::open(const std::string& folder, const std::function<bool()>& cancelled) {
    const auto prefixed = [&](Error e) {
        e.message = fmt::format("cannot open the model {}: {}", folder, e.message);
        return std::unexpected(std::move(e));
    };
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) return prefixed(Error{ErrorCode::Io, std::strerror(errno)});
    if (!S_ISDIR(st.st_mode))
        return prefixed(Error{ErrorCode::InvalidArgument,
                              "it is not a folder; give a Hugging Face model folder (config.json and "
                              "model.safetensors, or shards with model.safetensors.index.json)"});
    const std::string configPath = join(folder, "config.json");
    if (!exists(configPath))
        return prefixed(Error{ErrorCode::BadInput, "the folder has no config.json; give a Hugging Face model folder"});
    auto configText = readFileText(configPath, kMaxJsonBytes);
    if (!configText) return prefixed(configText.error());
    auto config = parseLmConfig(*configText);
    if (!config) return prefixed(config.error());

    Checkpoint cp;
    cp.m_config = std::move(*config);
    cp.m_folder = folder;

    // Which files hold the weights.
    const std::string single = join(folder, "model.safetensors");
    const std::string indexPath = join(folder, "model.safetensors.index.json");
    std::optional<ShardIndex> index;
    std::vector<std::string> files;
    if (exists(indexPath)) {
        auto text = readFileText(indexPath, kMaxJsonBytes);
        if (!text) return prefixed(text.error());
        auto parsed = parseShardIndex(*text);
        if (!parsed) return prefixed(parsed.error());
        for (const std::string& f : parsed->files)
            if (!exists(join(folder, f)))
                return prefixed(Error{ErrorCode::BadInput,
                                      fmt::format("model.safetensors.index.json names the shard '{}', which is not "
                                                  "in the folder; download every shard it lists",
                                                  f)});
        files = parsed->files;
        index = std::move(*parsed);
    } else if (exists(single)) {
        files.push_back("model.safetensors");
    } else {
        const bool pickle =
            exists(join(folder, "pytorch_model.bin")) || exists(join(folder, "pytorch_model.bin.index.json"));
        return prefixed(Error{
            ErrorCode::BadInput,
            pickle ? std::string("the folder holds only pytorch_model.bin (a Python pickle), which alibi never opens "
                                 "(unpickling can run code); convert it once where you trust it, e.g. "
                                 "AutoModelForCausalLM.from_pretrained(dir).save_pretrained(dir, "
                                 "safe_serialization=True)")
                   : std::string("the folder has neither model.safetensors nor model.safetensors.index.json")});
    }

    std::map<std::string, std::size_t> fileIndex;
    for (const std::string& f : files) {
        auto opened = SafetensorsFile::open(join(folder, f), cancelled);
        if (!opened) return prefixed(opened.error());
        fileIndex[f] = cp.m_files.size();
        cp.m_files.push_back(std::make_unique<SafetensorsFile>(std::move(*opened)));
    }

    // Every tensor under its name without the "transformer." prefix.
    constexpr std::string_view kPrefix = "transformer.";
    for (const auto& file : cp.m_files)
        for (const SafetensorsEntry& e : file->tensors()) {
            std::string_view name = e.name;
            if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
            cp.m_tensors.try_emplace(std::string(name), Located{file.get(), &e});
        }
    if (index) {
        for (const auto& [name, f] : index->weightMap) {
            const SafetensorsFile& file = *cp.m_files[fileIndex.at(f)];
            if (file.find(name) == nullptr)
                return prefixed(Error{ErrorCode::BadInput,
                                      fmt::format("model.safetensors.index.json puts tensor '{}' in '{}', which has no "
                                                  "such tensor; the index and the shards do not belong together",
                                                  name, f)});
        }
    }

    // Every tensor the config implies, with its shape.
    std::set<std::string> dtypes;
    for (const WeightSpec& spec : expectedWeights(cp.m_config)) {
        const auto it = cp.m_tensors.find(spec.name);
        if (it == cp.m_tensors.end()) {
            if (!spec.required) continue;
            return prefixed(Error{ErrorCode::BadInput,
                                  fmt::format("the weights have no tensor '{}' (nor 'transformer.{}'), which a {} "
                                              "model with this config.json needs; the weights and config.json do not "
                                              "belong together",
                                              spec.name, spec.name, architectureName(cp.m_config.architecture))});
        }
        const SafetensorsEntry& e = *it->second.entry;
        if (e.shape != spec.shape)
            return prefixed(
                Error{ErrorCode::BadInput,
                      fmt::format("tensor '{}' has shape {}, but config.json ({}) implies {}; the weights "
                                  "and config.json do not belong together",
                                  e.name, shapeString(e.shape), describe(cp.m_config), shapeString(spec.shape))});
        dtypes.insert(std::string(dtypeName(e.dtype)));
        cp.m_weightBytes += e.bytes;
    }
    for (const std::string& d : dtypes) cp.m_dtypes += (cp.m_dtypes.empty() ? "" : ", ") + d;
    return cp;
}

bool Checkpoint::has(std::string_view name) const {
    return m_tensors.find(name) != m_tensors.end();
}

Result<Checkpoint::Located> Checkpoint::locate(std::string_view name) const {
    const auto it = m_tensors.find(name);
    if (it == m_tensors.end()) return fail(ErrorCode::Internal, fmt::format("the model has no tensor '{}'", name));
    return it->second;
}

Result<std::vector<float>> Checkpoint::read(std::string_view name) const {
    auto at = locate(name);
    if (!at) return std::unexpected(at.error());
    std::vector<float> out(static_cast<std::size_t>(at->entry->elements()));
    if (auto ok = at->file->readF32(*at->entry, 0, out); !ok) return std::unexpected(ok.error());
    return out;
}

Result<void> Checkpoint::readRows(std::string_view name, std::int64_t first, std::int64_t count,
                                  std::span<float> out) const {
    auto at = locate(name);
    if (!at) return std::unexpected(at.error());
    const Shape& s = at->entry->shape;
    if (s.size() != 2 || first < 0 || count < 0 || first + count > s[0] ||
        out.size() != static_cast<std::uint64_t>(count * s[1]))
        return fail(ErrorCode::Internal,
                    fmt::format("rows [{}, {}) of tensor '{}' {}", first, first + count, name, shapeString(s)));
    return at->file->readF32(*at->entry, static_cast<std::uint64_t>(first * s[1]), out);
}

}  // namespace alibi::lm
