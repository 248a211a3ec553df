#include "alibi/explore/line_breaks.hpp"

#include <gtest/gtest.h>

namespace alibi::explore {
namespace {

constexpr std::string_view kNbsp = "\u00a0";

// Every character one unit wide, as a monospaced font measures it (U+00A0 is two bytes, one
// character).
double monospaced(std::string_view text) {
    double width = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) width += 1;
    return width;
}

std::string nbsp(std::string text) {
    std::string out;
    for (char c : text) {
        if (c == '_')
            out += kNbsp;
        else
            out += c;
    }
    return out;
}

TEST(LineBreaks, PhrasesKeepTheirSpaces) {
    EXPECT_EQ(keepPhrasesWhole("head 0 · 1 cell = 26.1 x 26.1 px"), nbsp("head_0 · 1_cell_=_26.1_x_26.1_px"));
    EXPECT_EQ(keepPhrasesWhole("no separator here"), nbsp("no_separator_here"));
    EXPECT_EQ(keepPhrasesWhole(""), "");
}

TEST(LineBreaks, APhraseLongerThanTheLimitMayStillBreak) {
    const std::string longPhrase(static_cast<std::size_t>(kWholePhrase) - 2, 'x');
    const std::string exact = longPhrase + " y";  // kWholePhrase characters: kept whole
    const std::string over = longPhrase + " yz";  // one more: breakable
    EXPECT_EQ(keepPhrasesWhole("a b · " + exact), nbsp("a_b · " + longPhrase + "_y"));
    EXPECT_EQ(keepPhrasesWhole("a b · " + over), nbsp("a_b · ") + over);
    // The limit counts characters: "·" in a phrase is one, not two bytes.
    const std::string dotted = std::string(static_cast<std::size_t>(kWholePhrase) - 3, 'x') + " \u00b7x";
    EXPECT_EQ(keepPhrasesWhole(dotted),
              std::string(static_cast<std::size_t>(kWholePhrase) - 3, 'x') + nbsp("_") + "\u00b7x");
}

TEST(LineBreaks, ALongPhraseWithClausesBreaksOnlyAfterThem) {
    // 51 characters, over the limit: "15" stays with its "=" (it stood alone at 1280x720).
    EXPECT_EQ(keepPhrasesWhole("head 0 · slope m = 1/2 = 0.5, position pi = i + K - Q = 15"),
              nbsp("head_0 · slope_m_=_1/2_=_0.5, position_pi_=_i_+_K_-_Q_=_15"));
}

TEST(LineBreaks, ClausesBreakOnlyAfterACommaOrColon) {
    EXPECT_EQ(keepClausesWhole("max |A - B| = 0.23 at head 7, query 3: A = 0, B = -0.234375"),
              nbsp("max_|A_-_B|_=_0.23_at_head_7, query_3: A_=_0, B_=_-0.234375"));
}

TEST(LineBreaks, WrapsAtOrdinarySpacesOnly) {
    const auto lines = wrapLines(keepPhrasesWhole("head 0 · B = -0.234375 · key 3"), 14, monospaced);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, nbsp("head_0 ·"));
    EXPECT_EQ(lines[1].text, nbsp("B_=_-0.234375"));
    EXPECT_EQ(lines[2].text, nbsp("· key_3"));
    EXPECT_FALSE(lines[0].endsParagraph);
    EXPECT_TRUE(lines[2].endsParagraph);
}

TEST(LineBreaks, AWordWiderThanTheLineStandsAlone) {
    const auto lines = wrapLines("a 0123456789 b", 5, monospaced);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, "a");
    EXPECT_EQ(lines[1].text, "0123456789");
    EXPECT_EQ(lines[2].text, "b");
}

TEST(LineBreaks, ParagraphsAndEmptyLines) {
    const auto lines = wrapLines("one two\n\nthree", 100, monospaced);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, "one two");
    EXPECT_TRUE(lines[0].endsParagraph);
    EXPECT_EQ(lines[1].text, "");
    EXPECT_EQ(lines[2].text, "three");
    EXPECT_EQ(wrapLines("", 10, monospaced).size(), 1u);
}

TEST(LineBreaks, SpacesAtABreakAreDropped) {
    const auto lines = wrapLines("aaa   bbb", 4, monospaced);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].text, "aaa");
    EXPECT_EQ(lines[1].text, "bbb");
}

}  // namespace

namespace {
// The text with each no-break space written as '~', to read the expectations at a glance.
std::string marked(std::string_view text) {
    std::string out(text);
    for (std::size_t at; (at = out.find("\u00a0")) != std::string::npos;) out.replace(at, 2, "~");
    return out;
}
}  // namespace

