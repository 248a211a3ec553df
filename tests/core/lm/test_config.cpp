// config.json and model.safetensors.index.json: what is read, and the refusals (no ALiBi, an
// unknown architecture, malformed fields), each with a message naming what it is.
#include <alibi/lm/config.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace alibi::lm {
namespace {

TEST(LmConfig, ReadsBloom) {
    auto c = parseLmConfig(R"({"architectures": ["BloomForCausalLM"], "model_type": "bloom", "n_layer": 24,
        "n_head": 16, "hidden_size": 1024, "vocab_size": 250880, "layer_norm_epsilon": 1e-5, "seq_length": 2048})");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->architecture, Architecture::Bloom);
    EXPECT_EQ(c->layers, 24);
    EXPECT_EQ(c->heads, 16);
    EXPECT_EQ(c->dModel, 1024);
    EXPECT_EQ(c->ffnHidden, 4096);
    EXPECT_EQ(c->vocab, 250880);
    EXPECT_EQ(c->trainingLength, 2048);
    EXPECT_TRUE(c->linearBias);
    EXPECT_TRUE(c->tiedEmbeddings);
    EXPECT_DOUBLE_EQ(c->maxBias, 8.0);
    EXPECT_DOUBLE_EQ(c->softmaxScale, 1.0 / 8.0);  // 1/sqrt(64)
}

TEST(LmConfig, ReadsHfAndLlmFoundryMpt) {
    auto hf = parseLmConfig(R"({"architectures": ["MptForCausalLM"], "model_type": "mpt", "n_layers": 2,
        "n_heads": 12, "d_model": 96, "vocab_size": 100, "max_seq_len": 512,
        "attn_config": {"alibi": true, "alibi_bias_max": 16, "clip_qkv": 6}})");
    ASSERT_TRUE(hf) << hf.error().message;
    EXPECT_EQ(hf->architecture, Architecture::Mpt);
    EXPECT_FALSE(hf->linearBias);  // no_bias defaults to true
    EXPECT_DOUBLE_EQ(hf->maxBias, 16.0);
    ASSERT_TRUE(hf->clipQkv);
    EXPECT_DOUBLE_EQ(*hf->clipQkv, 6.0);
    EXPECT_EQ(hf->trainingLength, 512);

    auto foundry = parseLmConfig(R"({"architectures": ["MPTForCausalLM"], "n_layers": 1, "n_heads": 4,
        "d_model": 32, "vocab_size": 50, "expansion_ratio": 2, "no_bias": false, "logit_scale": "inv_sqrt_d_model",
        "ffn_config": {"ffn_type": "mptmlp", "ffn_act_fn": {"name": "gelu", "approximate": "none"}},
        "attn_config": {"alibi": true, "attn_type": "multihead_attention", "softmax_scale": 0.5}})");
    ASSERT_TRUE(foundry) << foundry.error().message;
    EXPECT_TRUE(foundry->linearBias);
    EXPECT_TRUE(foundry->normBias);
    EXPECT_EQ(foundry->ffnHidden, 64);
    EXPECT_DOUBLE_EQ(foundry->softmaxScale, 0.5);
    EXPECT_NEAR(foundry->logitScale, 1.0 / std::sqrt(32.0), 1e-15);
}

void expectRefused(const std::string& json, const std::string& words) {
    auto c = parseLmConfig(json);
    ASSERT_FALSE(c) << json;
    EXPECT_NE(c.error().message.find(words), std::string::npos) << c.error().message;
}

TEST(LmConfig, RefusesModelsWithoutAlibi) {
    expectRefused(R"({"architectures": ["MptForCausalLM"], "model_type": "mpt", "n_layers": 1, "n_heads": 4,
        "d_model": 32, "vocab_size": 50, "attn_config": {"alibi": false}})",
                  "does not use ALiBi");
    expectRefused(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})",
                  "does not use ALiBi (it uses rotary");
    expectRefused(R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"})", "learned absolute position");
    expectRefused(R"({"architectures": ["FalconForCausalLM"], "model_type": "falcon", "alibi": true})",
                  "\"alibi\": true, which alibi does not run yet");
}

TEST(LmConfig, RefusesUnknownAndMalformed) {
    expectRefused(R"({"architectures": ["FooForCausalLM"], "model_type": "foo"})", "architecture alibi does not know");
    expectRefused(R"({"n_layer": 2})", "names no architecture");
    expectRefused(R"({"model_type": "bloom", "n_layer": 2, "hidden_size": 64, "vocab_size": 10})", "\"n_head\"");
    expectRefused(R"({"model_type": "bloom", "n_layer": 2, "n_head": 3, "hidden_size": 64, "vocab_size": 10})",
                  "not a multiple of the 3 heads");
    expectRefused(R"({"model_type": "bloom", "n_layer": -1, "n_head": 2, "hidden_size": 64, "vocab_size": 10})",
                  "\"n_layer\" is -1");
    expectRefused(R"({"model_type": "bloom", "n_layer": "2", "n_head": 2, "hidden_size": 64, "vocab_size": 10})",
                  "must be an integer");
    expectRefused(R"({"model_type": "bloom", "n_layer": 1e300, "n_head": 2, "hidden_size": 64, "vocab_size": 10})",
                  "must be an integer");
    expectRefused("[1, 2]", "not an object");
    expectRefused("{\"a\": ", "not valid JSON");
    expectRefused(std::string(100000, '[') + std::string(100000, ']'), "nested");
    expectRefused(R"({"architectures": "BloomForCausalLM"})", "list of names");
    expectRefused(R"({"model_type": "mpt", "n_layers": 1, "n_heads": 4, "d_model": 32, "vocab_size": 50,
        "attn_config": {"alibi": true, "qk_ln": true}})",
                  "qk_ln");
}

TEST(ShardIndex, ReadsTheWeightMap) {
    auto index = parseShardIndex(R"({"metadata": {"total_size": 10}, "weight_map": {"a": "s-2.safetensors",
        "b": "s-1.safetensors", "c": "s-2.safetensors"}})");
    ASSERT_TRUE(index) << index.error().message;
    EXPECT_EQ(index->weightMap.at("a"), "s-2.safetensors");
    EXPECT_EQ(index->files, (std::vector<std::string>{"s-1.safetensors", "s-2.safetensors"}));
}

TEST(ShardIndex, RefusesPathsAndMalformedMaps) {
    for (const char* bad : {R"({"weight_map": {"a": "../x.safetensors"}})", R"({"weight_map": {"a": "/etc/passwd"}})",
                            R"({"weight_map": {"a": ".hidden"}})", R"({"weight_map": {"a": 3}})",
                            R"({"weight_map": {}})", R"({"metadata": {}})", R"([])", R"({"weight_map": [])"}) {
        auto index = parseShardIndex(bad);
        EXPECT_FALSE(index) << bad;
        if (!index) {
            EXPECT_EQ(index.error().code, ErrorCode::BadInput);
            EXPECT_NE(index.error().message.find("model.safetensors.index.json"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace alibi::lm
