// The editing model: the slope-list grammar, the clamp of dependents, and the history.
#include <alibi/explore/editing.hpp>

#include <alibi/base/field_names.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace alibi::explore {

namespace {

bool comma(char c) {
    return c == ',' || c == ';';
}
bool blank(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool separator(char c) {
    return comma(c) || blank(c);
}

// A whole decimal number (no sign but '-' and '+', no spaces); nullopt otherwise.
std::optional<double> decimal(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (text.empty()) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// factor := decimal ('^' decimal)?
std::optional<double> factor(std::string_view text) {
    const auto caret = text.find('^');
    if (caret == std::string_view::npos) return decimal(text);
    const auto base = decimal(text.substr(0, caret));
    const auto exponent = decimal(text.substr(caret + 1));
    if (!base || !exponent) return std::nullopt;
    return std::pow(*base, *exponent);
}

// term := factor ('/' factor)?
std::optional<double> term(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) return factor(text);
    const auto numerator = factor(text.substr(0, slash));
    const auto denominator = factor(text.substr(slash + 1));
    if (!numerator || !denominator) return std::nullopt;
    return *numerator / *denominator;
}

}  // namespace

Result<std::vector<double>> parseSlopeList(std::string_view text, std::string_view name) {
    // Every refusal is about the field `name` names (Slopes for "--slopes"), so a GUI shows it there.
    const auto refuse = [field = fieldOfFlag(name)](std::string message) {
        return std::unexpected(Error{ErrorCode::InvalidArgument, std::move(message), field});
    };
    std::vector<double> slopes;
    std::size_t i = 0;
    bool afterComma = false;  // a comma or semicolon since the last item
    while (i < text.size()) {
        while (i < text.size() && separator(text[i])) {
            // Two commas with nothing between them (or one first or last): a slope left out.
            if (comma(text[i]) && (afterComma || slopes.empty()))
                return refuse(
                    fmt::format("{}: value {} is empty (two commas in a row, or one at an end); give one "
                                "positive slope per head, e.g. 0.5, 0.25",
                                name, slopes.size() + 1));
            afterComma = afterComma || comma(text[i]);
            ++i;
        }
        if (i >= text.size()) break;
        afterComma = false;
        std::size_t end = i;
        while (end < text.size() && !separator(text[end])) ++end;
        const std::string_view item = text.substr(i, end - i);
        const std::size_t index = slopes.size() + 1;
        const auto value = term(item);
        if (!value)
            return refuse(
                fmt::format("{}: '{}' is not a number (value {}); write positive numbers such as 0.5, 1/8 "
                            "or 2^-3, separated by commas",
                            name, item, index));
        if (!std::isfinite(*value) || *value <= 0)
            return refuse(
                fmt::format("{}: '{}' is not a positive number (value {}); every slope must be a positive "
                            "finite number",
                            name, item, index));
        slopes.push_back(*value);
        i = end;
    }
    if (afterComma)
        return refuse(fmt::format("{}: value {} is empty (a comma at the end); give one positive slope per head", name,
                                  slopes.size() + 1));
    if (slopes.empty())
        return refuse(fmt::format("{}: the list is empty; give one positive slope per head, e.g. 0.5, 0.25", name));
    if (slopes.size() > static_cast<std::size_t>(kMaxHeads))
        return refuse(
            fmt::format("{}: {} slopes given; at most {} heads are supported", name, slopes.size(), kMaxHeads));
    return slopes;
}

std::string slopeListText(const std::vector<double>& slopes) {
    std::string text;
    for (std::size_t i = 0; i < slopes.size(); ++i) text += fmt::format("{}{}", i == 0 ? "" : ", ", slopes[i]);
    return text;
}

Session withCustomSlopes(Session session, std::vector<double> slopes) {
    SlopeParams& params = session.attention.bias.slopes;
    params.scheme = SlopeScheme::Custom;
    params.heads = static_cast<int>(slopes.size());
    params.custom = std::move(slopes);
    return session;
}

std::string fitCustomSlopes(SlopeParams& slopes) {
    const int heads = slopes.heads;
    if (slopes.scheme != SlopeScheme::Custom || slopes.custom.empty() || heads <= 0 ||
        slopes.custom.size() == static_cast<std::size_t>(heads))
        return {};
    const std::size_t had = slopes.custom.size();
    if (had > static_cast<std::size_t>(heads)) {
        slopes.custom.resize(static_cast<std::size_t>(heads));
        return fmt::format("custom slopes cut to the first {} of {}", heads, had);
    }
    const double raw = had >= 2 ? slopes.custom[had - 1] / slopes.custom[had - 2] : 0.5;
    const double ratio = std::isfinite(raw) && raw > 0 ? raw : 0.5;
    while (slopes.custom.size() < static_cast<std::size_t>(heads))
        slopes.custom.push_back(slopes.custom.back() * ratio);
    return fmt::format("custom slopes continued to {} heads (each {:.6g} times the one before)", heads, ratio);
}

std::vector<std::string> clampDependents(Session& session, const Session* before) {
    std::vector<std::string> notes;
    const int heads = session.attention.bias.slopes.heads;
    if (heads > 0 && session.head >= heads) {
        notes.push_back(
            fmt::format("selected head {} → {} (H = {} has heads 0–{})", session.head, heads - 1, heads, heads - 1));
        session.head = heads - 1;
    }
    const std::int64_t queries = session.attention.bias.queries;
    if (queries > 0 && session.queryRow >= queries) {
        notes.push_back(fmt::format("query row {} → {} (T = {} has rows 0–{})", session.queryRow, queries - 1, queries,
                                    queries - 1));
        session.queryRow = queries - 1;
    }
    // A batch follows T: lengths, documents, window and prefix within it, the row within B.
    const bool batchEdited = before != nullptr && !(before->batch == session.batch);
    if (queries > 0 && !batchEdited && (session.batch.active() || session.batchRow != 0))
        for (std::string& note : fitBatch(session.batch, session.batchRow, queries)) notes.push_back(std::move(note));
    if (std::string note = fitCustomSlopes(session.attention.bias.slopes); !note.empty())
        notes.push_back(std::move(note));
    return notes;
}

std::string joinNotes(const std::vector<std::string>& notes) {
    std::string text;
    for (const std::string& note : notes) text += (text.empty() ? "" : "; ") + note;
    return text;
}

std::string guiMessage(std::string_view coreMessage) {
    std::string m(coreMessage);
    if (m.starts_with("session: ")) m.erase(0, 9);
    // "--heads (session field `bias.heads`) must be ...": the control has one name, not two.
    for (std::size_t at = m.find(" (session field `"); at != std::string::npos; at = m.find(" (session field `", at)) {
        const std::size_t close = m.find("`)", at);
        if (close == std::string::npos) break;
        m.erase(at, close + 2 - at);
    }
    if (const std::size_t at = m.find("session section `batch`: "); at != std::string::npos) m.erase(at, 25);
    m = wordMessage(m, FrontEnd::Gui);
    // Advice for the command line, which a control cannot take.
    for (std::string_view cli : {" (or drop Heads H; it defaults to the number of slopes)",
                                 " (or drop Heads H: it defaults to the number of slopes)"})
        if (const std::size_t at = m.find(cli); at != std::string::npos) m.erase(at, cli.size());
    constexpr std::string_view kOmitted = "(or omitted to equal Length T)";
    if (const std::size_t at = m.find(kOmitted); at != std::string::npos)
        m.replace(at, kOmitted.size(), "(0: same as T)");
    while (!m.empty() && std::isspace(static_cast<unsigned char>(m.back()))) m.pop_back();
    return m;
}

Result<CommittedEdit> commitEdit(Session next, const Session* before) {
    CommittedEdit edit;
    edit.notes = clampDependents(next, before);
    if (auto valid = validateSession(next); !valid) return std::unexpected(valid.error());
    edit.session = std::move(next);
    return edit;
}

// ---------------------------------------------------------------------------
// EditHistory: two stacks of whole sessions (a session is a few hundred bytes plus its custom
// slopes, so 500 steps cost little and need no diffing).

EditHistory::EditHistory(Session current) : m_current(current), m_saved(std::move(current)) {}

void EditHistory::reset(const Session& session) {
    m_current = session;
    m_saved = session;
    m_undo.clear();
    m_redo.clear();
    m_groupRecorded = false;
}

void EditHistory::record(const Session& next) {
    if (next == m_current) return;
    if (m_groupDepth == 0 || !m_groupRecorded) {
        m_undo.push_back(std::move(m_current));
        if (m_undo.size() > kMaxSteps) m_undo.erase(m_undo.begin());
        m_groupRecorded = m_groupDepth > 0;
    }
    m_current = next;
    m_redo.clear();
}

void EditHistory::beginGroup() {
    if (m_groupDepth++ == 0) m_groupRecorded = false;
}

void EditHistory::endGroup() {
    if (m_groupDepth > 0) --m_groupDepth;
}

std::optional<Session> EditHistory::undo() {
    if (m_undo.empty()) return std::nullopt;
    m_redo.push_back(std::move(m_current));
    m_current = std::move(m_undo.back());
    m_undo.pop_back();
    return m_current;
}

std::optional<Session> EditHistory::redo() {
    if (m_redo.empty()) return std::nullopt;
    m_undo.push_back(std::move(m_current));
    m_current = std::move(m_redo.back());
    m_redo.pop_back();
    return m_current;
}

}  // namespace alibi::explore
