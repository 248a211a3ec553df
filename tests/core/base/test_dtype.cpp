// Tests for <alibi/dtype.hpp>: rounding to f16/bf16 from double, ties to even, overflow to inf.
#include <alibi/base/dtype.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace alibi;

TEST(DType, HalfExactValues) {
    EXPECT_EQ(toHalfBits(1.0), 0x3C00);
    EXPECT_EQ(toHalfBits(-2.0), 0xC000);
    EXPECT_EQ(toHalfBits(0.5), 0x3800);
    EXPECT_EQ(toHalfBits(65504.0), 0x7BFF);
    EXPECT_EQ(toHalfBits(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(toHalfBits(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
    EXPECT_EQ(toHalfBits(-0.0), 0x8000);
}

TEST(DType, HalfOverflowBecomesInfinity) {
    // -1e9 cannot be held by fp16 (max 65504): it becomes -inf, as REFERENCES.md warns.
    EXPECT_EQ(toHalfBits(-1e9), 0xFC00);
    EXPECT_TRUE(std::isinf(roundTo(DType::F16, -1e9)));
    // 65520 is the midpoint between 65504 and 65536 (which would be inf): ties to even -> inf.
    EXPECT_EQ(toHalfBits(65520.0), 0x7C00);
    EXPECT_EQ(toHalfBits(65519.99), 0x7BFF);
}

TEST(DType, HalfTiesToEven) {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even keeps 1.
    EXPECT_EQ(toHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3C00);
    // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
    EXPECT_EQ(toHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
    // Just above a tie rounds up: proves rounding is from double, not via float.
    EXPECT_EQ(toHalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
    // Subnormal tie: 2^-25 is halfway between 0 and 2^-24 -> 0 (even).
    EXPECT_EQ(toHalfBits(std::ldexp(1.0, -25)), 0x0000);
    EXPECT_EQ(toHalfBits(3 * std::ldexp(1.0, -25)), 0x0002);
}

TEST(DType, BFloat16) {
    EXPECT_EQ(toBFloat16Bits(1.0), 0x3F80);
    EXPECT_EQ(toBFloat16Bits(-1e9), 0xCE6E);  // -1e9 -> -998244352 (238 * 2^22) in bf16
    EXPECT_EQ(bfloat16BitsToDouble(0xCE6E), -998244352.0);
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even -> 1.
    EXPECT_EQ(toBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3F80);
    EXPECT_EQ(toBFloat16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
    EXPECT_EQ(toBFloat16Bits(std::numeric_limits<double>::infinity()), 0x7F80);
    EXPECT_EQ(toBFloat16Bits(1e39), 0x7F80);
}

TEST(DType, LowestFinite) {
    EXPECT_EQ(dtypeLowest(DType::F16), -65504.0);
    EXPECT_EQ(dtypeLowest(DType::F32), -static_cast<double>(std::numeric_limits<float>::max()));
    EXPECT_EQ(dtypeLowest(DType::BF16), -3.3895313892515355e38);
    EXPECT_EQ(dtypeLowest(DType::F64), std::numeric_limits<double>::lowest());
    EXPECT_EQ(toBFloat16Bits(dtypeLowest(DType::BF16)), 0xFF7F);
}

TEST(DType, StoreLoadRoundTrip) {
    for (DType t : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
        std::byte buf[8]{};
        storeAs(t, -0.375, buf);
        EXPECT_EQ(loadAs(t, buf), -0.375) << dtypeName(t);
        EXPECT_EQ(parseDType(dtypeName(t)), t);
    }
    EXPECT_FALSE(parseDType("f8"));
}

TEST(DType, F32IsCorrectlyRoundedCast) {
    const double x = 0.1;
    EXPECT_EQ(roundTo(DType::F32, x), static_cast<double>(0.1f));
}
