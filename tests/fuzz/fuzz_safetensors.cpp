// libFuzzer target for the .safetensors reader: any bytes must give a tensor or a clean error,
// never a crash, an out-of-bounds read, a leak or a huge allocation. A tensor that loads must
// load again, to the same bytes and metadata, once written back with the exporter's header.
#include <alibi/io/tensor_io.hpp>

#include "tensor_io_detail.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {
constexpr std::uint64_t kBudget = std::uint64_t{16} << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    for (const std::string name : {"", "bias"}) {
        auto loaded = alibi::parseSafetensors(bytes, name, kBudget);
        if (!loaded) {
            if (loaded.error().message.empty()) __builtin_trap();
            continue;
        }
        const alibi::Tensor& t = loaded->tensor;
        if (t.byteSize() > kBudget) __builtin_trap();  // (a tensor may be named "", JSON allows it)
        std::string again = alibi::detail::safetensorsHeader(t.shape(), t.dtype(), loaded->name, t.metadata);
        again.append(reinterpret_cast<const char*>(t.bytes()), t.byteSize());
        auto reloaded = alibi::parseSafetensors({reinterpret_cast<const std::byte*>(again.data()), again.size()},
                                                loaded->name, kBudget);
        if (!reloaded || reloaded->tensor.shape() != t.shape() || reloaded->tensor.dtype() != t.dtype() ||
            reloaded->tensor.metadata != t.metadata ||
            (t.byteSize() && std::memcmp(reloaded->tensor.bytes(), t.bytes(), t.byteSize()) != 0))
            __builtin_trap();
    }
    return 0;
}
