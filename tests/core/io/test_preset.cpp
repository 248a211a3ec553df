// Tests for <alibi/io/preset.hpp>: the shipped preset files and Hugging Face config reading.
#include <alibi/io/preset.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>

#include <set>

using namespace alibi;

TEST(Preset, EveryShippedPresetParsesAndBuilds) {
    auto presets = loadPresetFolder(ALIBI_PRESET_DIR);
    ASSERT_TRUE(presets) << presets.error().message;
    EXPECT_GE(presets->size(), 20U);
    std::set<std::string> ids;
    for (const Preset& p : *presets) {
        ids.insert(p.id);
        EXPECT_FALSE(p.source.empty()) << p.id;
        EXPECT_GT(p.trainLength, 0) << p.id;
        // The preset's own arithmetic can build its slopes (e.g. no max_bias 16 with hf-bloom).
        EXPECT_TRUE(computeSlopes({p.heads, p.scheme, p.maxBias, {}, p.arith})) << p.id;
    }
    for (const char* id : {"bloom-176b", "mpt-7b-storywriter", "mpt-30b", "baichuan2-13b", "falcon-rw-1b",
                           "replit-code-v1.5-3b", "jina-embeddings-v2-small-en", "mosaic-bert-base", "jais-30b",
                           "poro-34b"})
        EXPECT_TRUE(ids.count(id)) << id;
}

TEST(Preset, FindByIdOrNameAndApply) {
    auto p = findPreset("MPT-7B-StoryWriter-65k+", {ALIBI_PRESET_DIR});
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->maxBias, 16.0);
    Session s = defaultSession();
    applyPreset(s, *p);
    EXPECT_EQ(s.attention.bias.slopes.heads, 32);
    EXPECT_EQ(s.attention.bias.mode, BiasMode::Mpt);
    EXPECT_EQ(s.attention.bias.slopes.arith, Arith::LlmFoundry);
    EXPECT_EQ(s.trainLength, 65536);
    auto missing = findPreset("gpt-2", {ALIBI_PRESET_DIR});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("bloom-176b"), std::string::npos);  // lists the known ids
}

TEST(Preset, HuggingFaceConfigs) {
    auto bloom = presetFromHfConfig(R"({"model_type": "bloom", "n_head": 112, "seq_length": 2048})", "config.json");
    ASSERT_TRUE(bloom) << bloom.error().message;
    EXPECT_EQ(bloom->heads, 112);
    EXPECT_EQ(bloom->mode, BiasMode::Bloom);
    EXPECT_EQ(bloom->arith, Arith::HfBloom);

    auto mpt = presetFromHfConfig(
        R"({"model_type": "mpt", "n_heads": 32, "max_seq_len": 65536, "attn_config": {"alibi": true, "alibi_bias_max": 16}})",
        "config.json");
    ASSERT_TRUE(mpt) << mpt.error().message;
    EXPECT_EQ(mpt->maxBias, 16.0);
    EXPECT_EQ(mpt->trainLength, 65536);

    auto jina = presetFromHfConfig(R"({"model_type": "bert", "num_attention_heads": 12, "position_embedding_type": "alibi"})",
                                   "config.json");
    ASSERT_TRUE(jina) << jina.error().message;
    EXPECT_EQ(jina->mode, BiasMode::Symmetric);

    auto noHeads = presetFromHfConfig(R"({"model_type": "baichuan", "model_max_length": 4096})", "config.json");
    ASSERT_FALSE(noHeads);
    EXPECT_NE(noHeads.error().message.find("num_attention_heads"), std::string::npos) << noHeads.error().message;

    auto rotary = presetFromHfConfig(R"({"model_type": "falcon", "num_attention_heads": 71, "alibi": false})", "c.json");
    ASSERT_FALSE(rotary);
    EXPECT_NE(rotary.error().message.find("rotary"), std::string::npos);

    auto llama = presetFromHfConfig(R"({"model_type": "llama"})", "c.json");
    ASSERT_FALSE(llama);
    EXPECT_NE(llama.error().message.find("llama"), std::string::npos);
    EXPECT_FALSE(presetFromHfConfig("[1, 2]", "c.json"));
}
