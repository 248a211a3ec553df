// Opening model folders: single and sharded weights, and hostile checkpoints (shapes that
// disagree with config.json, a truncated shard, an index naming a missing file or the wrong
// shard, a pickle-only folder, a file changed after opening): a clear error, never a crash.
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include "tiny_model_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace alibi::test {
namespace {

class LmCheckpoint : public TempDirTest {
protected:
    std::string folder() const { return m_dir.string(); }
    void expectError(const std::string& words, ErrorCode code = ErrorCode::BadInput) {
        auto cp = lm::Checkpoint::open(folder());
        ASSERT_FALSE(cp);
        EXPECT_EQ(cp.error().code, code) << cp.error().message;
        EXPECT_NE(cp.error().message.find(words), std::string::npos) << cp.error().message;
    }
};

TEST_F(LmCheckpoint, OpensSingleAndShardedAlike) {
    for (auto arch : {lm::Architecture::Bloom, lm::Architecture::Mpt}) {
        TinyModel m;
        m.arch = arch;
        m.layers = 2;
        m.heads = 4;
        std::vector<float> losses[2];
        for (int shards : {1, 3}) {
            std::filesystem::remove_all(m_dir);
            std::filesystem::create_directories(m_dir);
            writeTinyModel(folder(), m, shards);
            auto cp = lm::Checkpoint::open(folder());
            ASSERT_TRUE(cp) << cp.error().message;
            EXPECT_EQ(cp->shards(), shards);
            EXPECT_EQ(cp->dtypes(), "f32");
            const std::vector<std::int64_t> ids{1, 5, 2, 9, 3};
            auto run = lm::runForward(*cp, ids);
            ASSERT_TRUE(run) << run.error().message;
            losses[shards == 1 ? 0 : 1] = run->loss;
        }
        EXPECT_EQ(losses[0], losses[1]);
    }
}

TEST_F(LmCheckpoint, RefusesShapesThatDisagreeWithTheConfig) {
    TinyModel m;
    writeTinyModel(folder(), m);
    TinyModel wider = m;
    wider.d = 16;
    spit(path("config.json"), tinyConfig(wider));
    expectError("but config.json");
    TinyModel deeper = m;
    deeper.layers = 2;
    spit(path("config.json"), tinyConfig(deeper));
    expectError("no tensor 'h.1.input_layernorm.weight'");
}

TEST_F(LmCheckpoint, RefusesATruncatedShard) {
    TinyModel m;
    m.arch = lm::Architecture::Mpt;
    writeTinyModel(folder(), m, 2);
    const std::string shard = path("model-00002-of-00002.safetensors");
    std::filesystem::resize_file(shard, std::filesystem::file_size(shard) - 12);
    expectError("truncated");
}

TEST_F(LmCheckpoint, RefusesAnIndexNamingAMissingFile) {
    TinyModel m;
    writeTinyModel(folder(), m, 2);
    std::filesystem::remove(path("model-00002-of-00002.safetensors"));
    expectError("names the shard 'model-00002-of-00002.safetensors', which is not in the folder");
}

TEST_F(LmCheckpoint, RefusesAnIndexPointingAtTheWrongShard) {
    TinyModel m;
    writeTinyModel(folder(), m, 2);
    std::string index = slurp(path("model.safetensors.index.json"));
    const auto at = index.find("model-00002");
    ASSERT_NE(at, std::string::npos);
    index.replace(at, 11, "model-00001");
    spit(path("model.safetensors.index.json"), index);
    expectError("has no such tensor");
}

TEST_F(LmCheckpoint, NeverOpensAPickle) {
    spit(path("config.json"), tinyConfig(TinyModel{}));
    spit(path("pytorch_model.bin"), "PK\x03\x04 not really a zip");
    expectError("never opens");
}

TEST_F(LmCheckpoint, RefusesWhatIsNotAModelFolder) {
    expectError("no config.json");
    spit(path("config.json"), tinyConfig(TinyModel{}));
    expectError("neither model.safetensors nor");
    auto file = lm::Checkpoint::open(path("config.json"));
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message.find("not a folder"), std::string::npos);
    spit(path("config.json"), R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})");
    expectError("does not use ALiBi", ErrorCode::InvalidArgument);
    spit(path("config.json"), tinyConfig(TinyModel{}));
    spit(path("model.safetensors"), "not a safetensors file at all");
    expectError("header length");
}

TEST_F(LmCheckpoint, AFileChangedAfterOpeningIsAnErrorNotACrash) {
    TinyModel m;
    m.layers = 2;
    writeTinyModel(folder(), m);
    auto cp = lm::Checkpoint::open(folder());
    ASSERT_TRUE(cp);
    std::filesystem::resize_file(path("model.safetensors"), 100);
    auto run = lm::runForward(*cp, std::vector<std::int64_t>{1, 2, 3});
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, ErrorCode::Io);
    EXPECT_NE(run.error().message.find("changed on disk"), std::string::npos) << run.error().message;
}

TEST_F(LmCheckpoint, RefusesBadTokensBudgetsAndStopsWhenCancelled) {
    TinyModel m;
    m.layers = 3;
    writeTinyModel(folder(), m);
    auto cp = lm::Checkpoint::open(folder());
    ASSERT_TRUE(cp);
    auto outside = lm::runForward(*cp, std::vector<std::int64_t>{1, 16});
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.error().message.find("outside the model's vocabulary of 16"), std::string::npos);
    auto empty = lm::runForward(*cp, std::vector<std::int64_t>{});
    ASSERT_FALSE(empty);
    lm::ForwardOptions small;
    small.budget = 1000;
    auto big = lm::runForward(*cp, std::vector<std::int64_t>(50, 1), small);
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().code, ErrorCode::TooLarge);
    lm::ForwardOptions cancel;
    int calls = 0;
    cancel.progress = [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_EQ(total, 4u);
        ++calls;
        return done < 2;
    };
    auto stopped = lm::runForward(*cp, std::vector<std::int64_t>{1, 2, 3}, cancel);
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().code, ErrorCode::Cancelled);
    EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace alibi::test
