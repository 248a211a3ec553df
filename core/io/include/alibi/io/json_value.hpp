// Members of a parsed JSON object read without throwing. nlohmann's value() throws type_error when
// a member has another type than its default's: a fuzzed MPT config with "ffn_act_fn": {"name":
// 4444444} ended the checkpoint reader, and {"model_type": 5} a --from-config. Here a member of
// another type comes back as its JSON text ("4444444"), so the caller's own check refuses it by
// name, as it refuses any unknown value.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace alibi {

// The member `key` of `object` when it is a string; `fallback` when it is missing (or `object` is
// not an object); its JSON text otherwise.
[[nodiscard]] inline std::string jsonStringOr(const nlohmann::json& object, std::string_view key,
                                              std::string fallback) {
    if (!object.is_object()) return fallback;
    const auto it = object.find(key);
    if (it == object.end()) return fallback;
    return it->is_string() ? it->get<std::string>() : it->dump();
}

// The member `key` of `object` when it is a boolean; `fallback` when it is missing (or `object`
// is not an object); false for any other type (a config's "alibi": "yes" does not turn ALiBi on).
[[nodiscard]] inline bool jsonBoolOr(const nlohmann::json& object, std::string_view key, bool fallback) {
    if (!object.is_object()) return fallback;
    const auto it = object.find(key);
    if (it == object.end()) return fallback;
    return it->is_boolean() && it->get<bool>();
}

}  // namespace alibi
