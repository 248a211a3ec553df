// Every step of the five bundled lessons against what its text claims: the view it opens, the
// item it highlights, the numbers it quotes and, for a model's attention maps, the configured
// prior it names. The numbers come from the formulas (REFERENCES.md) or from the core's
// computation of the step's own session; a lesson whose text drifts from its picture fails here.
#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/lesson_state.hpp>
#include <alibi/explore/stages.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/lesson.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

using namespace alibi;

namespace {

const std::filesystem::path kLessons = ALIBI_LESSON_DIR;

Lesson load(const char* file) {
    auto lesson = loadLesson((kLessons / file).string());
    EXPECT_TRUE(lesson) << (lesson ? "" : lesson.error().message);
    return lesson ? std::move(*lesson) : Lesson{};
}

bool says(const LessonStep& step, const std::string& words) {
    return step.text.find(words) != std::string::npos;
}

std::vector<double> slopesOf(const Session& s) {
    auto slopes = computeSlopes(s.attention.bias.slopes);
    EXPECT_TRUE(slopes);
    return slopes ? *slopes : std::vector<double>{};
}

// The probabilities of `query`'s row of `head` in the step's session.
std::vector<double> row(const Session& s, int head, std::int64_t query) {
    auto r = attentionRow(s.attention, head, query);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : std::vector<double>{};
}

// A percentage the text prints with `decimals` decimals.
void expectPercent(double fraction, double quoted, int decimals) {
    EXPECT_NEAR(fraction * 100, quoted, 0.5 * std::pow(10.0, -decimals) + 1e-9);
}

}  // namespace

TEST(LessonSteps, SixSteps) {
    const Lesson lesson = load("01-alibi-in-five-steps.lesson.json");
    ASSERT_EQ(lesson.steps.size(), 6u);
    EXPECT_EQ(lesson.title, "ALiBi in six steps");  // the list says "(6 steps)" beside it
    const auto& st = lesson.steps;
    // 1: the bias of 8 heads at T = 16 in the grid.
    EXPECT_EQ(st[0].explorerView, ExplorerView::Grid);
    EXPECT_EQ(st[0].session.what, RenderWhat::Bias);
    EXPECT_EQ(st[0].session.attention.bias.slopes.heads, 8);
    EXPECT_EQ(st[0].session.attention.bias.queries, 16);
    // 2: head 2, m = 1/8, cell (12, 4) holds -1.
    EXPECT_EQ(st[1].explorerView, ExplorerView::Detail);
    EXPECT_EQ(st[1].session.head, 2);
    EXPECT_EQ(st[1].highlight.heads, std::vector<int>{2});
    EXPECT_EQ(slopesOf(st[1].session)[2], 1.0 / 8);
    ASSERT_TRUE(st[1].highlight.cell);
    EXPECT_EQ(*st[1].highlight.cell, (std::pair<std::int64_t, std::int64_t>{12, 4}));
    EXPECT_EQ(biasCell(BiasMode::Causal, 1.0 / 8, 12, 4, 16), -1.0);
    // 3: slopes 2^(-8(h+1)/8) = 1/2 ... 1/256, heads 0 and 7 marked.
    EXPECT_EQ(st[2].explorerView, ExplorerView::Curves);
    EXPECT_EQ(st[2].highlight.heads, (std::vector<int>{0, 7}));
    const auto slopes = slopesOf(st[2].session);
    for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<std::size_t>(h)], std::exp2(-(h + 1.0)));
    // 4: cell (3, 10) is 7 tokens in its query's future: masked.
    ASSERT_TRUE(st[3].highlight.cell);
    EXPECT_EQ(st[3].highlight.cell->second - st[3].highlight.cell->first, 7);
    EXPECT_FALSE(biasCell(BiasMode::Causal, 0.5, 3, 10, 16));
    EXPECT_TRUE(says(st[3], "−1e9"));
    // 5: head 0's last row: e^(-d/2) / sum_{d=0}^{15} e^(-d/2).
    EXPECT_EQ(st[4].explorerView, ExplorerView::Stages);
    EXPECT_EQ(explore::resolvedQueryRow(st[4].session), 15);
    double z = 0;
    for (int d = 0; d < 16; ++d) z += std::exp(-d / 2.0);
    const auto p0 = row(st[4].session, 0, 15);
    ASSERT_EQ(p0.size(), 16u);
    for (const auto& [d, quoted] : {std::pair{0, 39.4}, {1, 23.9}, {2, 14.5}}) {
        EXPECT_TRUE(says(st[4], fmt::format("{:.1f}\u00a0%", quoted))) << quoted;  // a no-break space
        expectPercent(std::exp(-d / 2.0) / z, quoted, 1);
        expectPercent(p0[static_cast<std::size_t>(15 - d)], quoted, 1);
    }
    EXPECT_EQ(*st[4].highlight.cell, (std::pair<std::int64_t, std::int64_t>{15, 15}));
    // 6: head 0 puts 39 % on itself; head 7 6.4 % on itself and 6.1 % on the first token.
    EXPECT_EQ(st[5].session.what, RenderWhat::Attention);
    expectPercent(row(st[5].session, 0, 15)[15], 39, 0);
    const auto p7 = row(st[5].session, 7, 15);
    expectPercent(p7[15], 6.4, 1);
    expectPercent(p7[0], 6.1, 1);
}

