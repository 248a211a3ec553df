// Tests for <alibi/analysis/buggy_examples.hpp>: every listed example builds, its numbers are the
// bug as REFERENCES.md describes it (written here from the formula, causal H x 16 x 16 with the
// -1e9 mask), the diagnosis names the example's own code, and an unknown code is refused.
#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/analysis/diagnose.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

using namespace alibi;

namespace {

// The example's (h, i, j) against `expected` on the visible keys, and the mask above.
void expectCausalBias(const Tensor& t, int heads, const std::function<double(int h, int d)>& expected) {
    ASSERT_EQ(t.shape(), (Shape{heads, 16, 16}));
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) {
                const double v = t.at((static_cast<std::uint64_t>(h) * 16 + static_cast<std::uint64_t>(i)) * 16 +
                                      static_cast<std::uint64_t>(j));
                if (j > i)
                    EXPECT_EQ(v, -1e9) << h << " " << i << " " << j;
                else
                    EXPECT_FLOAT_EQ(v, expected(h, i - j)) << h << " " << i << " " << j;
            }
}

double paperSlope(int h, int heads) {
    return std::exp2(-8.0 * (h + 1) / heads);
}

TEST(BuggyExamples, EachBuildsTheBugItNames) {
    auto offByOne = buildBuggyExample(kSlopeOffByOne);
    ASSERT_TRUE(offByOne) << offByOne.error().message;
    expectCausalBias(*offByOne, 8, [](int h, int d) { return -std::exp2(-8.0 * h / 8) * d; });
    auto flipped = buildBuggyExample(kSignFlipped);
    ASSERT_TRUE(flipped);
    expectCausalBias(*flipped, 8, [](int h, int d) { return paperSlope(h, 8) * d; });
    auto scaled = buildBuggyExample(kScaledBySqrtDk);
    ASSERT_TRUE(scaled);
    expectCausalBias(*scaled, 8, [](int h, int d) { return -paperSlope(h, 8) * d / 8.0; });
    auto naive = buildBuggyExample(kNaiveSlopesNonPow2);
    ASSERT_TRUE(naive);
    expectCausalBias(*naive, 12, [](int h, int d) { return -paperSlope(h, 12) * d; });
}

TEST(BuggyExamples, TheDiagnosisFindsEachExamplesOwnBug) {
    ASSERT_EQ(buggyExamples().size(), 4u);
    for (const BuggyExample& example : buggyExamples()) {
        EXPECT_FALSE(example.description.empty()) << example.code;
        auto tensor = buildBuggyExample(example.code);
        ASSERT_TRUE(tensor) << example.code << ": " << tensor.error().message;
        auto diagnosis = diagnose(*tensor);
        ASSERT_TRUE(diagnosis) << example.code << ": " << diagnosis.error().message;
        EXPECT_TRUE(std::any_of(diagnosis->findings.begin(), diagnosis->findings.end(), [&](const Finding& f) {
            return f.code == example.code;
        })) << example.code;
    }
}

TEST(BuggyExamples, AnUnknownCodeIsRefusedWithTheKnownOnes) {
    auto none = buildBuggyExample("no-such-bug");
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("no-such-bug"), std::string::npos);
    EXPECT_NE(none.error().message.find(kSignFlipped), std::string::npos);
}

}  // namespace
