// Tests for <alibi/text/visible.hpp>: every kind of invisible byte gets a visible spelling, and
// text already made visible stays as it is.
#include <alibi/text/visible.hpp>

#include <gtest/gtest.h>

#include <string>

using alibi::text::shortenText;
using alibi::text::visibleText;

TEST(VisibleText, WhitespaceAndStrayBytesAreSpelledOut) {
    EXPECT_EQ(visibleText(" the"), "\u00b7the");
    EXPECT_EQ(visibleText("\n\t\r"), "\u21b5\u2192\u23ce");
    EXPECT_EQ(visibleText(std::string("\x00\x1b\x7f", 3)), "<0x00><0x1B><0x7F>");
    // Half of "é" (C3 A9) and two thirds of "—" (E2 80 94): bytes, not characters.
    EXPECT_EQ(visibleText("\xC3"), "<0xC3>");
    EXPECT_EQ(visibleText("\xE2\x80"), "<0xE2><0x80>");
    EXPECT_EQ(visibleText("caf\xC3\xA9 \xE2\x80\x94"), "caf\u00e9\u00b7\u2014");
    // Blank characters by code point.
    EXPECT_EQ(visibleText("\u00a0x\u200b\ufeff"), "<U+00A0>x<U+200B><U+FEFF>");
    EXPECT_EQ(visibleText("東京 😀"), "東京\u00b7😀");
    EXPECT_EQ(visibleText(""), "");
}

TEST(VisibleText, VisibleTextIsAFixedPoint) {
    for (const std::string s : {" the\n", "\xE2\x80", "\u00a0", "<s>", "a\tb\r"}) {
        const std::string once = visibleText(s);
        EXPECT_EQ(visibleText(once), once) << s;
    }
}

TEST(VisibleText, ShortenCutsWholeCharacters) {
    EXPECT_EQ(shortenText("abcdef", 3), "ab\u2026");
    EXPECT_EQ(shortenText("abc", 3), "abc");
    EXPECT_EQ(shortenText("東京タワー", 2), "東\u2026");
    EXPECT_EQ(shortenText("東京", 2), "東京");
    EXPECT_EQ(shortenText("abc", 0), "");
}
