// The Diagnose views' error heatmap: its range is the largest |tensor - correct ALiBi| (worked
// out here from the bug: a flipped sign doubles every bias, so the largest error is 2 m d at head
// 0's slope 1/2 and distance 15), one tile per head, zero for a correct tensor, and none when
// nothing reproduces the tensor's shape.
#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/model/bias.hpp>

#include <gtest/gtest.h>

using namespace alibi;

TEST(DiagnosisErrorMap, ASignFlipIsTwiceTheBiasAtItsLargest) {
    auto tensor = buildBuggyExample(kSignFlipped);  // H = 8, T = 16, causal
    ASSERT_TRUE(tensor) << tensor.error().message;
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    auto map = explore::diagnosisErrorMap(*tensor, *diagnosis, 400, 300);
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->errorMax, 2 * 0.5 * 15);
    EXPECT_EQ(map->map.tiles.size(), 8u);
    EXPECT_EQ(map->map.image.width, 400);
    EXPECT_EQ(map->map.hi, 15.0);
}

TEST(DiagnosisErrorMap, ACorrectTensorHasNoErrorAndATinyRequestStillDraws) {
    auto tensor = buildBias(BiasParams{});
    ASSERT_TRUE(tensor) << tensor.error().message;
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    auto map = explore::diagnosisErrorMap(*tensor, *diagnosis, 0, 0);
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->errorMax, 0.0);
    EXPECT_EQ(map->map.hi, 1.0);  // a visible range even with no error
    EXPECT_EQ(map->map.image.width, 16);
}

TEST(DiagnosisErrorMap, NoPictureWithoutParametersToCompareWith) {
    Diagnosis nothing;  // no best parameters
    EXPECT_FALSE(explore::diagnosisErrorMap(Tensor({2, 3, 3}, DType::F32), nothing, 100, 100).has_value());
}