TEST(LineBreaks, FormulasInProseStayWhole) {
    // The s38 review's breaks in the lessons: "mₕ =" | "2^(−8(h+1)/H)", "2^(−0.5) ≈" | "0.707",
    // "e^s(i, j) /" | "Σₖ e^s(i, k)", "L" | "= 64", "16" | "L", "for T =" | "64 … 1024".
    EXPECT_EQ(marked(keepFormulasWhole("so mₕ = 2^(−8(h+1)/H) for H = 8 gives")),
              "so mₕ~=~2^(−8(h+1)/H) for~H~=~8 gives");
    EXPECT_EQ(marked(keepFormulasWhole("about 2^(−0.5) ≈ 0.707 of it")), "about 2^(−0.5)~≈~0.707 of it");
    EXPECT_EQ(marked(keepFormulasWhole("p = e^s(i, j) / Σₖ e^s(i, k) here")), "p~=~e^s(i,~j)~/~Σₖ~e^s(i,~k) here");
    EXPECT_EQ(marked(keepFormulasWhole("trained on L = 64, tested at 16 L")), "trained on~L~=~64, tested at 16~L");
    // Before its clause's punctuation too (the s40 review: "at 16" | "L: they read").
    EXPECT_EQ(marked(keepFormulasWhole("beyond L at 16 L: they read")), "beyond~L at 16~L: they read");
    EXPECT_EQ(marked(keepFormulasWhole("for key j, then")), "for key~j, then");
    EXPECT_EQ(marked(keepFormulasWhole("for T = 64 … 1024 keys")), "for~T~=~64~…~1024 keys");
}

TEST(LineBreaks, ProseParenthesesAndLongFormulasStillBreak) {
    // A parenthesis that opens a word is prose: its inside may break.
    EXPECT_EQ(marked(keepFormulasWhole("the rows (each stored row renormalised) sum")),
              "the rows (each stored row renormalised) sum");
    // A run of joined words over kWholePhrase characters keeps its ordinary spaces.
    const std::string longFormula = "x = aaaaaaaaaa + bbbbbbbbbb + cccccccccc + dddddddddd";
    EXPECT_EQ(keepFormulasWhole(longFormula), longFormula);
    // Paragraphs stay paragraphs.
    EXPECT_EQ(marked(keepFormulasWhole("a = 1\nb = 2")), "a~=~1\nb~=~2");
}
// The s40 review's L8: the read-out band broke "p = 0 (row renormalised to sum" | "1)".
TEST(LineBreaks, ShortGroupsStayWhole) {
    EXPECT_EQ(marked(keepShortGroupsWhole("p = 0 (row renormalised to sum 1) here")),
              "p = 0 (row~renormalised~to~sum~1) here");
    // Longer than kShortGroup, nested, or never closed: the spaces stay as they are.
    const std::string longGroup = "(" + std::string(20, 'a') + " " + std::string(20, 'b') + ")";
    EXPECT_EQ(keepShortGroupsWhole(longGroup), longGroup);
    EXPECT_EQ(keepShortGroupsWhole("f(a (b c) d"), "f(a (b c) d");
    EXPECT_EQ(marked(keepShortGroupsWhole("x (a b")), "x (a b");
}

// A formula wider than the line (its spaces joined by keepFormulasWhole) breaks at its own
// spaces from where the line has room: Qt's lesson 2 step 5 at 1280x720 ended a line after
// "(1, 1/2, …," half empty, before "1/128)", when the pieces were planned from a line's start.
TEST(LineBreaks, AFormulaWiderThanTheLineFillsTheLineItStartsOn) {
    const std::string formula = nbsp("(1,_1/2,_1/4,_1/8,_1/16,_1/32)");  // 30 characters
    const auto lines = wrapLines("slopes " + formula + " here", 20, monospaced);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, "slopes " + nbsp("(1,_1/2,_1/4,"));  // 20: full
    EXPECT_EQ(lines[1].text, nbsp("1/8,_1/16,_1/32)"));           // the break's no-break space dropped
    EXPECT_EQ(lines[2].text, "here");
    for (const auto& line : lines) EXPECT_LE(monospaced(line.text), 20.0) << line.text;
}

TEST(LineBreaks, AWordWiderThanTheLineBreaksAfterASlashNotInsideANumber) {
    const auto path = wrapLines("see scripts/make_example_attention.py now", 16, monospaced);
    ASSERT_EQ(path.size(), 3u);
    EXPECT_EQ(path[0].text, "see scripts/");
    EXPECT_EQ(path[1].text, "make_example_attention.py");  // none left inside: it stands alone
    EXPECT_EQ(path[2].text, "now");
    // A minus is no hyphen: "-0.5-ish" breaks after the hyphen between letters only ("5-i").
    const auto minus = wrapLines("-0.5-ish", 6, monospaced);
    ASSERT_EQ(minus.size(), 2u);
    EXPECT_EQ(minus[0].text, "-0.5-");
    EXPECT_EQ(minus[1].text, "ish");
    // With no other place, after an opening parenthesis before a letter.
    const auto call = wrapLines("(build_alibi_tensor)", 10, monospaced);
    ASSERT_EQ(call.size(), 2u);
    EXPECT_EQ(call[0].text, "(");
    EXPECT_EQ(call[1].text, "build_alibi_tensor)");
}

