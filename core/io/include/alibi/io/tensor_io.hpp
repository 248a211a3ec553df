// Export of tensors to .npy, .safetensors, .csv, .json and .raw (streamed in chunks with
// bounded memory, atomic), and validated import of .npy and .safetensors.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/read_progress.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace alibi {

enum class FileFormat { Npy, Safetensors, Csv, Json, Raw, Text, Png, Svg };

[[nodiscard]] std::string_view formatName(FileFormat format);
[[nodiscard]] std::optional<FileFormat> parseFormat(std::string_view name);
// From the extension (".npy", ".safetensors", ".csv", ".json", ".raw"/".bin", ".txt", ".png",
// ".svg"); nullopt when there is none or it is unknown.
[[nodiscard]] std::optional<FileFormat> formatFromPath(std::string_view path);

struct ExportOptions {
    FileFormat format = FileFormat::Npy;
    std::string tensorName = "bias";                    // the safetensors key
    bool allowNonFinite = false;                        // JSON: write -Infinity/NaN as Python's json module does
    std::uint64_t chunkBytes = std::uint64_t{8} << 20;  // streaming chunk size
    ProgressFn progress;                                // bytes written / total
};

// Streams `source` to `path` ("-" for stdout, text formats only). Atomic for regular files.
[[nodiscard]] Result<void> exportTensor(const TensorSource& source, const std::string& path,
                                        const ExportOptions& options);

// The .npy header (magic, version 1.0, padded dict) for a shape and dtype.
[[nodiscard]] std::string npyHeader(const Shape& shape, DType dtype);

// ---------------------------------------------------------------------------
// Import. Every field is validated before any allocation; sizes beyond `budget` are refused.

struct LoadedTensor {
    Tensor tensor;
    std::string name;         // safetensors key, or the file name for .npy
    bool bf16FromU2 = false;  // .npy '<u2' read as bfloat16 bits
};

[[nodiscard]] Result<LoadedTensor> parseNpy(std::span<const std::byte> bytes,
                                            std::uint64_t budget = kDefaultMemoryBudget);
// `name` selects a tensor in a multi-tensor file; empty: the only tensor, or "bias"/"alibi".
[[nodiscard]] Result<LoadedTensor> parseSafetensors(std::span<const std::byte> bytes, const std::string& name = {},
                                                    std::uint64_t budget = kDefaultMemoryBudget);
// What loadTensor is told besides the path.
struct TensorReadOptions {
    std::string tensorName;                       // a tensor of a multi-tensor .safetensors file (ignored for .npy)
    std::uint64_t budget = kDefaultMemoryBudget;  // the most the tensor may take
    // The read's progress (the header read and parsed, then the data a few MiB at a time) and its
    // cancel: either stops it with ErrorCode::Cancelled, as the user's Ctrl+C does.
    ReadOptions read;
};

// Reads and parses by extension (or magic bytes when the extension says nothing).
[[nodiscard]] Result<LoadedTensor> loadTensor(const std::string& path, const TensorReadOptions& options);
[[nodiscard]] Result<LoadedTensor> loadTensor(const std::string& path, std::uint64_t budget = kDefaultMemoryBudget);
// The same, choosing a tensor of a multi-tensor .safetensors file by name (ignored for .npy).
[[nodiscard]] Result<LoadedTensor> loadTensor(const std::string& path, const std::string& tensorName,
                                              std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi
