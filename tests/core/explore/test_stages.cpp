// Which keys the stages views leave out: the future keys of masking modes, at the KV-cache-aligned
// position (query i sits at i + K - Q), and none for modes that mask nothing.
#include <alibi/explore/stages.hpp>

#include <gtest/gtest.h>

namespace {

TEST(StageMaskedKeys, FutureKeysOfMaskingModesOnly) {
    alibi::AttentionParams p;
    p.bias.queries = 4;
    p.bias.keys = 6;  // query 1 sits at position 1 + 6 - 4 = 3
    p.bias.mode = alibi::BiasMode::Causal;
    EXPECT_EQ(alibi::explore::stageMaskedKeys(p, 1), (std::vector<bool>{false, false, false, false, true, true}));
    p.bias.mode = alibi::BiasMode::Symmetric;
    EXPECT_EQ(alibi::explore::stageMaskedKeys(p, 1), std::vector<bool>(6, false));
    EXPECT_FALSE(alibi::explore::stageHoldsMaskValue(0));
    EXPECT_TRUE(alibi::explore::stageHoldsMaskValue(1));
    EXPECT_TRUE(alibi::explore::stageHoldsMaskValue(2));
    EXPECT_FALSE(alibi::explore::stageHoldsMaskValue(3));
}

}  // namespace
