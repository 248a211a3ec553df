// The strict JSON field readers of session files (see json_fields.hpp).
#include "json_fields.hpp"

#include "read_limits.hpp"

#include <fmt/format.h>

#include <cmath>

namespace alibi::detail {

Error fieldError(const std::string& path, const std::string& what) {
    return Error{ErrorCode::BadInput, fmt::format("session field `{}`: {}", path, what)};
}

// Never dumps a whole string, list or object (a 16 MiB string, a deep or long list would flood
// the message or overflow the stack): a short escaped excerpt of a string, a count for a container.
std::string shown(const Json& v) {
    if (v.is_string()) return "\"" + excerpt(v.get_ref<const std::string&>()) + "\"";
    if (v.is_array()) return fmt::format("a list of {} item(s)", v.size());
    if (v.is_object()) return fmt::format("an object with {} field(s)", v.size());
    return v.dump();  // a number, true, false or null: short
}

Result<std::int64_t> readInt(const Json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
    const auto bad = [&] {
        return std::unexpected(
            fieldError(path, fmt::format("expected an integer from {} to {}, got {}", lo, hi, shown(v))));
    };
    // Floats such as 8.0 or 1e9 are refused: a session is written by a program, and a float
    // where a count belongs means something else went wrong.
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo) return bad();
        return static_cast<std::int64_t>(u);
    }
    if (!v.is_number_integer()) return bad();
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi) return bad();
    return x;
}

Result<std::uint64_t> readUnsigned(const Json& v, const std::string& path, std::uint64_t lo) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() >= lo) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && static_cast<std::uint64_t>(v.get<std::int64_t>()) >= lo)
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::unexpected(fieldError(path, fmt::format("expected an integer of at least {}, got {}", lo, shown(v))));
}

Result<double> readNumber(const Json& v, const std::string& path, double lo, double hi, bool loOpen,
                          const char* expected) {
    if (!v.is_number())
        return std::unexpected(fieldError(path, fmt::format("expected {}, got {}", expected, shown(v))));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi || (loOpen && x == lo))
        return std::unexpected(fieldError(path, fmt::format("expected {}, got {}", expected, shown(v))));
    return x;
}

Result<double> readNumber(const Json& v, const std::string& path, NumberRange range, const char* expected) {
    return readNumber(v, path, range.min, range.max, range.minOpen, expected);
}

Result<void> checkKnown(const Json& object, const std::string& prefix, std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : object.items()) {
        bool found = false;
        for (const auto k : known) found = found || k == key;
        if (!found) {
            std::string list;
            for (const auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            return fail(ErrorCode::BadInput, fmt::format("session: unknown field `{}{}` (known fields here: {})",
                                                         prefix, excerpt(key), list));
        }
    }
    return {};
}

Result<const Json*> readObject(const Json& root, const char* name) {
    const auto it = root.find(name);
    if (it == root.end()) return nullptr;
    if (!it->is_object())
        return std::unexpected(fieldError(name, fmt::format("expected an object, got {}", shown(*it))));
    return &*it;
}

std::string parseErrorDetail(const std::string& what) {
    std::string s = what;
    if (const auto close = s.find("] "); close != std::string::npos) s = s.substr(close + 2);
    if (s.rfind("parse error", 0) == 0)
        if (const auto colon = s.find(": "); colon != std::string::npos) s = s.substr(colon + 2);
    return s;
}

}  // namespace alibi::detail
