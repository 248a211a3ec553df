// See json_params.hpp.
#include <alibi/io/json_params.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <string_view>

namespace alibi {
namespace {

// JSON's own number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. Anything else
// ("press", "-inf", "1e9x", "0x10", "08", "") stays a string.
bool isJsonNumber(std::string_view s) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        return i > start;
    };
    if (i < s.size() && s[i] == '-') ++i;
    if (i < s.size() && s[i] == '0') {
        ++i;
    } else if (!digits()) {
        return false;
    }
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digits()) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == s.size();
}

}  // namespace

std::string typedParamsJson(const std::map<std::string, std::string>& params) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (const auto& [key, value] : params) {
        if (isJsonNumber(value)) {
            // Integers stay integers ("heads": 2); a number too large for JSON's doubles stays text.
            const auto parsed = nlohmann::ordered_json::parse(value, nullptr, false);
            if (!parsed.is_discarded() && (!parsed.is_number_float() || std::isfinite(parsed.get<double>()))) {
                object[key] = parsed;
                continue;
            }
        }
        object[key] = value;
    }
    return object.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace alibi
