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
    expectRefused(R"({"architectures": ["FalconForCausalLM"], "model_type": "falcon", "alibi": false,
        "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32, "vocab_size": 50})",
                  "does not use ALiBi (\"alibi\" is false");
    // FalconConfig's default for alibi is false (falcon-7b and later use RoPE).
    expectRefused(R"({"model_type": "falcon", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32,
        "vocab_size": 50})",
                  "does not use ALiBi");
}

// tiiuae/falcon-rw-1b's config.json as published (RWForCausalLM, the RW names).
TEST(LmConfig, ReadsFalconRw) {
    auto c = parseLmConfig(R"({"alibi": true, "apply_residual_connection_post_layernorm": false,
        "architectures": ["RWForCausalLM"], "attention_dropout": 0.0, "bias": true, "bos_token_id": 1,
        "eos_token_id": 2, "hidden_dropout": 0.0, "hidden_size": 2048, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "model_type": "RefinedWebModel", "multi_query": false, "n_head": 32,
        "n_layer": 24, "parallel_attn": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 50304})");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->architecture, Architecture::Falcon);
    EXPECT_EQ(c->layers, 24);
    EXPECT_EQ(c->heads, 32);
    EXPECT_EQ(c->dModel, 2048);
    EXPECT_EQ(c->ffnHidden, 8192);
    EXPECT_EQ(c->vocab, 50304);
    EXPECT_TRUE(c->linearBias);
    EXPECT_TRUE(c->normBias);
    EXPECT_FALSE(c->parallelAttn);
    EXPECT_FALSE(c->multiQuery);
    EXPECT_EQ(c->qkvWidth(), 3 * 2048);
    EXPECT_TRUE(c->tiedEmbeddings);
    EXPECT_DOUBLE_EQ(c->maxBias, 8.0);
    EXPECT_DOUBLE_EQ(c->softmaxScale, 1.0 / 8.0);  // 1/sqrt(64)
    EXPECT_EQ(c->trainingLength, 0);               // the RW config names none
    EXPECT_NE(describe(*c).find("Falcon (RWForCausalLM)"), std::string::npos);
}

// HF FalconConfig's names, and its defaults where a config leaves a field out: multi_query and
// parallel_attn true, bias false (falcon-7b's), ffn_hidden_size 4 d_model.
TEST(LmConfig, ReadsFalconWithHfNamesAndDefaults) {
    auto c = parseLmConfig(R"({"architectures": ["FalconForCausalLM"], "model_type": "falcon", "alibi": true,
        "num_hidden_layers": 2, "num_attention_heads": 6, "hidden_size": 48, "vocab_size": 30,
        "max_position_embeddings": 1024})");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->architecture, Architecture::Falcon);
    EXPECT_TRUE(c->multiQuery);
    EXPECT_TRUE(c->parallelAttn);
    EXPECT_FALSE(c->linearBias);
    EXPECT_EQ(c->qkvWidth(), 48 + 2 * 8);
    EXPECT_EQ(c->ffnHidden, 192);
    EXPECT_EQ(c->trainingLength, 1024);
    EXPECT_EQ(describe(*c),
              "Falcon (FalconForCausalLM), 2 layers, 6 heads, d_model 48, vocabulary 30, multi-query, parallel "
              "attention, trained on 1024 tokens");
    auto wide = parseLmConfig(R"({"model_type": "falcon", "alibi": true, "num_hidden_layers": 1,
        "num_attention_heads": 2, "hidden_size": 8, "vocab_size": 30, "ffn_hidden_size": 20})");
    ASSERT_TRUE(wide) << wide.error().message;
    EXPECT_EQ(wide->ffnHidden, 20);
}

TEST(LmConfig, RefusesFalconItDoesNotRun) {
    const std::string base = R"("architectures": ["FalconForCausalLM"], "model_type": "falcon", "alibi": true,
        "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32, "vocab_size": 50)";
    expectRefused("{" + base + R"(, "new_decoder_architecture": true})", "\"new_decoder_architecture\" is true");
    expectRefused("{" + base + R"(, "activation": "relu"})", "\"activation\" \"relu\" is not implemented");
    expectRefused("{" + base + R"(, "parallel_attn": 1})", "\"parallel_attn\" must be true or false");
    expectRefused("{" + base + R"(, "ffn_hidden_size": 0})", "\"ffn_hidden_size\" is 0");
    expectRefused(R"({"model_type": "falcon", "alibi": true, "num_attention_heads": 4, "hidden_size": 32,
        "vocab_size": 50})",
                  "no \"num_hidden_layers\" (or \"n_layer\")");
    expectRefused(R"({"model_type": "falcon", "alibi": true, "num_hidden_layers": 1, "num_attention_heads": 3,
        "hidden_size": 32, "vocab_size": 50})",
                  "not a multiple of the 3 heads");
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
    // A member of another type is refused by name, never thrown (the fuzzer's crash: nlohmann's
    // value() threw type_error on "name": 4444444).
    expectRefused(R"({"architectures": ["MPTForCausalLM"], "n_layers": 1, "n_heads": 4, "d_model": 32,
        "vocab_size": 50, "ffn_config": {"ffn_type": "mptmlp", "ffn_act_fn": {"name": 4444444}},
        "attn_config": {"alibi": true}})",
                  "ffn_act_fn {\"name\":4444444} is not implemented");
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
