// libFuzzer target for the .npy reader: any bytes must give a tensor or a clean error, never a
// crash, an out-of-bounds read, a leak or a huge allocation. A file that loads must load again,
// to the same bytes, once written back with npyHeader (the writer and reader agree).
#include <alibi/io/tensor_io.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {
// Small, so a declared shape can never make the fuzzer allocate its way out of memory.
constexpr std::uint64_t kBudget = std::uint64_t{16} << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto loaded = alibi::parseNpy(bytes, kBudget);
    if (!loaded) {
        if (loaded.error().message.empty()) __builtin_trap();  // every error says something
        return 0;
    }
    const alibi::Tensor& t = loaded->tensor;
    if (t.byteSize() > kBudget) __builtin_trap();
    std::string again = alibi::npyHeader(t.shape(), t.dtype());
    again.append(reinterpret_cast<const char*>(t.bytes()), t.byteSize());
    auto reloaded = alibi::parseNpy({reinterpret_cast<const std::byte*>(again.data()), again.size()}, kBudget);
    if (!reloaded || reloaded->tensor.shape() != t.shape() || reloaded->tensor.dtype() != t.dtype() ||
        reloaded->bf16FromU2 != loaded->bf16FromU2 ||
        (t.byteSize() && std::memcmp(reloaded->tensor.bytes(), t.bytes(), t.byteSize()) != 0))
        __builtin_trap();
    return 0;
}
