#include "alibi/explore/line_breaks.hpp"

#include <algorithm>

namespace alibi::explore {
namespace {

constexpr std::string_view kNoBreakSpace = "\u00a0";
constexpr std::string_view kPhraseSeparator = " \u00b7 ";  // " · "

// Characters, not bytes: a UTF-8 continuation byte does not start one.
std::size_t characterCount(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void appendWithoutBreaks(std::string& out, std::string_view text) {
    for (char c : text) {
        if (c == ' ')
            out += kNoBreakSpace;
        else
            out += c;
    }
}

}  // namespace

std::string keepPhrasesWhole(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    std::size_t start = 0;
    for (;;) {
        const std::size_t at = text.find(kPhraseSeparator, start);
        const std::string_view phrase = text.substr(start, at == std::string_view::npos ? text.npos : at - start);
        if (characterCount(phrase) <= static_cast<std::size_t>(kWholePhrase))
            appendWithoutBreaks(out, phrase);
        else if (phrase.find(", ") != std::string_view::npos || phrase.find(": ") != std::string_view::npos)
            out += keepClausesWhole(phrase);  // "..., position p_i = i + K - Q = 15" keeps its 15
        else
            out += phrase;
        if (at == std::string_view::npos) break;
        out += kPhraseSeparator;
        start = at + kPhraseSeparator.size();
    }
    return out;
}

std::string keepClausesWhole(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool afterClause = i > 0 && (text[i - 1] == ',' || text[i - 1] == ':');
        if (text[i] == ' ' && !afterClause)
            out += kNoBreakSpace;
        else
            out += text[i];
    }
    return out;
}

namespace {

bool isOperator(std::string_view word) {
    static constexpr std::string_view kOperators[] = {"=", "\u2248", "\u00d7", "+",      "\u2212", "-",      "/", "<",
                                                      ">", "\u2264", "\u2265", "\u2192", "\u2026", "\u00b1", "->"};
    return std::find(std::begin(kOperators), std::end(kOperators), word) != std::end(kOperators);
}

// A one-character word ("L", "j"), also before the punctuation that closes its clause ("L:", "j,"):
// it stays with the word before it ("16 L: they read" broke "at 16" | "L: they read").
bool loneSymbol(std::string_view word) {
    while (!word.empty() && std::string_view(":,.;)").find(word.back()) != std::string_view::npos)
        word.remove_suffix(1);
    return characterCount(word) == 1;
}

bool startsSum(std::string_view word) {
    return word.starts_with("\u03a3") || word.starts_with("\u2211");
}

// The end of a sentence: a word ending in '.', '!' or '?' (after a closing parenthesis too:
// "1/128)."), which a number's decimal point never is (it is followed by a digit).
bool endsSentence(std::string_view word) {
    return !word.empty() && std::string_view(".!?").find(word.back()) != std::string_view::npos && word.size() > 1;
}

bool startsCapital(std::string_view word) {
    return !word.empty() && word.front() >= 'A' && word.front() <= 'Z';
}

}  // namespace

std::string keepFormulasWhole(std::string_view text) {
    // The words of each line (spaces between them), and for each space whether it joins.
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    std::size_t lineStart = 0;
    for (;;) {
        const std::size_t newline = text.find('\n', lineStart);
        const std::string_view line =
            text.substr(lineStart, newline == std::string_view::npos ? text.npos : newline - lineStart);
        std::vector<std::string_view> words;
        for (std::size_t at = 0; at <= line.size();) {
            const std::size_t end = std::min(line.find(' ', at), line.size());
            words.push_back(line.substr(at, end - at));
            at = end + 1;
        }
        // joins[k]: the space after words[k] is unbreakable.
        std::vector<bool> joins(words.size(), false);
        int callDepth = 0;  // inside "f(" ... ")" opened within a word
        for (std::size_t k = 0; k + 1 < words.size(); ++k) {
            const std::string_view word = words[k], next = words[k + 1];
            for (std::size_t c = 0; c < word.size(); ++c) {
                if (word[c] == '(') callDepth += (c > 0 || callDepth > 0) ? 1 : 0;
                if (word[c] == ')' && callDepth > 0) --callDepth;
            }
            joins[k] = !word.empty() && !next.empty() &&
                       (isOperator(word) || isOperator(next) || callDepth > 0 || startsSum(word) || loneSymbol(next)) &&
                       !(endsSentence(word) && startsCapital(next));
        }
        // A formula (a run of joined words) too long for a line keeps its breaks.
        for (std::size_t k = 0; k < words.size();) {
            std::size_t end = k, length = characterCount(words[k]);
            while (end + 1 < words.size() && joins[end]) length += 1 + characterCount(words[++end]);
            if (length > static_cast<std::size_t>(kWholePhrase))
                for (std::size_t j = k; j < end; ++j) joins[j] = false;
            k = end + 1;
        }
        for (std::size_t k = 0; k < words.size(); ++k) {
            out += words[k];
            if (k + 1 < words.size()) out += joins[k] ? kNoBreakSpace : std::string_view(" ");
        }
        if (newline == std::string_view::npos) break;
        out += '\n';
        lineStart = newline + 1;
    }
    return out;
}

std::string keepOperatorsWithTheirValues(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    std::size_t wordStart = 0;  // where the word before a space began (after a space of either kind)
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != ' ') {
            out += text[i];
            if (text[i] == '\n') wordStart = i + 1;
            if (text.substr(i).starts_with(kNoBreakSpace)) {
                out += text[i + 1];
                wordStart = i + kNoBreakSpace.size();
                ++i;
            }
            continue;
        }
        const std::string_view word = text.substr(wordStart, i - wordStart);
        const bool beforeValue = i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\n';
        out += isOperator(word) && beforeValue ? kNoBreakSpace : std::string_view(" ");
        wordStart = i + 1;
    }
    return out;
}

