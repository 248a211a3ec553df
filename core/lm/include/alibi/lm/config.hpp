// What a Hugging Face model folder's config.json and model.safetensors.index.json say, for the
// ALiBi architectures this program runs: BLOOM (BloomForCausalLM, HF transformers
// modeling_bloom.py), MPT (MptForCausalLM of HF transformers, MPTForCausalLM of llm-foundry,
// with no_bias true or false) and Falcon with "alibi": true (FalconForCausalLM, and RWForCausalLM
// as tiiuae/falcon-rw-1b names it; HF modeling_falcon.py), sequential or parallel attention, with
// or without multi-query attention and biases. Anything else is refused with a message naming what it is: an
// architecture without ALiBi (Llama, GPT-2, MPT with attn_config.alibi false, ...) or an unknown one.
#pragma once

#include <alibi/base/error.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::lm {

enum class Architecture { Bloom, Mpt, Falcon };

// "BLOOM", "MPT", "Falcon".
[[nodiscard]] std::string_view architectureName(Architecture architecture);

// Hard limits on a config (far above any published model; they keep size arithmetic exact).
inline constexpr int kMaxLayers = 1024;
inline constexpr int kMaxHeads = 4096;
inline constexpr std::int64_t kMaxWidth = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxVocab = std::int64_t{1} << 24;

struct LmConfig {
    Architecture architecture = Architecture::Bloom;
    std::string architectureText;  // as config.json names it: "BloomForCausalLM", "MPTForCausalLM", ...
    int layers = 0;
    int heads = 0;
    std::int64_t dModel = 0;
    std::int64_t ffnHidden =
        0;  // the MLP's inner width (BLOOM 4 d_model; MPT expansion_ratio d_model; Falcon ffn_hidden_size)
    std::int64_t vocab = 0;
    double layerNormEps = 1e-5;
    double maxBias = 8.0;           // the slopes' B (MPT attn_config.alibi_bias_max; BLOOM, Falcon 8)
    bool linearBias = true;         // Linear layers carry biases (BLOOM; MPT with no_bias false; Falcon bias)
    bool normBias = true;           // LayerNorms carry biases (BLOOM, Falcon; MPT with no_bias false)
    bool tiedEmbeddings = true;     // lm_head shares the input embedding
    bool residualPostLn = false;    // BLOOM apply_residual_connection_post_layernorm
    bool parallelAttn = false;      // Falcon parallel_attn: attention and MLP read the same norm, one residual
    bool multiQuery = false;        // Falcon multi_query: one key and one value head shared by every head
    bool learnedPosEmb = false;     // MPT learned_pos_emb (used only when the weights hold wpe)
    double softmaxScale = 0;        // the q.k scale; 1/sqrt(head_dim) unless the config sets one
    std::optional<double> clipQkv;  // MPT attn_config.clip_qkv: q, k, v clamped to [-c, c]
    double logitScale = 1.0;        // MPT logit_scale
    std::int64_t trainingLength =
        0;  // MPT max_seq_len, BLOOM seq_length, Falcon max_position_embeddings; 0: none named

    [[nodiscard]] std::int64_t headDim() const { return heads > 0 ? dModel / heads : 0; }
    // The fused query_key_value projection's output width: 3 d_model, or (heads + 2) head_dim for
    // Falcon's multi-query attention.
    [[nodiscard]] std::int64_t qkvWidth() const { return multiQuery ? dModel + 2 * headDim() : 3 * dModel; }
};

// Parses config.json's text. Errors say which field is missing or wrong and what was expected.
[[nodiscard]] Result<LmConfig> parseLmConfig(std::string_view json);

// model.safetensors.index.json: which shard file holds each tensor.
struct ShardIndex {
    std::map<std::string, std::string> weightMap;  // tensor name -> shard file name
    std::vector<std::string> files;                // the distinct shard files, sorted
};

// Parses the index's text. A shard name must be a plain file name in the same folder (no '/',
// no "..", not hidden), and there must be at least one entry.
[[nodiscard]] Result<ShardIndex> parseShardIndex(std::string_view json);

// "BLOOM, 24 layers, 16 heads, d_model 1024, vocabulary 250880, trained on 2048 tokens" (Falcon:
// ", multi-query", ", parallel attention" when the config says so).
[[nodiscard]] std::string describe(const LmConfig& config);

}  // namespace alibi::lm
