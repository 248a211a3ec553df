// A .safetensors file of many tensors (a model's weights, the attention maps of a run), kept open
// and read tensor by tensor: its header is validated whole by the same parser as every other
// safetensors read (strict tiling of the data area, so a truncated file is refused at open), and
// each tensor is read with pread into float32, whatever its stored dtype (F32, F64, F16, BF16).
// Also the writer of such files: named float32 tensors streamed in order, and string metadata.
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

struct SafetensorsEntry {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    std::uint64_t offset = 0;  // of its first byte, from the start of the file
    std::uint64_t bytes = 0;
    [[nodiscard]] std::uint64_t elements() const { return elementCount(shape).value_or(0); }
};

class SafetensorsFile {
public:
    // Opens `path` and validates its header; `cancelled` is asked while a long header is read.
    [[nodiscard]] static Result<SafetensorsFile> open(const std::string& path,
                                                      const std::function<bool()>& cancelled = {});

    SafetensorsFile(SafetensorsFile&&) noexcept;
    SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
    ~SafetensorsFile();

    [[nodiscard]] const std::string& path() const;
    [[nodiscard]] std::uint64_t fileBytes() const;
    // Every tensor, sorted by name.
    [[nodiscard]] const std::vector<SafetensorsEntry>& tensors() const { return m_entries; }
    // The tensor named `name`; nullptr when there is none.
    [[nodiscard]] const SafetensorsEntry* find(std::string_view name) const;
    // Elements [first, first + out.size()) of `entry` (row-major), converted to float32. An
    // error when the range is outside the tensor or the file changed on disk since it was opened.
    [[nodiscard]] Result<void> readF32(const SafetensorsEntry& entry, std::uint64_t first, std::span<float> out) const;

private:
    SafetensorsFile() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::vector<SafetensorsEntry> m_entries;
};

// Writes a .safetensors file of float32 tensors whose shapes are known up front, streamed in
// order (a run's attention maps, layer by layer, never all in memory), atomically: without
// commit() nothing appears at the target.
class SafetensorsWriter {
public:
    struct Spec {
        std::string name;
        Shape shape;
    };
    [[nodiscard]] static Result<SafetensorsWriter> open(const std::string& path, std::vector<Spec> tensors,
                                                        const std::map<std::string, std::string>& metadata);
    SafetensorsWriter(SafetensorsWriter&&) noexcept;
    SafetensorsWriter& operator=(SafetensorsWriter&&) noexcept;
    ~SafetensorsWriter();
    // The next values, in the order the tensors were given (a tensor may come in several pieces).
    [[nodiscard]] Result<void> write(std::span<const float> values);
    // Checks every value was written, then renames into place.
    [[nodiscard]] Result<void> commit();

private:
    SafetensorsWriter() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace alibi
