// The fit verdict (fit_report.hpp, docs/FIT.md "Verdict") on synthetic heads built here from
// the formulas: the pure prior at the configured slope and at 1.3x, a uniform head, a
// diagonal-only, a sink-only and a previous-token head; and the report's rows and fields.
#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/io/attention_maps.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using alibi::AttentionMaps;
using alibi::FitVerdictKind;
using alibi::FitVerdictRole;
using alibi::HeadFit;
using namespace alibi::test;

constexpr std::int64_t kT = 512;
constexpr double kConfigured = 1.0 / 16;

// One causal head as T x T probabilities, row i from `row(i)` over keys 0..i.
template <class RowFn>
void appendHead(std::vector<float>& out, RowFn row) {
    for (std::int64_t i = 0; i < kT; ++i) {
        std::vector<double> p(static_cast<std::size_t>(kT), 0.0);
        row(i, p);
        double sum = 0;
        for (const double v : p) sum += v;
        for (const double v : p) out.push_back(static_cast<float>(v / sum));
    }
}

void priorRow(double m, std::int64_t i, std::vector<double>& p) {
    for (std::int64_t j = 0; j <= i; ++j) p[static_cast<std::size_t>(j)] = std::exp(-m * static_cast<double>(i - j));
}

enum Head { PureAtSlope, PureSteeper, Uniform, DiagonalOnly, SinkOnly, PreviousToken, HeadCount };

std::vector<HeadFit> fitSyntheticHeads() {
    std::vector<float> data;
    appendHead(data, [](std::int64_t i, std::vector<double>& p) { priorRow(kConfigured, i, p); });
    appendHead(data, [](std::int64_t i, std::vector<double>& p) { priorRow(1.3 * kConfigured, i, p); });
    appendHead(data, [](std::int64_t i, std::vector<double>& p) { priorRow(0.0, i, p); });
    appendHead(data, [](std::int64_t i, std::vector<double>& p) { p[static_cast<std::size_t>(i)] = 1; });
    appendHead(data, [](std::int64_t, std::vector<double>& p) { p[0] = 1; });
    appendHead(data,
               [](std::int64_t i, std::vector<double>& p) { p[static_cast<std::size_t>(i > 0 ? i - 1 : 0)] = 1; });
    const std::string file = npyBytes({HeadCount, kT, kT}, data);
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    EXPECT_TRUE(maps) << maps.error().message;
    if (!maps) return {};
    auto fits = alibi::fitHeads(*maps, {}, std::vector<double>(HeadCount, kConfigured));
    EXPECT_TRUE(fits) << fits.error().message;
    return fits ? *fits : std::vector<HeadFit>{};
}

class FitVerdictOnSyntheticHeads : public ::testing::Test {
protected:
    static void SetUpTestSuite() { s_fits = new std::vector<HeadFit>(fitSyntheticHeads()); }
    static void TearDownTestSuite() { delete s_fits; }
    static const HeadFit& head(Head h) { return (*s_fits)[static_cast<std::size_t>(h)]; }
    static std::vector<HeadFit>* s_fits;
};
std::vector<HeadFit>* FitVerdictOnSyntheticHeads::s_fits = nullptr;

TEST_F(FitVerdictOnSyntheticHeads, PurePriorAtTheConfiguredSlopeFollows) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    const auto v = alibi::fitVerdict(head(PureAtSlope));
    EXPECT_EQ(v.kind, FitVerdictKind::Follows) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "follows its slope");
    EXPECT_EQ(v.role, FitVerdictRole::Agrees);
    EXPECT_NE(v.reason.find("95% interval"), std::string::npos) << v.reason;
}

TEST_F(FitVerdictOnSyntheticHeads, PurePriorAt1point3xIsSteeper) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    const HeadFit& f = head(PureSteeper);
    EXPECT_NEAR(f.slope, 1.3 * kConfigured, 0.01 * kConfigured);
    const auto v = alibi::fitVerdict(f);
    EXPECT_EQ(v.kind, FitVerdictKind::Steeper) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "drifted: 1.3x steeper");
    EXPECT_EQ(v.role, FitVerdictRole::Differs);
}

TEST_F(FitVerdictOnSyntheticHeads, UniformHeadHasNoDistancePreferenceNotAHugeRatio) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    const HeadFit& f = head(Uniform);
    EXPECT_LE(f.slopeLow, 0.0);
    EXPECT_GE(f.slopeHigh, 0.0);
    const auto v = alibi::fitVerdict(f);
    EXPECT_EQ(v.kind, FitVerdictKind::NoDistancePreference) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "no distance preference");
    EXPECT_EQ(v.text.find('x'), std::string::npos);  // no "8.6e+15x flatter"
}

