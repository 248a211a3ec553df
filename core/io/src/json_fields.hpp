// Strict readers for the fields of a hand-editable JSON document (session files): each checks
// the type and range of one value and, when it is wrong, returns an error naming the field by
// its dotted path and showing what was written. The schema itself lives in session.cpp.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>

#include "read_limits.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

namespace alibi::detail {

using Json = nlohmann::json;

// "session field `bias.heads`: <what>".
[[nodiscard]] Error fieldError(const std::string& path, const std::string& what);

// JSON text of a value as the user wrote it, shortened so one bad field cannot flood a message.
[[nodiscard]] std::string shown(const Json& v);

// An integer in [lo, hi]; floats such as 8.0 are refused.
[[nodiscard]] Result<std::int64_t> readInt(const Json& v, const std::string& path, std::int64_t lo, std::int64_t hi);
[[nodiscard]] Result<std::uint64_t> readUnsigned(const Json& v, const std::string& path, std::uint64_t lo);
// A finite number in [lo, hi] (or (lo, hi] when loOpen); `expected` words the range.
[[nodiscard]] Result<double> readNumber(const Json& v, const std::string& path, double lo, double hi, bool loOpen,
                                        const char* expected);
// The same within one of the shared parameter limits (params.hpp).
[[nodiscard]] Result<double> readNumber(const Json& v, const std::string& path, NumberRange range,
                                        const char* expected);

// A string naming one value of an enumeration, parsed by `parse` (nullopt: unknown name).
template <class Parse>
auto readName(const Json& v, const std::string& path, const char* kind, const char* expected, Parse parse)
    -> Result<typename std::invoke_result_t<Parse, std::string_view>::value_type> {
    if (!v.is_string())
        return std::unexpected(fieldError(
            path, "expected a string naming the " + std::string(kind) + " (" + expected + "), got " + shown(v)));
    const auto& s = v.get_ref<const std::string&>();
    auto parsed = parse(std::string_view(s));
    if (!parsed)
        return std::unexpected(
            fieldError(path, "unknown " + std::string(kind) + " '" + excerpt(s) + "' (expected " + expected + ")"));
    return *parsed;
}

// Rejects any key of `object` outside `known`, naming it with its full path (`prefix` + key).
[[nodiscard]] Result<void> checkKnown(const Json& object, const std::string& prefix,
                                      std::initializer_list<std::string_view> known);

// The object under `name`, nullptr when absent, an error when it is not an object.
[[nodiscard]] Result<const Json*> readObject(const Json& root, const char* name);

// A parse error's text without nlohmann's "[json.exception.parse_error.101] parse error at
// line 1, column 17: " prefix (the byte offset is given separately).
[[nodiscard]] std::string parseErrorDetail(const std::string& what);

}  // namespace alibi::detail
