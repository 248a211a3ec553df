// The explorers' model run (lm/live_run.hpp) on the shipped example model: A's maps open with
// their tokens, the loss per position is the forward pass's, B's loss is the changed slopes'
// pass, and each head's attention change is the mean over rows of the total variation between
// the two passes' maps, computed here from both passes' whole attention (keepAttention), not
// from the run's streamed comparison. Refusals come back as the core's errors, and the temporary
// maps file goes with the run.
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include <alibi/lm/live_run.hpp>
#include "tiny_model_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace alibi::test {
namespace {

const std::string kExample = std::string(ALIBI_TEST_DATA_DIR) + "/../../assets/models/license-bloom-tiny";

class LiveRunTest : public TempDirTest {};

TEST_F(LiveRunTest, RunsTheExampleModelWithTokensLossAndChange) {
    LiveModelParams p;
    p.path = kExample;
    p.text = "Permission is hereby granted, free of charge, to any person";
    p.change.scale = 0.5;
    p.change.headSlopes[2] = 0.75;
    lm::LiveRunOptions options;
    options.tempFolder = m_dir.string();
    std::uint64_t lastDone = 0, lastTotal = 0;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_GE(done, lastDone);
        lastDone = done;
        lastTotal = total;
        return true;
    };
    auto run = lm::runLive(p, options);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(lastDone, lastTotal);
    const auto tokens = lm::tokensOfText(kExample, p.text);
    ASSERT_TRUE(tokens);
    const auto T = static_cast<std::int64_t>(tokens->ids.size());
    ASSERT_GT(T, 8);
    // A's maps, with the tokens on every key.
    ASSERT_TRUE(run->maps);
    EXPECT_EQ(run->maps->layers(), 2);
    EXPECT_EQ(run->maps->heads(), 6);
    EXPECT_EQ(run->maps->keys(), T);
    ASSERT_EQ(run->maps->tokens().size(), static_cast<std::size_t>(T));
    EXPECT_EQ(run->maps->tokens(), tokens->text);
    EXPECT_TRUE(std::filesystem::exists(run->mapsPath));

    // A and B against the forward pass, each holding every map.
    auto model = lm::Checkpoint::open(kExample);
    ASSERT_TRUE(model);
    lm::ForwardOptions fa;
    fa.keepAttention = true;
    auto a = lm::runForward(*model, tokens->ids, fa);
    ASSERT_TRUE(a);
    lm::ForwardOptions fb = fa;
    fb.slopes = p.change;
    auto b = lm::runForward(*model, tokens->ids, fb);
    ASSERT_TRUE(b);
    ASSERT_EQ(run->loss.a.loss, a->loss);
    ASSERT_TRUE(run->loss.b);
    ASSERT_EQ(run->loss.b->loss, b->loss);
    EXPECT_EQ(run->loss.b->slopes[2], 0.75);
    EXPECT_EQ(run->loss.b->slopes[0], 0.5 * 0.25);
    // The maps file holds A's attention as the pass gave it (float32 stored exactly).
    std::vector<double> row(static_cast<std::size_t>(T));
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 6; ++h) {
            const auto q = T - 1;
            ASSERT_TRUE(run->maps->storedRow(l, h, q, row));
            for (std::int64_t j = 0; j < T; ++j)
                EXPECT_EQ(row[static_cast<std::size_t>(j)],
                          a->attention[static_cast<std::size_t>(((l * 6 + h) * T + q) * T + j)]);
        }
    // Each head's change: mean over rows of 1/2 sum_j |P_B - P_A|, and its largest row.
    ASSERT_EQ(run->meanChange.size(), 12u);
    bool someChange = false;
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 6; ++h) {
            double sum = 0, most = 0;
            for (std::int64_t i = 0; i < T; ++i) {
                double tv = 0;
                for (std::int64_t j = 0; j < T; ++j) {
                    const auto at = static_cast<std::size_t>(((l * 6 + h) * T + i) * T + j);
                    tv += std::abs(static_cast<double>(b->attention[at]) - a->attention[at]);
                }
                sum += tv / 2;
                most = std::max(most, tv / 2);
            }
            const auto k = static_cast<std::size_t>(l * 6 + h);
            EXPECT_NEAR(run->meanChange[k], sum / static_cast<double>(T), 1e-12) << l << " " << h;
            EXPECT_NEAR(run->maxChange[k], most, 1e-12) << l << " " << h;
            EXPECT_GE(run->meanChange[k], 0.0);
            EXPECT_LE(run->maxChange[k], 1.0);
            someChange |= run->meanChange[k] > 1e-3;
        }
    EXPECT_TRUE(someChange);
    // The views' series: A and B loss per position, one change series per layer.
    const auto loss = lm::liveLossSeries(*run);
    ASSERT_EQ(loss.size(), 2u);
    EXPECT_EQ(loss[0].x.front(), 1.0);
    EXPECT_EQ(loss[0].y.size(), static_cast<std::size_t>(T - 1));
    EXPECT_EQ(lm::liveChangeSeries(*run).size(), 2u);
    EXPECT_NE(lm::liveLossLine(*run).find("B: slopes x0.5, head 2 = 0.75"), std::string::npos)
        << lm::liveLossLine(*run);

    // The file goes with the run's last copy.
    const std::string file = run->mapsPath;
    run->files.reset();
    run->maps.reset();
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_TRUE(entries().empty());
}