TEST_F(FitVerdictOnSyntheticHeads, DiagonalOnlyHeadIsOneKeyWithNoIntervalBelowZero) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    const HeadFit& f = head(DiagonalOnly);
    EXPECT_TRUE(f.slopeAtBound);
    EXPECT_EQ(f.slope, alibi::kFitSlopeMax);
    EXPECT_GE(f.slopeLow, 0.0);  // was [-1, 30]
    EXPECT_LE(f.slopeLow, f.slope);
    EXPECT_GE(f.slopeHigh, f.slope);
    EXPECT_GT(f.diagonalMass, 0.99);
    const auto v = alibi::fitVerdict(f);
    EXPECT_EQ(v.kind, FitVerdictKind::OneKey) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "one key only");
    EXPECT_EQ(v.role, FitVerdictRole::Unlike);
}

TEST_F(FitVerdictOnSyntheticHeads, SinkOnlyHeadPrefersFarKeys) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    const HeadFit& f = head(SinkOnly);
    EXPECT_GT(f.sinkMass, 0.99);
    EXPECT_LT(f.slope, 0.0);
    EXPECT_LE(f.slopeLow, f.slope);
    EXPECT_GE(f.slopeHigh, f.slope);
    const auto v = alibi::fitVerdict(f);
    EXPECT_EQ(v.kind, FitVerdictKind::PrefersFarKeys) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "prefers far keys");
}

TEST_F(FitVerdictOnSyntheticHeads, PreviousTokenHeadIsNotAlibiShaped) {
    ASSERT_EQ(s_fits->size(), static_cast<std::size_t>(HeadCount));
    // All mass at distance 1: the best prior still puts half on distance 0, KL about 2 log 2 > 1.
    const HeadFit& f = head(PreviousToken);
    EXPECT_GT(f.kl, alibi::kFitPoorKl);
    const auto v = alibi::fitVerdict(f);
    EXPECT_EQ(v.kind, FitVerdictKind::NotAlibiShaped) << v.text << ": " << v.reason;
    EXPECT_EQ(v.text, "not ALiBi-shaped");
    EXPECT_NE(v.reason.find("above 1"), std::string::npos) << v.reason;
}

// Hand-made fits for the rule's edges.
HeadFit fitOf(double slope, double low, double high, std::optional<double> configured, double kl = 0.01,
              double uniformKl = 0.5) {
    HeadFit f;
    f.rows = 100;
    f.slope = slope;
    f.slopeLow = low;
    f.slopeHigh = high;
    f.kl = kl;
    f.uniformKl = uniformKl;
    f.configuredSlope = configured;
    return f;
}

TEST(FitVerdict, RuleEdges) {
    // The head: m* 0.0526 in [0.0452, 0.0600] against 0.0625 drifted (outside the interval, 19% off).
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.0526, 0.0452, 0.0600, 0.0625)).text, "drifted: 1.2x flatter");
    // Inside the interval: follows, however narrow the KL gap.
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.0526, 0.0452, 0.0630, 0.0625)).kind, FitVerdictKind::Follows);
    // Outside a narrow interval but within 10% of m*: follows.
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.1, 0.0999, 0.1001, 0.095)).kind, FitVerdictKind::Follows);
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.1, 0.0999, 0.1001, 0.089)).kind, FitVerdictKind::Steeper);
    // 4x flatter.
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.125, 0.12, 0.13, 0.5)).text, "drifted: 4x flatter");
    // Poor fit wins over a wide interval that holds the slope.
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.1, -0.5, 0.9, 0.1, 1.5)).kind, FitVerdictKind::NotAlibiShaped);
    // The uniform prior nearly as good as m*: no distance preference, even with the interval above 0.
    EXPECT_EQ(alibi::fitVerdict(fitOf(1e-4, 5e-5, 1.5e-4, 0.0625, 0.2, 0.2005)).kind,
              FitVerdictKind::NoDistancePreference);
    // No configured slope.
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.1, 0.09, 0.11, std::nullopt)).kind, FitVerdictKind::AlibiShaped);
    EXPECT_EQ(alibi::fitVerdict(fitOf(0.1, 0.09, 0.11, std::nullopt)).role, FitVerdictRole::Neutral);
    HeadFit empty;
    EXPECT_EQ(alibi::fitVerdict(empty).text, "no rows");
    for (const auto kind :
         {FitVerdictKind::NoRows, FitVerdictKind::NotAlibiShaped, FitVerdictKind::OneKey,
          FitVerdictKind::PrefersFarKeys, FitVerdictKind::Follows, FitVerdictKind::NoDistancePreference,
          FitVerdictKind::Steeper, FitVerdictKind::Flatter, FitVerdictKind::AlibiShaped})
        EXPECT_FALSE(alibi::fitVerdictKindName(kind).empty());
}

