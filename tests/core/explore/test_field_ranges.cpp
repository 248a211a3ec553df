// The rule for typed numbers both explorers follow (issue 25): 100000 typed into Heads H became
// 1000 in Qt (keystrokes dropped) and 4096 in ImGui (clamped), 2147483648 into Length T became
// 214748; without a word. A value outside the range is now refused with a message naming the
// field, the range and the value kept; a value inside is taken as typed.
#include <alibi/explore/field_ranges.hpp>
#include <alibi/model/params.hpp>

#include <gtest/gtest.h>

using namespace alibi;
using namespace alibi::explore;

TEST(FieldRanges, TheRangesAreTheCoresLimits) {
    EXPECT_EQ(fieldRange(NumberField::Heads).hi, kMaxHeads);
    EXPECT_EQ(fieldRange(NumberField::Heads).lo, 1);
    EXPECT_EQ(fieldRange(NumberField::Queries).hi, static_cast<double>(kMaxLength));
    EXPECT_EQ(fieldRange(NumberField::Keys).lo, 0);
    EXPECT_EQ(fieldRange(NumberField::MaxBias).hi, kMaxBiasRange.max);
    EXPECT_FALSE(fieldRange(NumberField::Temperature).integer);
}

TEST(FieldRanges, OutOfRangeIsRefusedAndThePreviousValueKept) {
    const auto heads = checkTypedText(NumberField::Heads, "100000", 8);
    EXPECT_FALSE(heads.accepted);
    EXPECT_EQ(heads.value, 8);
    for (const char* part : {"Heads H", "100000", "above", "1 to 4096", "8 kept"})
        EXPECT_NE(heads.message.find(part), std::string::npos) << heads.message << " / " << part;
    const auto length = checkTypedText(NumberField::Queries, "2147483648", 512);
    EXPECT_FALSE(length.accepted);
    EXPECT_EQ(length.value, 512);
    EXPECT_NE(length.message.find("2147483648"), std::string::npos) << length.message;
    EXPECT_NE(length.message.find("Length T"), std::string::npos) << length.message;
    const auto zero = checkTyped(NumberField::Heads, 0, 8);
    EXPECT_FALSE(zero.accepted);
    EXPECT_NE(zero.message.find("below"), std::string::npos) << zero.message;
    const auto huge = checkTypedText(NumberField::Queries, std::string(400, '9'), 16);
    EXPECT_FALSE(huge.accepted);
    EXPECT_LT(huge.message.size(), 300u);
    EXPECT_FALSE(checkTypedText(NumberField::Heads, "12x", 8).accepted);
    EXPECT_FALSE(checkTypedText(NumberField::Heads, "", 8).accepted);
    EXPECT_FALSE(checkTyped(NumberField::Heads, 2.5, 8).accepted);
}

TEST(FieldRanges, InRangeIsTakenAsTyped) {
    const auto heads = checkTypedText(NumberField::Heads, " 4096 ", 8);
    EXPECT_TRUE(heads.accepted);
    EXPECT_EQ(heads.value, 4096);
    EXPECT_TRUE(heads.message.empty());
    EXPECT_TRUE(checkTyped(NumberField::Keys, 0, 5).accepted);
    EXPECT_TRUE(checkTyped("query row", 15, -1, 15, true, 3).accepted);
    EXPECT_FALSE(checkTyped("query row", 16, -1, 15, true, 3).accepted);
    EXPECT_TRUE(checkTyped(NumberField::MaxBias, 8.5, 8).accepted);
}
