// Dependent selections and the custom slope list.
#include "edit_rules.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

namespace alibi::imgui {

std::string clampDependents(Session& session) {
    std::string note;
    auto add = [&note](const std::string& text) { note += (note.empty() ? "" : "; ") + text; };
    const std::int64_t queries = session.attention.bias.queries;
    if (session.queryRow >= queries) {
        add(fmt::format("query row {} is past T = {}: now row {}", session.queryRow, queries, queries - 1));
        session.queryRow = queries - 1;
    }
    // A batch follows T (the core's fitBatch: lengths, documents, window, prefix, row).
    if (session.batch.active())
        for (const std::string& text : fitBatch(session.batch, session.batchRow, queries)) add(text);
    SlopeParams& slopes = session.attention.bias.slopes;
    if (session.head >= slopes.heads) {
        add(fmt::format("head {} is past H = {}: now head {}", session.head, slopes.heads, slopes.heads - 1));
        session.head = slopes.heads - 1;
    }
    if (slopes.scheme == SlopeScheme::Custom && !slopes.custom.empty() &&
        static_cast<int>(slopes.custom.size()) != slopes.heads && slopes.heads > 0) {
        const std::size_t had = slopes.custom.size();
        const double last = slopes.custom.back();
        slopes.custom.resize(static_cast<std::size_t>(slopes.heads), last);
        add(had > slopes.custom.size()
                ? fmt::format("custom slopes cut to the first {} of {}", slopes.heads, had)
                : fmt::format("custom slopes: heads {}..{} take the last slope {:.9g}", had, slopes.heads - 1, last));
    }
    return note;
}

Session withCustomSlopes(Session session, std::vector<double> slopes) {
    SlopeParams& params = session.attention.bias.slopes;
    params.scheme = SlopeScheme::Custom;
    params.heads = static_cast<int>(slopes.size());
    params.custom = std::move(slopes);
    return session;
}

std::string parseSlopeList(const std::string& text, std::vector<double>& out) {
    out.clear();
    auto separator = [](char c) { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && separator(text[i])) ++i;
        if (i >= text.size()) break;
        std::size_t end = i;
        while (end < text.size() && !separator(text[end])) ++end;
        const std::string token = text.substr(i, end - i);
        char* parsedEnd = nullptr;
        errno = 0;
        const double value = std::strtod(token.c_str(), &parsedEnd);
        if (parsedEnd != token.c_str() + token.size() || errno == ERANGE)
            return fmt::format("'{}' is not a number: enter one positive slope per head", token);
        out.push_back(value);
        i = end;
    }
    if (out.empty()) return "enter one positive slope per head (H follows the number of slopes)";
    return {};
}

}  // namespace alibi::imgui
