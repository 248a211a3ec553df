// The Diagnose view's words both explorers show, from a diagnosis built here by hand: each
// finding's effect after softmax (an error only when it changes attention), the slopes as
// fractions, the first mismatch, and "Open the corrected parameters" only when something is
// wrong and correct parameters are known.
#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/diagnosis_report.hpp>

#include <gtest/gtest.h>

using namespace alibi;

TEST(DiagnosisReport, FindingsSayTheirEffectAfterSoftmax) {
    Diagnosis d;
    Finding flipped{"sign-flipped", "message with --flag", "message with the explorer's control"};
    flipped.changesAttention = true;
    flipped.maxProbabilityChange = 0.42345;
    flipped.fix = "bias = -m * d";
    Finding harmless{"mask-min", "m"};
    harmless.changesAttention = false;
    Finding informational{"static-kv-cache", "m"};
    informational.changesAttention = false;
    informational.informational = true;
    d.findings = {flipped, harmless, informational};
    d.inferredSlopes = {0.5, 0.25};
    d.maxAbsError = 15;
    d.firstMismatchIndex = std::vector<std::int64_t>{0, 3, 1};
    d.firstMismatchActual = 1.5;
    d.firstMismatchExpected = -1.5;

    const auto r = explore::diagnosisReportText(d, "bias.npy", Shape{8, 16, 16}, DType::F32);
    EXPECT_EQ(r.heading, "bias.npy · shape (8, 16, 16) · f32");
    ASSERT_EQ(r.findings.size(), 3u);
    EXPECT_EQ(r.findings[0].effect, "changes attention, up to 0.423 in one probability");
    EXPECT_TRUE(r.findings[0].changesAttention);
    EXPECT_EQ(r.findings[0].message, "message with the explorer's control");
    EXPECT_EQ(r.findings[0].fix, "Fix: bias = -m * d");
    EXPECT_EQ(r.findings[1].effect, "harmless: no change after softmax");
    EXPECT_FALSE(r.findings[1].changesAttention);
    EXPECT_EQ(r.findings[1].fix, "");
    EXPECT_EQ(r.findings[2].effect, "informational, no change after softmax");
    EXPECT_TRUE(r.noFindings.empty());
    EXPECT_EQ(r.slopes, (std::vector<std::string>{"h0: 1/2", "h1: 1/4"}));
    EXPECT_EQ(r.maxError, "Max |error| against the best candidate: 15");
    EXPECT_EQ(r.firstMismatch, "First mismatch at (0, 3, 1): actual 1.5, expected -1.5.");
    EXPECT_FALSE(r.offerCorrected);  // no correct parameters known
}

TEST(DiagnosisReport, CorrectedParametersAreOfferedOnlyWhenSomethingIsWrong) {
    auto flipped = buildBuggyExample(kSignFlipped);
    ASSERT_TRUE(flipped) << flipped.error().message;
    auto d = diagnose(*flipped);
    ASSERT_TRUE(d) << d.error().message;
    auto r = explore::diagnosisReportText(*d, "x.npy", flipped->shape(), flipped->dtype());
    EXPECT_TRUE(r.offerCorrected);
    EXPECT_NE(r.correctedSummary.find("causal"), std::string::npos) << r.correctedSummary;
    EXPECT_NE(r.findings.size(), 0u);

    d->findings.clear();
    if (!d->match) d->match = DiagnosisMatch{};
    r = explore::diagnosisReportText(*d, "x.npy", flipped->shape(), flipped->dtype());
    EXPECT_FALSE(r.offerCorrected);
    EXPECT_EQ(r.noFindings, "No known bug found.");
}
