// Storage dtypes and correct rounding into them (round to nearest, ties to even, from double).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace alibi {

enum class DType { F32, F64, F16, BF16 };

[[nodiscard]] std::size_t dtypeSize(DType dtype);
// "f32", "f64", "f16", "bf16": the names the CLI and session files use.
[[nodiscard]] std::string_view dtypeName(DType dtype);
[[nodiscard]] std::optional<DType> parseDType(std::string_view name);
// The safetensors spelling: "F32", "F64", "F16", "BF16".
[[nodiscard]] std::string_view safetensorsDTypeName(DType dtype);
// The NumPy descr: "<f4", "<f8", "<f2"; bf16 has no NumPy dtype and is written as "<u2" raw bits.
[[nodiscard]] std::string_view numpyDescr(DType dtype);

// The most negative finite value of the dtype (the `min` mask value).
[[nodiscard]] double dtypeLowest(DType dtype);
// The largest finite value.
[[nodiscard]] double dtypeMax(DType dtype);

// Bit patterns, correctly rounded from double (round to nearest, ties to even).
// Values beyond the finite range become +-inf, exactly as a cast in PyTorch or NumPy does.
[[nodiscard]] std::uint16_t toHalfBits(double value);
[[nodiscard]] std::uint16_t toBFloat16Bits(double value);
[[nodiscard]] double halfBitsToDouble(std::uint16_t bits);
[[nodiscard]] double bfloat16BitsToDouble(std::uint16_t bits);

// The value a double becomes once stored in `dtype` and read back.
[[nodiscard]] double roundTo(DType dtype, double value);

// Encode `value` into `dtype`'s little-endian bytes at `out` (dtypeSize(dtype) bytes).
void storeAs(DType dtype, double value, std::byte* out);
// Decode one little-endian element of `dtype` at `in`.
[[nodiscard]] double loadAs(DType dtype, const std::byte* in);

}  // namespace alibi
