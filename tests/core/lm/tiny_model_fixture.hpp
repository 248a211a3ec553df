// Shared by the language-model tests: tiny BLOOM, MPT and Falcon checkpoints written into a test's
// folder (config.json and model.safetensors, or shards with an index), with weights chosen by
// the test, through the project's safetensors writer (whose output the io tests check).
#pragma once

#include <alibi/io/safetensors_file.hpp>
#include <alibi/lm/checkpoint.hpp>
#include "../io/temp_dir_fixture.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace alibi::test {

struct TinyModel {
    lm::Architecture arch = lm::Architecture::Bloom;
    int layers = 1, heads = 2;
    int d = 8, vocab = 16;
    bool noBias = true;         // MPT only
    bool multiQuery = false;    // Falcon only
    bool parallelAttn = false;  // Falcon only
    // Each weight's values from its name and element count; default: small random numbers.
    std::function<std::vector<float>(const std::string&, std::size_t)> values;
};

inline std::string tinyConfig(const TinyModel& m) {
    if (m.arch == lm::Architecture::Falcon)
        return fmt::format(R"({{"architectures": ["FalconForCausalLM"], "model_type": "falcon", "alibi": true,
 "num_hidden_layers": {}, "num_attention_heads": {}, "hidden_size": {}, "vocab_size": {}, "bias": true,
 "multi_query": {}, "parallel_attn": {}, "new_decoder_architecture": false}})",
                           m.layers, m.heads, m.d, m.vocab, m.multiQuery ? "true" : "false",
                           m.parallelAttn ? "true" : "false");
    if (m.arch == lm::Architecture::Bloom)
        return fmt::format(R"({{"architectures": ["BloomForCausalLM"], "model_type": "bloom", "n_layer": {},
 "n_head": {}, "hidden_size": {}, "vocab_size": {}, "layer_norm_epsilon": 1e-5}})",
                           m.layers, m.heads, m.d, m.vocab);
    return fmt::format(R"({{"architectures": ["MPTForCausalLM"], "model_type": "mpt", "n_layers": {}, "n_heads": {},
 "d_model": {}, "vocab_size": {}, "expansion_ratio": 4, "max_seq_len": 64, "no_bias": {},
 "attn_config": {{"alibi": true, "alibi_bias_max": 8}}}})",
                       m.layers, m.heads, m.d, m.vocab, m.noBias ? "true" : "false");
}

// Writes the model into `folder`; `shards` > 1 splits the tensors over that many files plus an index.
inline void writeTinyModel(const std::string& folder, const TinyModel& m, int shards = 1) {
    spit(folder + "/config.json", tinyConfig(m));
    auto config = lm::parseLmConfig(tinyConfig(m));
    ASSERT_TRUE(config) << config.error().message;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    const auto specs = lm::expectedWeights(*config);
    std::vector<std::vector<float>> data;
    for (const auto& s : specs) {
        const auto n = static_cast<std::size_t>(*elementCount(s.shape));
        if (m.values) {
            data.push_back(m.values(s.name, n));
        } else {
            std::vector<float> v(n);
            for (float& x : v) x = normal(rng);
            if (s.name.ends_with("norm.weight") || s.name.ends_with("norm_1.weight") ||
                s.name.ends_with("norm_2.weight") || s.name.ends_with("norm_f.weight") ||
                s.name.ends_with("ln_f.weight"))
                for (float& x : v) x += 1.0f;
            data.push_back(std::move(v));
        }
    }
    std::string index = R"({"metadata": {}, "weight_map": {)";
    for (int shard = 0; shard < shards; ++shard) {
        const std::string file =
            shards == 1 ? "model.safetensors" : fmt::format("model-{:05}-of-{:05}.safetensors", shard + 1, shards);
        std::vector<SafetensorsWriter::Spec> mine;
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < specs.size(); ++i)
            if (static_cast<int>(i % static_cast<std::size_t>(shards)) == shard) {
                mine.push_back({"transformer." + specs[i].name, specs[i].shape});
                which.push_back(i);
                index +=
                    fmt::format(R"({}"transformer.{}": "{}")", index.back() == '{' ? "" : ", ", specs[i].name, file);
            }
        auto w = SafetensorsWriter::open(folder + "/" + file, mine, {{"format", "pt"}});
        ASSERT_TRUE(w) << w.error().message;
        for (std::size_t i : which) ASSERT_TRUE(w->write(data[i]));
        ASSERT_TRUE(w->commit());
    }
    if (shards > 1) spit(folder + "/model.safetensors.index.json", index + "}}");
}

}  // namespace alibi::test
