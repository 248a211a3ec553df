// Tests for <alibi/io/preset.hpp>: the shipped preset files and Hugging Face config reading.
#include <alibi/io/preset.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>

#include <algorithm>
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
    for (const char* id :
         {"bloom-176b", "mpt-7b-storywriter", "mpt-30b", "baichuan2-13b", "falcon-rw-1b", "replit-code-v1.5-3b",
          "jina-embeddings-v2-small-en", "mosaic-bert-base", "jais-30b", "poro-34b"})
        EXPECT_TRUE(ids.count(id)) << id;
}

// The numbers each preset must carry, as the models' published config.json files give them
// (heads, max_bias / alibi_bias_max, training length), read from those files for this test.
TEST(Preset, ShippedNumbersMatchThePublishedConfigs) {
    struct Want {
        const char* id;
        int heads;
        double maxBias;
        std::int64_t trainLength;
        BiasMode mode;
        Arith arith;
    };
    const Want wants[] = {
        {"bloom-560m", 16, 8, 2048, BiasMode::Bloom, Arith::HfBloom},   // bigscience/bloom-560m n_head 16
        {"bloom-176b", 112, 8, 2048, BiasMode::Bloom, Arith::HfBloom},  // bigscience/bloom n_head 112
        {"mpt-7b", 32, 8, 2048, BiasMode::Mpt, Arith::LlmFoundry},      // mosaicml/mpt-7b alibi_bias_max 8
        {"mpt-7b-storywriter", 32, 16, 65536, BiasMode::Mpt,
         Arith::LlmFoundry},                                                     // alibi_bias_max 16, max_seq_len 65536
        {"mpt-30b", 64, 8, 8192, BiasMode::Mpt, Arith::LlmFoundry},              // n_heads 64, max_seq_len 8192
        {"replit-code-v1-3b", 32, 8, 2048, BiasMode::Mpt, Arith::LlmFoundry},    // n_heads 32, max_seq_len 2048
        {"replit-code-v1.5-3b", 24, 8, 4096, BiasMode::Mpt, Arith::LlmFoundry},  // n_heads 24, max_seq_len 4096
        {"baichuan-13b", 40, 8, 4096, BiasMode::Bloom,
         Arith::Fairseq},  // num_attention_heads 40, model_max_length 4096
        {"baichuan2-13b", 40, 8, 4096, BiasMode::Bloom,
         Arith::Fairseq},  // num_attention_heads 40, model_max_length 4096
        {"falcon-rw-1b", 32, 8, 2048, BiasMode::Bloom, Arith::HfFalcon},                // alibi true, n_head 32
        {"falcon-rw-7b", 64, 8, 2048, BiasMode::Bloom, Arith::HfFalcon},                // alibi true, n_head 64
        {"jina-embeddings-v2-small-en", 8, 8, 512, BiasMode::Symmetric, Arith::Exact},  // num_attention_heads 8
        {"jina-bert-v2", 12, 8, 512, BiasMode::Symmetric, Arith::Exact},                // base: num_attention_heads 12
        {"jais-13b", 40, 8, 2048, BiasMode::Causal, Arith::Exact},                      // n_head 40, n_positions 2048
        {"jais-30b", 56, 8, 2048, BiasMode::Causal, Arith::Exact},  // jais-30b-v1: n_head 56, n_positions 2048
    };
    for (const Want& w : wants) {
        auto p = findPreset(w.id, {ALIBI_PRESET_DIR});
        ASSERT_TRUE(p) << w.id << ": " << p.error().message;
        EXPECT_EQ(p->heads, w.heads) << w.id;
        EXPECT_EQ(p->maxBias, w.maxBias) << w.id;
        EXPECT_EQ(p->trainLength, w.trainLength) << w.id;
        EXPECT_EQ(p->mode, w.mode) << w.id;
        EXPECT_EQ(p->arith, w.arith) << w.id;
    }
}

TEST(Preset, ExplorerListSkipsBadFilesAndMatches) {
    std::vector<std::string> problems;
    const auto presets = loadPresets({"/nonexistent-folder", ALIBI_PRESET_DIR}, &problems);
    ASSERT_GE(presets.size(), 22u);
    EXPECT_TRUE(problems.empty());
    EXPECT_TRUE(
        std::is_sorted(presets.begin(), presets.end(), [](const Preset& a, const Preset& b) { return a.id < b.id; }));
    Session s = defaultSession();
    applyPreset(s, presets.front());
    EXPECT_TRUE(presetMatches(s, presets.front()));
    s.attention.bias.slopes.arith = Arith::Exact == presets.front().arith ? Arith::Fairseq : Arith::Exact;
    EXPECT_FALSE(presetMatches(s, presets.front()));  // arith is part of the preset
    EXPECT_TRUE(loadPresets({"/nonexistent-folder"}).empty());
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

    auto jina = presetFromHfConfig(
        R"({"model_type": "bert", "num_attention_heads": 12, "position_embedding_type": "alibi"})", "config.json");
    ASSERT_TRUE(jina) << jina.error().message;
    EXPECT_EQ(jina->mode, BiasMode::Symmetric);

    auto noHeads = presetFromHfConfig(R"({"model_type": "baichuan", "model_max_length": 4096})", "config.json");
    ASSERT_FALSE(noHeads);
    EXPECT_NE(noHeads.error().message.find("num_attention_heads"), std::string::npos) << noHeads.error().message;

    auto rotary =
        presetFromHfConfig(R"({"model_type": "falcon", "num_attention_heads": 71, "alibi": false})", "c.json");
    ASSERT_FALSE(rotary);
    EXPECT_NE(rotary.error().message.find("rotary"), std::string::npos);

    auto llama = presetFromHfConfig(R"({"model_type": "llama"})", "c.json");
    ASSERT_FALSE(llama);
    EXPECT_NE(llama.error().message.find("llama"), std::string::npos);
    EXPECT_FALSE(presetFromHfConfig("[1, 2]", "c.json"));

    // Members of another type are refused by name, never thrown (nlohmann's value() threw
    // type_error: {"model_type": 5} ended a --from-config).
    for (const char* config : {R"({"model_type": 5})", R"({"model_type": "falcon", "alibi": "yes"})",
                               R"({"model_type": "mpt", "n_heads": 8, "attn_config": {"alibi": 1}})",
                               R"({"model_type": "bert", "num_attention_heads": 12, "position_embedding_type": 7})"}) {
        auto odd = presetFromHfConfig(config, "c.json");
        EXPECT_FALSE(odd) << config;
    }
    auto mode = parsePreset(R"({"name": "x", "source": "s", "heads": 8, "mode": 5, "max_bias": 8})", "p.json");
    ASSERT_FALSE(mode);
    EXPECT_NE(mode.error().message.find("field `mode`"), std::string::npos) << mode.error().message;
}
