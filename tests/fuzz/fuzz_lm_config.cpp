// libFuzzer target for a model folder's config.json and model.safetensors.index.json readers
// (alibi/lm/config.hpp): any text must give a config or index, or a clean error with a message,
// never a crash, a hang or a leak. The first byte chooses the reader. A config that parses must
// be one a forward pass can size: positive dimensions within the limits, d_model a multiple of
// the heads, and an expected-weights list whose shapes all have an element count.
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] % 2 == 0) {
        auto config = alibi::lm::parseLmConfig(text);
        if (!config) {
            if (config.error().message.empty()) __builtin_trap();
            return 0;
        }
        const auto& c = *config;
        if (c.layers < 1 || c.layers > alibi::lm::kMaxLayers || c.heads < 1 || c.heads > alibi::lm::kMaxHeads ||
            c.dModel < 1 || c.dModel % c.heads != 0 || c.vocab < 1 || c.ffnHidden < 1 || !(c.softmaxScale > 0))
            __builtin_trap();
        // The list is as long as the model is deep: size it only for small models.
        if (c.layers <= 64)
            for (const auto& w : alibi::lm::expectedWeights(c))
                if (!alibi::elementCount(w.shape)) __builtin_trap();
        return 0;
    }
    auto index = alibi::lm::parseShardIndex(text);
    if (!index) {
        if (index.error().message.empty()) __builtin_trap();
        return 0;
    }
    if (index->weightMap.empty() || index->files.empty()) __builtin_trap();
    for (const auto& [name, file] : index->weightMap)
        if (file.empty() || file.find('/') != std::string::npos || file[0] == '.') __builtin_trap();
    return 0;
}