std::string keepReadoutWhole(std::string_view text) {
    return keepOperatorsWithTheirValues(keepShortGroupsWhole(keepPhrasesWhole(text)));
}

std::string keepShortGroupsWhole(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t open = text.find('(', at);
        if (open == std::string_view::npos) {
            out += text.substr(at);
            break;
        }
        // Its matching ')', nested groups counted: "((content + bias) / τ)" is one group.
        std::size_t close = open + 1;
        for (int depth = 1; close < text.size(); ++close) {
            if (text[close] == '(') ++depth;
            if (text[close] == ')' && --depth == 0) break;
        }
        out += text.substr(at, open - at);
        if (close >= text.size()) {
            out += text.substr(open);
            break;
        }
        const std::string_view inner = text.substr(open + 1, close - open - 1);
        out += '(';
        if (characterCount(inner) <= static_cast<std::size_t>(kShortGroup))
            appendWithoutBreaks(out, inner);
        else
            out += keepShortGroupsWhole(inner);  // a long group's own short groups stay whole
        out += ')';
        at = close + 1;
    }
    return out;
}

namespace {

bool isAlphanumeric(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A piece of a run too wide for any line, and what joins it to the piece before: a no-break
// space, or nothing (a break after '/').
struct Piece {
    std::string_view glue;
    std::string_view text;
};

// `word`'s pieces where it may break after a '/', '|', en dash, or a hyphen between letters or
// digits ("make-example", not the minus of "-0.5"); where it has none of those, after an opening
// parenthesis before a letter or digit ("(" | "build_alibi_tensor)"). One piece where it has none.
void appendWordPieces(std::vector<Piece>& pieces, std::string_view glue, std::string_view word) {
    constexpr std::string_view kEnDash = "\u2013";
    std::vector<std::size_t> cuts;  // the byte after which a piece ends
    for (std::size_t c = 0; c + 1 < word.size(); ++c) {
        const bool hyphen = word[c] == '-' && c > 0 && isAlphanumeric(word[c - 1]) && isAlphanumeric(word[c + 1]);
        if (word[c] == '/' || word[c] == '|' || hyphen) cuts.push_back(c + 1);
        if (word.substr(c).starts_with(kEnDash) && c + kEnDash.size() < word.size()) cuts.push_back(c + kEnDash.size());
    }
    if (cuts.empty())
        for (std::size_t c = 0; c + 1 < word.size(); ++c)
            if (word[c] == '(' && isAlphanumeric(word[c + 1])) cuts.push_back(c + 1);
    std::size_t start = 0;
    for (const std::size_t cut : cuts) {
        pieces.push_back({start == 0 ? glue : std::string_view(), word.substr(start, cut - start)});
        start = cut;
    }
    pieces.push_back({start == 0 ? glue : std::string_view(), word.substr(start)});
}

// A run wider than a line (a formula the core joined with no-break spaces, a long path) in the
// pieces it may break into: at its own no-break spaces first; a word of it still wider than the
// line also inside (appendWordPieces). The first piece's glue is `before`.
std::vector<Piece> widePieces(std::string_view before, std::string_view run, double width,
                              const std::function<double(std::string_view)>& measure) {
    std::vector<Piece> pieces;
    std::string_view glue = before;
    for (std::size_t at = 0;;) {
        const std::size_t end = run.find(kNoBreakSpace, at);
        const std::string_view word = run.substr(at, end == std::string_view::npos ? run.npos : end - at);
        if (measure(word) > width)
            appendWordPieces(pieces, glue, word);
        else
            pieces.push_back({glue, word});
        if (end == std::string_view::npos) break;
        glue = kNoBreakSpace;
        at = end + kNoBreakSpace.size();
    }
    return pieces;
}

}  // namespace

std::vector<WrappedLine> wrapLines(std::string_view text, double width,
                                   const std::function<double(std::string_view)>& measure) {
    std::vector<WrappedLine> lines;
    std::size_t paragraphStart = 0;
    for (;;) {
        const std::size_t newline = text.find('\n', paragraphStart);
        const std::string_view paragraph =
            text.substr(paragraphStart, newline == std::string_view::npos ? text.npos : newline - paragraphStart);
        const std::size_t firstLine = lines.size();
        // The line being filled; `open` once it holds a piece. A piece that does not fit after it
        // starts the next line, and the glue between them (spaces) is dropped.
        std::string line;
        bool open = false;
        const auto place = [&](std::string_view glue, std::string_view piece) {
            if (open) {
                std::string candidate = line;
                candidate += glue;
                candidate += piece;
                if (measure(candidate) <= width) {
                    line = std::move(candidate);
                    return;
                }
                lines.push_back({std::move(line), false});
            }
            line = std::string(piece);
            open = true;
        };
        std::size_t start = paragraph.find_first_not_of(' ');
        std::string_view spaces;
        while (start != std::string_view::npos) {
            std::size_t end = paragraph.find(' ', start);
            if (end == std::string_view::npos) end = paragraph.size();
            const std::string_view word = paragraph.substr(start, end - start);
            // A word that fits a line of its own goes whole onto this line or the next; a wider
            // one breaks at its own places, from where this line has room (a formula after
            // "…slopes" filled the rest of that line, not left it half empty: issue 27).
            if (measure(word) <= width)
                place(spaces, word);
            else
                for (const Piece& piece : widePieces(spaces, word, width, measure)) place(piece.glue, piece.text);
            start = paragraph.find_first_not_of(' ', end);
            if (start != std::string_view::npos) spaces = paragraph.substr(end, start - end);
        }
        if (open) lines.push_back({std::move(line), false});
        if (lines.size() == firstLine) lines.push_back({std::string(), false});
        lines.back().endsParagraph = true;
        if (newline == std::string_view::npos) break;
        paragraphStart = newline + 1;
    }
    return lines;
}

}  // namespace alibi::explore