TEST(LessonSteps, Slopes) {
    const Lesson lesson = load("02-slopes.lesson.json");
    ASSERT_EQ(lesson.steps.size(), 5u);
    const auto& st = lesson.steps;
    EXPECT_EQ(slopesOf(st[0].session).back(), 1.0 / 256);
    // 2: H = 12 adds 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 as heads 8 to 11.
    const auto twelve = slopesOf(st[1].session);
    ASSERT_EQ(twelve.size(), 12u);
    for (int n = 0; n < 4; ++n) EXPECT_DOUBLE_EQ(twelve[static_cast<std::size_t>(8 + n)], std::exp2(-0.5 - n));
    EXPECT_EQ(st[1].highlight.heads, (std::vector<int>{8, 9, 10, 11}));
    // 3: A - B is largest in head 8, 10.37 at the marked cell (15, 0).
    ASSERT_TRUE(st[2].session.compare);
    const auto compare = explore::computeCompare(st[2].session, *st[2].session.compare, 64, 64);
    ASSERT_TRUE(compare.error.empty()) << compare.error;
    EXPECT_EQ(compare.maxHead, 8);
    EXPECT_EQ(st[2].highlight.heads, std::vector<int>{8});
    EXPECT_EQ(*st[2].highlight.cell, (std::pair<std::int64_t, std::int64_t>{compare.maxQuery, compare.maxKey}));
    EXPECT_NEAR(compare.maxAbsDifference, 10.37, 0.005);
    // 4: B = 16, 32 heads: 2^-0.5 down to 2^-16; the flattest head's penalty is 1 at 65 536.
    const auto storyWriter = slopesOf(st[3].session);
    ASSERT_EQ(storyWriter.size(), 32u);
    EXPECT_DOUBLE_EQ(storyWriter.front(), std::exp2(-0.5));
    EXPECT_DOUBLE_EQ(storyWriter.back(), std::exp2(-16));
    EXPECT_EQ(st[3].highlight.heads, (std::vector<int>{0, 31}));
    // 5: the off-by-one: largest in head 0, 7.5 at distance 15.
    ASSERT_TRUE(st[4].session.compare);
    const auto offByOne = explore::computeCompare(st[4].session, *st[4].session.compare, 64, 64);
    ASSERT_TRUE(offByOne.error.empty()) << offByOne.error;
    EXPECT_EQ(offByOne.maxHead, 0);
    EXPECT_DOUBLE_EQ(offByOne.maxAbsDifference, 7.5);
    EXPECT_EQ(*st[4].highlight.cell, (std::pair<std::int64_t, std::int64_t>{15, 0}));
}

TEST(LessonSteps, TrainShortTestLong) {
    const Lesson lesson = load("03-train-short-test-long.lesson.json");
    ASSERT_EQ(lesson.steps.size(), 5u);
    const auto& st = lesson.steps;
    for (const LessonStep& step : st) EXPECT_EQ(step.explorerView, ExplorerView::Extrapolation);
    const auto e = explore::computeExtrapolation(st[0].session, 0);
    ASSERT_TRUE(e.error.empty()) << e.error;
    EXPECT_EQ(e.trainLength, 64);
    EXPECT_EQ(e.lengths, (std::vector<std::int64_t>{64, 128, 256, 512, 1024}));
    const auto beyond = [&](int head, std::size_t length) {
        return e.massBeyond[static_cast<std::size_t>(head)][length];
    };
    // 2: head 2 (m = 1/8) puts 0.03 % beyond L at every length from 2 L.
    EXPECT_EQ(st[1].session.head, 2);
    EXPECT_EQ(st[1].highlight.heads, std::vector<int>{2});
    for (std::size_t n = 1; n < e.lengths.size(); ++n) expectPercent(beyond(2, n), 0.03, 2);
    // 3: head 7: 43 % at T = 128, 77 % at T = 1024.
    EXPECT_EQ(st[2].session.head, 7);
    expectPercent(beyond(7, 1), 43, 0);
    expectPercent(beyond(7, 4), 77, 0);
    // 4: heads 0 to 3 marked, below 2 % at every length.
    EXPECT_EQ(st[3].highlight.heads, (std::vector<int>{0, 1, 2, 3}));
    for (int h = 0; h < 4; ++h)
        for (std::size_t n = 0; n < e.lengths.size(); ++n) EXPECT_LT(beyond(h, n), 0.02) << h << " " << n;
    // 5: heads 6 and 7, the heads it cites, are the ones marked (the table scrolls to them).
    EXPECT_EQ(st[4].highlight.heads, (std::vector<int>{6, 7}));
    expectPercent(beyond(6, 4), 60, 0);
    expectPercent(beyond(7, 4), 77, 0);
}

