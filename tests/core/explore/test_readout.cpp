// Tests for <alibi/explore/readout.hpp>: the exact text both explorers show for a hovered cell.
#include <alibi/explore/readout.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>

using namespace alibi;
using namespace alibi::explore;

TEST(Readout, CausalBiasCell) {
    AttentionParams p;  // H = 8, T = 16, causal, press: head 3 has m = 2^-4
    const auto slopes = computeSlopes(p.bias.slopes).value();
    EXPECT_EQ(cellReadout(p, RenderWhat::Bias, slopes, 3, 5, 2),
              "head 3 · query i = 5 · key j = 2 · distance i - j = 3 · slope m = 1/16 = 0.0625\n"
              "bias = -m·(i - j) = -0.0625 × 3 = -0.1875");
    EXPECT_EQ(cellReadout(p, RenderWhat::Bias, slopes, 0, 1, 4),
              "head 0 · query i = 1 · key j = 4 · distance i - j = -3 · slope m = 1/2 = 0.5\n"
              "j > i: masked, bias = mask = -1e9");
}

// The mask as typed, and what the dtype stores where that differs (the heatmap title's words).
TEST(Readout, MaskValueAsTypedAndAsStored) {
    BiasParams b;  // mask -1e9, f32: exact
    EXPECT_EQ(explore::maskValueText(b), "-1e9");
    b.dtype = DType::F16;  // 1e9 is past f16's 65504
    EXPECT_EQ(explore::maskValueText(b), "-1e9 (-inf in f16)");
    b.mask = MaskValue{MaskValue::Kind::Lowest, 0};
    EXPECT_EQ(explore::maskValueText(b), "min (-65504 in f16)");
    b.mask = MaskValue{MaskValue::Kind::NegInf, 0};
    EXPECT_EQ(explore::maskValueText(b), "-inf");
    b.dtype = DType::F32;
    b.mask = MaskValue{MaskValue::Kind::Finite, -1e-3};  // not an f32, but the same to six digits
    EXPECT_EQ(explore::maskValueText(b), "-0.001");
    b.dtype = DType::BF16;
    // bf16 keeps 8 significant bits: steps of 2^22 in [2^29, 2^30); 1e9 / 2^22 = 238.42 -> 238 x 2^22.
    b.mask = MaskValue{MaskValue::Kind::Finite, -1e9};
    EXPECT_EQ(explore::maskValueText(b), "-1e9 (-9.98244e+08 in bf16)");
}

TEST(Readout, KvCacheAndDtypeAndAttention) {
    AttentionParams p;
    p.bias.slopes.heads = 1;  // m = 1/256
    p.bias.queries = 2;
    p.bias.keys = 10;
    p.bias.dtype = DType::BF16;
    const auto slopes = computeSlopes(p.bias.slopes).value();
    // Row 1 sits at position 9: distance to key 0 is 9, -9/256 = -0.03515625, which bf16 keeps.
    EXPECT_EQ(cellReadout(p, RenderWhat::Bias, slopes, 0, 1, 0),
              "head 0 · query i = 1 · key j = 0 · distance p_i - j = 9 · slope m = 1/256 = 0.00390625, position "
              "p_i = i + K - Q = 9\nbias = -m·(p_i - j) = -0.00390625 × 9 = -0.0351562");
    p.bias.dtype = DType::F32;
    const std::string pending = cellReadout(p, RenderWhat::Attention, slopes, 0, 1, 0);
    EXPECT_TRUE(pending.ends_with("\nattention p: computing...")) << pending;
    const double want = attentionRow(p, 0, 1).value()[0];
    const std::string done = cellReadoutComputed(p, RenderWhat::Attention, slopes, 0, 1, 0);
    EXPECT_EQ(done, cellReadout(p, RenderWhat::Attention, slopes, 0, 1, 0, want));
    EXPECT_TRUE(cellReadout(p, RenderWhat::Bias, slopes, 5, 0, 0).empty());
}
