// libFuzzer target for the attention-map reader and the fit over it: any bytes must give maps
// or a clean error, and any maps a fit and similarity or a clean error, never a crash, an
// out-of-bounds read or a hang. The first byte picks the format (even: .npy, odd: .safetensors).
#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
    alibi::AttentionOpenOptions options;
    options.batch = data[0] >> 4 & 1;  // a second batch element, when there is one
    auto maps = alibi::AttentionMaps::fromBytes(bytes, data[0] & 1, options);
    if (!maps) {
        if (maps.error().message.empty()) __builtin_trap();
        return 0;
    }
    // The data is inside the input, so every row read is bounded by its size.
    if (maps->mapBytes() > size) __builtin_trap();
    alibi::HeadFitOptions fit;
    fit.threads = 1;
    auto fits = alibi::fitHeads(*maps, fit);
    if (!fits) {
        if (fits.error().message.empty()) __builtin_trap();
        return 0;
    }
    if (fits->size() != static_cast<std::size_t>(maps->layers() * maps->heads())) __builtin_trap();
    for (const auto& f : *fits)
        if (!(f.slopeLow <= f.slope && f.slope <= f.slopeHigh)) __builtin_trap();
    if (maps->heads() <= 16) {
        (void)alibi::clusterOrder(alibi::profileDistances(*fits));
        (void)alibi::mapDistances(*maps, 0, 0, -1, 1);
    }
    return 0;
}
