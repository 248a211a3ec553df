// The "params" object of a JSON export: the tensor's provenance (kept as strings in
// Tensor::metadata, as safetensors' __metadata__ requires) with numbers written as JSON numbers
// ("heads": 2, "max_bias": 8) and everything else as strings ("scheme": "press").
#pragma once

#include <map>
#include <string>

namespace alibi {

// The object as compact JSON text ({"heads": 2, "scheme": "press"}), keys in order.
[[nodiscard]] std::string typedParamsJson(const std::map<std::string, std::string>& params);

}  // namespace alibi