TEST(LessonSteps, SameModelDifferentCode) {
    const Lesson lesson = load("04-same-model-different-code.lesson.json");
    ASSERT_EQ(lesson.steps.size(), 7u);
    const auto& st = lesson.steps;
    // Steps 1 to 3: the stages of head 0 at a row whose per-row offsets are not 0 (query 8 of 16).
    std::vector<AttentionStages> stages;
    for (int n = 0; n < 3; ++n) {
        EXPECT_EQ(st[n].explorerView, ExplorerView::Stages);
        EXPECT_EQ(st[n].highlight.heads, std::vector<int>{0});
        const std::int64_t query = explore::resolvedQueryRow(st[n].session);
        EXPECT_EQ(query, 8);
        auto s = attentionStages(st[n].session.attention, 0, query);
        ASSERT_TRUE(s) << s.error().message;
        stages.push_back(std::move(*s));
    }
    EXPECT_EQ(st[1].session.attention.bias.mode, BiasMode::Bloom);
    EXPECT_EQ(st[2].session.attention.bias.mode, BiasMode::Mpt);
    EXPECT_TRUE(says(st[1], "1/2 × 8 = 4"));
    EXPECT_TRUE(says(st[2], "1/2 × (15 − 8) = 3.5"));
    // Keys 0..8: the logits move by +m·i = +4 (BLOOM) and -m·(K-1-i) = -3.5 (llm-foundry); the
    // probabilities stay (to float rounding).
    for (std::size_t j = 0; j <= 8; ++j) {
        EXPECT_NEAR(stages[1].withBias[j] - stages[0].withBias[j], 4.0, 1e-5) << j;
        EXPECT_NEAR(stages[2].withBias[j] - stages[0].withBias[j], -3.5, 1e-5) << j;
        EXPECT_NEAR(stages[1].probabilities[j], stages[0].probabilities[j], 1e-6) << j;
        EXPECT_NEAR(stages[2].probabilities[j], stages[0].probabilities[j], 1e-6) << j;
    }
    // 4: BLOOM's last row: 1/2 × 15 = +7.5 at the marked cell (15, 15).
    EXPECT_EQ(st[3].explorerView, ExplorerView::Grid);
    EXPECT_EQ(*st[3].highlight.cell, (std::pair<std::int64_t, std::int64_t>{15, 15}));
    EXPECT_EQ(biasCell(BiasMode::Bloom, 0.5, 15, 15, 16), 7.5);
    // 5: Q = 4, K = 16: query 0 sits at position 12, the marked cell (0, 12) at distance 0.
    const BiasParams& cache = st[4].session.attention.bias;
    EXPECT_EQ(cache.queries, 4);
    EXPECT_EQ(cache.keyCount(), 16);
    EXPECT_EQ(cache.queryPosition(0), 12);
    EXPECT_EQ(*st[4].highlight.cell, (std::pair<std::int64_t, std::int64_t>{0, 12}));
    EXPECT_EQ(explore::resolvedQueryRow(st[4].session), 3);  // the row is valid for Q = 4
    // 6: -1e9 in f16 is -inf at the marked masked cell (0, 15); 7: mask min is -65504.
    EXPECT_EQ(st[5].session.attention.bias.dtype, DType::F16);
    EXPECT_EQ(biasValue(st[5].session.attention.bias, 0.5, 0, 0, 15), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(biasValue(st[6].session.attention.bias, 0.5, 0, 0, 15), -65504.0);
}

TEST(LessonSteps, ReadingARealModel) {
    const Lesson lesson = load("05-reading-a-real-model.lesson.json");
    ASSERT_EQ(lesson.steps.size(), 6u);
    const auto& st = lesson.steps;
    auto maps = AttentionMaps::open(st[0].attentionMaps);
    ASSERT_TRUE(maps) << maps.error().message;
    // The configured prior every step reads against: the session's slopes, 1/2 ... 1/256.
    const auto configured = slopesOf(st[0].session);
    ASSERT_EQ(static_cast<int>(configured.size()), maps->heads());
    auto fits = fitHeads(*maps, {}, configured);
    ASSERT_TRUE(fits) << fits.error().message;
    const auto fit = [&](int layer, int head) -> const HeadFit& {
        for (const HeadFit& f : *fits)
            if (f.layer == layer && f.head == head) return f;
        return fits->front();
    };
    // 2: layer 0, heads 0-3 marked, m* = 0.486, 0.249, 0.123, 0.063 against 1/2 ... 1/16.
    EXPECT_EQ(st[1].layer, 0);
    EXPECT_EQ(st[1].highlight.heads, (std::vector<int>{0, 1, 2, 3}));
    // The mark both explorers draw: rows of heads 0-3 in the maps' fit table, nothing in the
    // ALiBi views beside it.
    using explore::LessonMarkScope;
    const explore::LessonMark rows = explore::lessonMark(st[1], LessonMarkScope::AttentionMaps);
    EXPECT_EQ(rows.heads, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(rows.cellHead, -1);
    EXPECT_TRUE(explore::lessonMark(st[1], LessonMarkScope::ExplorerViews).empty());
    const double quoted[] = {0.486, 0.249, 0.123, 0.063};
    for (int h = 0; h < 4; ++h) {
        EXPECT_NEAR(fit(0, h).slope, quoted[h], 0.0005 + 1e-9) << h;
        ASSERT_TRUE(fit(0, h).configuredSlope);
        EXPECT_EQ(*fit(0, h).configuredSlope, std::exp2(-(h + 1.0)));
    }
    // 3: layer 1 head 4: 53 % on token 0, m* = -0.060; the marked cell is (63, 0).
    EXPECT_EQ(st[2].layer, 1);
    EXPECT_EQ(st[2].session.head, 4);
    EXPECT_EQ(*st[2].highlight.cell, (std::pair<std::int64_t, std::int64_t>{63, 0}));
    const explore::LessonMark sink = explore::lessonMark(st[2], LessonMarkScope::AttentionMaps);
    EXPECT_TRUE(sink.marksCell(4, 63, 0));
    EXPECT_FALSE(sink.marksCell(4, 0, 63));
    EXPECT_TRUE(explore::lessonMark(st[2], LessonMarkScope::ExplorerViews).empty());
    expectPercent(fit(1, 4).sinkMass, 53, 0);
    EXPECT_NEAR(fit(1, 4).slope, -0.060, 0.0005);
    // 4: layer 1 head 1, query 40: 99 % on key 39; mean distance 1.01, m* = 0.67, KL = 1.3,
    // configured slope 1/4.
    EXPECT_EQ(st[3].session.queryRow, 40);
    EXPECT_EQ(*st[3].highlight.cell, (std::pair<std::int64_t, std::int64_t>{40, 39}));
    std::vector<double> r(static_cast<std::size_t>(maps->keys()));
    ASSERT_TRUE(maps->probabilities(*maps->layerIndexOf(1), 1, 40, r));
    expectPercent(r[39], 99, 0);
    EXPECT_NEAR(fit(1, 1).meanDistance, 1.01, 0.005);
    EXPECT_NEAR(fit(1, 1).slope, 0.67, 0.005);
    EXPECT_NEAR(fit(1, 1).kl, 1.3, 0.05);
    EXPECT_EQ(*fit(1, 1).configuredSlope, 1.0 / 4);
    EXPECT_TRUE(says(st[3], "configured slope 1/4"));
    // 5: layer 3 head 3: configured 1/16, m* = 0.0156 = 1/64, its own row (63), not step 4's.
    EXPECT_EQ(st[4].layer, 3);
    EXPECT_EQ(st[4].session.head, 3);
    EXPECT_EQ(st[4].session.queryRow, 63);
    EXPECT_EQ(*fit(3, 3).configuredSlope, 1.0 / 16);
    EXPECT_NEAR(fit(3, 3).slope, 0.0156, 0.00005);
    EXPECT_TRUE(says(st[4], "configured slope 1/16"));
    // 6: the similarity of layer 3, every head.
    EXPECT_EQ(st[5].layer, 3);
    EXPECT_EQ(st[5].session.head, -1);
}
