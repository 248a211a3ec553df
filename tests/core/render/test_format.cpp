// Tests for <alibi/explore/format.hpp>: the one spelling of numbers in every front end.
#include <alibi/render/format.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace alibi;

TEST(Format, ValuesHaveSixDigitsAndOneZero) {
    EXPECT_EQ(formatValue(-0.0), "0");
    EXPECT_EQ(formatValue(0.0), "0");
    EXPECT_EQ(formatValue(-1e9), "-1e+09");
    EXPECT_EQ(formatValue(-0.1875), "-0.1875");
    EXPECT_EQ(formatValue(1.0 / 3), "0.333333");
    EXPECT_EQ(formatValue(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(formatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(Format, SlopesReadAsPowersOfTwoWhenExact) {
    EXPECT_EQ(formatSlope(0.0625), "1/16");
    EXPECT_EQ(formatSlope(1.0), "1");
    EXPECT_EQ(formatSlope(4.0), "4");
    EXPECT_EQ(formatSlope(std::pow(2.0, -0.5)), "2^-0.5");
    EXPECT_EQ(formatSlope(0.05), "0.05");
}

TEST(Format, ExactEndsAreTheShortestTextOfTheStoredValue) {
    // -0.5^0.5 * 4095 stored in f32 is -2895.602294921875; its shortest float text is -2895.6023.
    const double stored = static_cast<float>(-std::sqrt(0.5) * 4095);
    EXPECT_EQ(formatExact(stored, DType::F32), "-2895.6023");
    EXPECT_EQ(std::stof(formatExact(stored, DType::F32)), static_cast<float>(stored));
    EXPECT_EQ(formatExact(-0.0, DType::F32), "0");
    EXPECT_EQ(formatExact(0.1, DType::F64), "0.1");
    EXPECT_EQ(formatExact(-1e9, DType::F32), "-1e+09");
}

TEST(Format, TicksUseTheDecimalsTheirStepNeeds) {
    EXPECT_EQ(formatTick(-1500, 500), "-1500");
    EXPECT_EQ(formatTick(0.75, 0.05), "0.75");
    EXPECT_EQ(formatTick(0.4, 0.2), "0.4");
    EXPECT_EQ(formatTick(3e-6, 1e-6), "3e-06");
    EXPECT_EQ(formatTick(-1e-17, 0.5), "0");
    EXPECT_EQ(formatPercent(0.1234), "12.34 %");
}

TEST(Format, CellValuesAreTheSameTextInEveryExplorer) {
    EXPECT_EQ(formatCellValue(0.25, true), "0.25");
    EXPECT_EQ(formatCellValue(1.0, true), "1.00");
    EXPECT_EQ(formatCellValue(0.004, true), "0");  // rounds to zero: no "0.00"
    EXPECT_EQ(formatCellValue(-7.5, false), "-7.5");
    EXPECT_EQ(formatCellValue(-0.0, false), "0");
    EXPECT_EQ(formatCellValue(-1e9, false), "-1e+09");
    EXPECT_EQ(formatCellValue(-0.0625 * 15, false), "-0.938");
    EXPECT_EQ(formatCellValue(-12.25, false, /*narrow=*/true), "-12");
    EXPECT_EQ(formatCellValue(0.126, true, /*narrow=*/true), "0.13");
    EXPECT_EQ(formatCellValue(-std::numeric_limits<double>::infinity(), false), "-inf");
}
