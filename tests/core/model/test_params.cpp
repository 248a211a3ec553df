// Tests for <alibi/params.hpp>: names round-trip and masks parse as the CLI spells them.
#include <alibi/model/params.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace alibi;

TEST(Params, NamesRoundTrip) {
    for (auto m : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        EXPECT_EQ(parseMode(modeName(m)), m);
    for (auto s : {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom})
        EXPECT_EQ(parseScheme(schemeName(s)), s);
    for (auto l : {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat}) EXPECT_EQ(parseLayout(layoutName(l)), l);
    for (auto c : {ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk})
        EXPECT_EQ(parseContent(contentName(c)), c);
    EXPECT_FALSE(parseMode("Causal"));
    EXPECT_FALSE(parseLayout(""));
}

TEST(Params, Masks) {
    EXPECT_EQ(parseMask("-1e9")->value, -1e9);
    EXPECT_EQ(maskName(*parseMask("-1e9")), "-1e9");
    EXPECT_EQ(parseMask("-inf")->kind, MaskValue::Kind::NegInf);
    EXPECT_EQ(parseMask("min")->kind, MaskValue::Kind::Lowest);
    EXPECT_EQ(parseMask("-10000")->value, -10000.0);
    EXPECT_EQ(maskName(*parseMask("-10000")), "-10000");
    EXPECT_EQ(maskName(*parseMask("-0.5")), "-0.5");
    EXPECT_FALSE(parseMask("abc"));
    EXPECT_FALSE(parseMask("nan"));
    EXPECT_FALSE(parseMask("1e999"));
    EXPECT_FALSE(parseMask("-1e9x"));
    EXPECT_TRUE(std::isinf(maskDouble(*parseMask("-inf"), DType::F32)));
    EXPECT_EQ(maskDouble(*parseMask("min"), DType::F16), -65504.0);
}

TEST(Params, KeyCountAndPosition) {
    BiasParams p;
    p.queries = 4;
    EXPECT_EQ(p.keyCount(), 4);
    EXPECT_EQ(p.queryPosition(0), 0);
    p.keys = 10;
    EXPECT_EQ(p.queryPosition(0), 6);
    EXPECT_EQ(p.queryPosition(3), 9);
}
