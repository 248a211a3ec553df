// Internals shared by the tensor file formats (npy.cpp, safetensors.cpp, text_export.cpp) and the
// driver in tensor_io.cpp. Import is split in two steps so a file is never read blindly: a
// format's header is validated into a TensorPlan (shape, dtype, where the data is) before a
// single byte of data is read or allocated. Export goes through a ChunkWriter that receives the
// tensor's bytes in row-major chunks.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/output_file.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::detail {

// What a validated header says about the data that follows.
struct TensorPlan {
    Shape shape;
    DType dtype = DType::F32;
    bool byteSwap = false;         // big-endian data ('>f4'): swap each element after reading
    bool bf16FromU2 = false;       // .npy '<u2' taken as bfloat16 bits
    std::uint64_t dataOffset = 0;  // from the start of the file
    std::uint64_t dataBytes = 0;   // exactly elementCount(shape) * dtypeSize(dtype)
    std::string name;
    std::map<std::string, std::string> metadata;
};

// The minimum number of leading bytes a format needs to find where its header ends.
inline constexpr std::size_t kPrefixBytes = 12;

// .npy: from the first min(kPrefixBytes, fileSize) bytes, the offset where the data starts.
[[nodiscard]] Result<std::uint64_t> npyHeaderEnd(std::span<const std::byte> prefix, std::uint64_t fileSize);
// .npy: validates bytes [0, headerEnd) of a file of `fileSize` bytes.
[[nodiscard]] Result<TensorPlan> planNpy(std::span<const std::byte> header, std::uint64_t fileSize,
                                         std::uint64_t budget);

// .safetensors: same two steps; `name` selects a tensor (empty: the only one, or bias/alibi).
[[nodiscard]] Result<std::uint64_t> safetensorsHeaderEnd(std::span<const std::byte> prefix, std::uint64_t fileSize);
// The header is read as a stream of JSON events, never as a document (its cost is what it is);
// `cancelled` (and the user's Ctrl+C, alibi/base/interrupt.hpp) stop a long read; `parsed` is
// told the JSON's bytes parsed so far every few thousand events (false cancels).
[[nodiscard]] Result<TensorPlan> planSafetensors(std::span<const std::byte> header, std::uint64_t fileSize,
                                                 const std::string& name, std::uint64_t budget,
                                                 const std::function<bool()>& cancelled = {},
                                                 const ProgressFn& parsed = {});
// .safetensors: every tensor of a validated header, sorted by name (no budget: for readers that
// read rows on demand instead of loading the file). A tensor of a dtype we cannot decode is an
// error. The plans carry no metadata (it is checked, not kept); `metadata`, when given, receives
// the entries of the file's __metadata__ named in `metadataKeys` (only those are kept and
// budgeted, so a file with a huge metadata still opens). `parsed` is told the header's bytes
// parsed so far (of the JSON text's size) every few thousand events; false cancels.
[[nodiscard]] Result<std::vector<TensorPlan>> planSafetensorsAll(std::span<const std::byte> header,
                                                                 std::uint64_t fileSize,
                                                                 const std::function<bool()>& cancelled = {},
                                                                 std::map<std::string, std::string>* metadata = nullptr,
                                                                 std::span<const std::string_view> metadataKeys = {},
                                                                 const ProgressFn& parsed = {});
// What of a safetensors file's __metadata__ is read (its text, keys and values, and its entries);
// above either the file is refused with a message about its metadata, before it is stored.
inline constexpr std::uint64_t kMaxSafetensorsMetadataBytes = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kMaxSafetensorsMetadataEntries = 65536;
// One tensor of a safetensors file: its data follows the previous tensor's.
struct SafetensorsEntry {
    std::string name;
    Shape shape;
    DType dtype;
};
// The safetensors header (length prefix, JSON, space padding to a multiple of 8) of tensors laid
// out one after another in the given order.
[[nodiscard]] std::string safetensorsHeader(std::span<const SafetensorsEntry> tensors,
                                            const std::map<std::string, std::string>& metadata);
// The same for a file of one tensor.
[[nodiscard]] std::string safetensorsHeader(const Shape& shape, DType dtype, const std::string& tensorName,
                                            const std::map<std::string, std::string>& metadata);

// Refuses a tensor to load above the memory budget, saying how to raise it (a loaded tensor is
// held whole; unlike an export it cannot be streamed).
[[nodiscard]] Result<void> checkImportBudget(std::uint64_t bytes, std::uint64_t budget, const std::string& what);

// Reverses the byte order of every element in place.
void byteSwap(std::span<std::byte> data, std::size_t elementSize);

// ---------------------------------------------------------------------------
// Export

class ChunkWriter {
public:
    virtual ~ChunkWriter() = default;
    [[nodiscard]] virtual Result<void> begin(OutputFile& out) = 0;
    // Elements [first, first + count) in row-major order, encoded in the tensor's dtype.
    [[nodiscard]] virtual Result<void> chunk(OutputFile& out, std::uint64_t first, std::uint64_t count,
                                             const std::byte* data) = 0;
    [[nodiscard]] virtual Result<void> end(OutputFile& out) = 0;
};

[[nodiscard]] std::unique_ptr<ChunkWriter> makeCsvWriter(const Shape& shape, DType dtype,
                                                         const std::map<std::string, std::string>& metadata);
[[nodiscard]] std::unique_ptr<ChunkWriter> makeJsonWriter(const Shape& shape, DType dtype,
                                                          const std::map<std::string, std::string>& metadata,
                                                          bool allowNonFinite, const std::string& path);

// The first non-finite element among `count`, as an error naming it; {} when all are finite.
[[nodiscard]] Result<void> checkFinite(const Shape& shape, DType dtype, std::uint64_t first, std::uint64_t count,
                                       const std::byte* data, const std::string& path);

// Appends the shortest text that reads back as exactly `value` (std::to_chars), "-0.0" for
// negative zero, and the non-finite spellings of CSV (inf, -inf, nan) or Python's json module
// (Infinity, -Infinity, NaN).
void appendNumber(std::string& out, double value, bool jsonSpelling);

}  // namespace alibi::detail