TEST_F(LiveRunTest, WithoutAChangeOnlyARunsAndTheLengthCutsTheText) {
    LiveModelParams p;
    p.path = kExample;
    p.length = 5;
    lm::LiveRunOptions options;
    options.tempFolder = m_dir.string();
    auto run = lm::runLive(p, options);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_FALSE(run->loss.b);
    EXPECT_TRUE(run->meanChange.empty());
    EXPECT_EQ(run->maps->keys(), 5);
    EXPECT_EQ(run->loss.a.loss.size(), 4u);
    EXPECT_TRUE(lm::liveChangeSeries(*run).empty());

    p.length = 100000;
    auto tooLong = lm::runLive(p, options);
    ASSERT_FALSE(tooLong);
    EXPECT_NE(tooLong.error().message.find("--length 100000: the text gives"), std::string::npos)
        << tooLong.error().message;
}

TEST_F(LiveRunTest, RefusalsAreTheCoresAndLeaveNoFile) {
    const std::filesystem::path tmp = m_dir / "tmp";
    std::filesystem::create_directories(tmp);
    const auto tmpEmpty = [&] { return std::filesystem::is_empty(tmp); };
    lm::LiveRunOptions options;
    options.tempFolder = tmp.string();
    const auto refused = [&](const LiveModelParams& p, const std::string& words) {
        auto run = lm::runLive(p, options);
        ASSERT_FALSE(run);
        EXPECT_NE(run.error().message.find(words), std::string::npos) << run.error().message;
        EXPECT_TRUE(tmpEmpty());
    };
    LiveModelParams p;
    refused(p, "no model is open");
    const std::filesystem::path llama = m_dir / "llama";
    std::filesystem::create_directories(llama);
    spit((llama / "config.json").string(), R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})");
    p.path = llama.string();
    refused(p, "does not use ALiBi");
    std::filesystem::remove_all(llama);
    p.path = (m_dir / "no-such-folder").string();
    refused(p, "no-such-folder");
    p.path = kExample;
    p.change.headSlopes[6] = 0.5;  // the model has heads 0 to 5
    refused(p, "head 6 does not exist");
    p.change = {};
    p.change.scale = -1;
    refused(p, "--slope-scale");
    // Cancelled from the progress: ErrorCode::Cancelled, no file left.
    p.change = {};
    options.progress = [](std::uint64_t done, std::uint64_t) { return done < 1; };
    auto run = lm::runLive(p, options);
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, ErrorCode::Cancelled);
    EXPECT_TRUE(tmpEmpty());
}

}  // namespace
}  // namespace alibi::test