TEST(LineBreaks, SpacesInsideALineAreKept) {
    const auto lines = wrapLines("a   b", 10, monospaced);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].text, "a   b");
}

TEST(LineBreaks, AnOperatorStaysWithItsValue) {
    EXPECT_EQ(keepOperatorsWithTheirValues("configured m = 1/2 -> 1.65013e-13"),
              nbsp("configured m =_1/2 ->_1.65013e-13"));
    EXPECT_EQ(keepOperatorsWithTheirValues("Head 3, configured m = 1/32"), nbsp("Head 3, configured m =_1/32"));
    // An operator at the end of a line or before another space keeps its ordinary space; the
    // words around are untouched, a minus sign inside a number too.
    EXPECT_EQ(keepOperatorsWithTheirValues("a =\nb = -0.5 x  y"), nbsp("a =\nb =_-0.5 x  y"));
    // An operator word between no-break spaces another rule left counts too; those stay.
    EXPECT_EQ(keepOperatorsWithTheirValues(nbsp("p_= softmax(x_/ t)")), nbsp("p_=_softmax(x_/_t)"));
    // The line breaks before the arrow, never after it.
    const auto lines = wrapLines(keepOperatorsWithTheirValues("configured m = 1/2 -> 1.65013e-13"), 20, monospaced);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].text, nbsp("configured m =_1/2"));
    EXPECT_EQ(lines[1].text, nbsp("->_1.65013e-13"));
}

// A sentence's end stays a place to break, even before a one-character word: lesson 2 step 5's
// "(1, 1/2, …, 1/128). A − B = (m_B − m_A)·(i − j) is" made one 35-character run of "1/128). A − B
// = …", which Qt moved whole to the next line, leaving "(1, 1/2, …," half a line (the s41 ask).
TEST(LineBreaks, ASentencesEndStaysABreakBeforeALoneCapital) {
    EXPECT_EQ(marked(keepFormulasWhole("bug (1, 1/2, … 1/128). A − B = (m_B − m_A)·(i − j) is")),
              "bug (1, 1/2,~…~1/128). A~−~B~=~(m_B~−~m_A)·(i~−~j) is");
    // Before a lower-case word a lone symbol still joins its sentence ("16 L."), and so does a
    // symbol after a number ("0.5 j").
    EXPECT_EQ(marked(keepFormulasWhole("at 16 L. then 0.5 j")), "at 16~L. then 0.5~j");
}

// Nested groups count as one: the Qt tooltip broke "softmax((content" | "+ bias) / τ)[j]" (the
// s41 re-check); a long group keeps its own short groups whole.
TEST(LineBreaks, ANestedShortGroupStaysWhole) {
    EXPECT_EQ(marked(keepShortGroupsWhole("p = softmax((content + bias) / τ)[j] = 0.03")),
              "p = softmax((content~+~bias)~/~τ)[j] = 0.03");
    EXPECT_EQ(marked(keepShortGroupsWhole("x (a very long group that runs past the limit (b c) end)")),
              "x (a very long group that runs past the limit (b~c) end)");
    EXPECT_EQ(marked(keepShortGroupsWhole("mask min (-65504 in f16)")), "mask min (-65504~in~f16)");
}

// The read-out rule both explorers wrap a hover read-out with: phrases, short groups and an
// operator's value each kept whole, the " · " separators and clause ends left to break at.
TEST(LineBreaks, AReadOutKeepsPhrasesGroupsAndValuesWhole) {
    EXPECT_EQ(marked(keepReadoutWhole("head 0 · slope m = 1/8 = 0.125 · bias = mask = -1e9 (-inf in f16)")),
              "head~0 · slope~m~=~1/8~=~0.125 · bias~=~mask~=~-1e9~(-inf~in~f16)");
    // A phrase longer than kWholePhrase keeps its clause break; its operator keeps its value.
    EXPECT_EQ(marked(keepReadoutWhole("slope m = 1/2 = 0.5, position p_i = i + K - Q = 15 now then")),
              "slope~m~=~1/2~=~0.5, position~p_i~=~i~+~K~-~Q~=~15~now~then");
}

}  // namespace alibi::explore