TEST(FitReport, RowsRangeAndVerdictInEveryFormat) {
    std::vector<float> data;
    for (const double m : {0.25, 0.0625})
        appendHead(data, [m](std::int64_t i, std::vector<double>& p) { priorRow(m, i, p); });
    const std::string file = npyBytes({2, kT, kT}, data);
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::HeadFitOptions options;
    options.firstRow = 128;
    auto fits = alibi::fitHeads(*maps, options, {0.25, 0.25});
    ASSERT_TRUE(fits) << fits.error().message;
    alibi::FitReportOptions reportOptions;
    reportOptions.firstRow = 128;
    auto report = alibi::makeFitReport(*maps, *fits, "synthetic.npy", reportOptions);
    ASSERT_TRUE(report);
    EXPECT_EQ(report->firstRow, 128);
    EXPECT_EQ(report->endRow, kT);
    const std::string text = alibi::fitText(*report, *maps);
    EXPECT_EQ(text.find("every query row"), std::string::npos) << text;
    EXPECT_NE(text.find("query rows 128 to 511 of 512"), std::string::npos) << text;
    EXPECT_NE(text.find("follows its slope"), std::string::npos) << text;
    EXPECT_NE(text.find("drifted: 4x flatter"), std::string::npos) << text;
    const auto json = nlohmann::json::parse(alibi::fitJson(*report, *maps));
    EXPECT_EQ(json["fitted_rows"]["first"], 128);
    EXPECT_EQ(json["fitted_rows"]["end"], kT);
    EXPECT_EQ(json["fitted_rows"]["every"], false);
    EXPECT_EQ(json["heads"][0]["verdict"], "follows its slope");
    EXPECT_EQ(json["heads"][0]["verdict_kind"], "follows");
    EXPECT_EQ(json["heads"][1]["verdict"], "drifted: 4x flatter");
    EXPECT_EQ(json["heads"][1]["verdict_kind"], "flatter");
    const std::string csv = alibi::fitCsv(*report);
    EXPECT_NE(csv.find(",verdict,verdict_kind\n"), std::string::npos);
    EXPECT_NE(csv.find(",follows its slope,follows\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",drifted: 4x flatter,flatter\n"), std::string::npos) << csv;
}

// Lesson 05 quotes the verdicts of the bundled example maps: its words are the core's.
TEST(FitReport, TheLessonQuotesTheCoresVerdicts) {
    const std::string dir = ALIBI_LESSON_DIR;
    auto maps = AttentionMaps::open(dir + "/../attention/trained-like-4x8x64.npy");
    ASSERT_TRUE(maps) << maps.error().message;
    std::vector<double> press;
    for (int h = 0; h < 8; ++h) press.push_back(paperSlope(h, 8));
    auto fits = alibi::fitHeads(*maps, {}, press);
    ASSERT_TRUE(fits) << fits.error().message;
    const auto verdictOf = [&](int layer, int head) {
        for (const HeadFit& f : *fits)
            if (f.layer == layer && f.head == head) return alibi::fitVerdict(f).text;
        return std::string("?");
    };
    std::ifstream in(dir + "/05-reading-a-real-model.lesson.json");
    std::stringstream text;
    text << in.rdbuf();
    const std::string lesson = text.str();
    // “words” (UTF-8 quotes around the verdict, as the lesson's text writes it).
    const auto quoted = [&](const std::string& words) {
        return lesson.find("\u201c" + words + "\u201d") != std::string::npos;
    };
    for (int h = 0; h < 4; ++h) EXPECT_EQ(verdictOf(0, h), "follows its slope") << h;
    EXPECT_EQ(verdictOf(1, 4), "prefers far keys");
    EXPECT_EQ(verdictOf(1, 1), "not ALiBi-shaped");
    EXPECT_EQ(verdictOf(3, 3), "drifted: 4x flatter");
    for (const char* words : {"follows its slope", "prefers far keys", "not ALiBi-shaped", "drifted: 4x flatter"})
        EXPECT_TRUE(quoted(words)) << words;
}

}  // namespace
