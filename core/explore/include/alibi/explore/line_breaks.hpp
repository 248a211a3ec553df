#pragma once
// Where a line of the explorers' text may break (issue 27: "1 cell = 26.1 x 26.1 px" broke after
// its "1", "B =" / "-0.234375", "h5: 0." / "015625"). One rule for every front end: the text is
// rewritten so that only the spaces where a break is allowed stay ordinary spaces, the others
// become U+00A0 (no-break space), which Qt's word wrap and wrapLines below both honour.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

// A phrase of up to this many characters keeps its spaces unbreakable; a longer one may still
// wrap inside rather than run off the view.
inline constexpr int kWholePhrase = 40;

// A read-out or header of " · "-separated phrases ("head 0 · query i = 3 · 1 cell = 26.1 x 26.1
// px"): breaks only at the separators; a phrase longer than kWholePhrase breaks only after its
// clauses (keepClausesWhole) when it has any, else at any space.
[[nodiscard]] std::string keepPhrasesWhole(std::string_view text);

// A sentence of the core's clauses ("max |A - B| = 0.23 at head 7, query 3, key 0: A = 0, B =
// -0.23"): breaks only after a ", " or ": ".
[[nodiscard]] std::string keepClausesWhole(std::string_view text);

// Prose with formulas in it (a lesson's text: "m_h = 2^(-8(h+1)/H) for H = 8", "p ≈ 0.707",
// "softmax(-m d)"): a line may break between words, never inside a formula. A space next to an
// operator standing alone (=, ≈, ×, +, −, -, /, <, >, ≤, ≥, →, …, ±), inside the parentheses
// of a call ("e^s(i, k)", not a prose "(see below)"), after "Σ…", or before a one-character
// word, also before its clause's punctuation ("16 L", "16 L:", "key j,") becomes unbreakable; a formula longer than
// kWholePhrase characters keeps its spaces breakable rather than run off the view.
[[nodiscard]] std::string keepFormulasWhole(std::string_view text);

// A read-out's short parenthesised groups ("(row renormalised to sum 1)", "((content + bias) /
// τ)": up to kShortGroup characters between the parentheses, nested groups included) keep their
// spaces unbreakable, so a line never ends inside one ("p = 0 (row renormalised to sum" | "1)",
// "softmax((content" | "+ bias) / τ)"); in a longer group its own short groups do; the other
// spaces are kept.
inline constexpr int kShortGroup = 32;
[[nodiscard]] std::string keepShortGroupsWhole(std::string_view text);

// A read-out or title never ends a line with an operator and puts its value on the next
// ("configured m = 1/2 ->" | "1.65013e-13", "Head 3, configured m =" | "1/32"): the space after
// an operator standing alone (as keepFormulasWhole lists them, and "->") becomes unbreakable; the
// line may still break before it ("configured m = 1/2" | "-> 1.65013e-13").
[[nodiscard]] std::string keepOperatorsWithTheirValues(std::string_view text);

// A hover read-out as every explorer wraps it: its " · " phrases whole (keepPhrasesWhole), its
// short parenthesised groups whole (keepShortGroupsWhole), and no line ending on an operator
// (keepOperatorsWithTheirValues). Qt's band and tooltips and ImGui's read-outs.
[[nodiscard]] std::string keepReadoutWhole(std::string_view text);

struct WrappedLine {
    std::string text;
    bool endsParagraph = false;  // the last line before a '\n' or the end
};

// `text` in lines no wider than `width` (as `measure` measures a piece of text), breaking at
// ordinary spaces and '\n' (the spaces at a break are dropped). A run wider than any line (a
// formula joined by the keep…Whole functions) breaks, from where the line has room, at its own
// no-break spaces; a word of it still wider, after a '/', '|', en dash or hyphen between letters,
// else after a '(' before a letter; one with none of those stands alone on its line. Every
// paragraph gives at least one line, an empty one for an empty paragraph. The lesson text's lines
// in both explorers (Qt draws these lines too), the notes and read-outs of ImGui's views.
[[nodiscard]] std::vector<WrappedLine> wrapLines(std::string_view text, double width,
                                                 const std::function<double(std::string_view)>& measure);

}  // namespace alibi::explore
