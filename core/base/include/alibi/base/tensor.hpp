// A dense little-endian tensor in memory, the memory budget that guards its allocation,
// and TensorSource: anything that can produce a tensor's bytes in chunks (for streaming export).
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/error.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace alibi {

using Shape = std::vector<std::int64_t>;

inline constexpr std::uint64_t kDefaultMemoryBudget = std::uint64_t{2} << 30;  // 2 GiB

// Product of the dimensions; nullopt when it overflows 2^62.
[[nodiscard]] std::optional<std::uint64_t> elementCount(const Shape& shape);
// "(8, 16, 16)" as NumPy prints shapes.
[[nodiscard]] std::string shapeString(const Shape& shape);
// "1.5 GiB", "12.0 MiB", "512 B".
[[nodiscard]] std::string humanBytes(std::uint64_t bytes);

// Refuses a tensor of `bytes` above `budget` with a message giving its size and suggesting
// streaming to a file. `what` names the tensor ("bias tensor (8, 65536, 65536) f32").
[[nodiscard]] Result<void> checkBudget(std::uint64_t bytes, std::uint64_t budget, const std::string& what);

// 64-byte aligned storage whose contents are unspecified (write before reading). Large
// buffers ask the kernel for transparent huge pages, which cuts the page-fault cost of first
// touch by ~512x, and reuse a just-freed mapping of the same size when there is one.
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t bytes);
    // Memory someone else owns and frees (a NumPy array, a mapped file); it must outlive the buffer.
    [[nodiscard]] static Buffer borrow(std::byte* data, std::size_t bytes);
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;

    [[nodiscard]] std::byte* data() { return m_data; }
    [[nodiscard]] const std::byte* data() const { return m_data; }
    [[nodiscard]] std::size_t size() const { return m_size; }

private:
    std::byte* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_mapped = false;
    bool m_borrowed = false;
};

class Tensor {
public:
    Tensor() = default;
    // Allocates without checking a budget; prefer Tensor::allocate.
    Tensor(Shape shape, DType dtype);
    [[nodiscard]] static Result<Tensor> allocate(Shape shape, DType dtype, std::uint64_t budget = kDefaultMemoryBudget,
                                                 const std::string& what = "tensor");
    // A tensor over `bytes` of memory someone else owns (it must outlive the tensor), so the
    // core reads a caller's array without a copy. `bytes` must hold elementCount(shape) elements
    // of `dtype`, aligned for the dtype. Writes through the tensor reach the caller's memory.
    [[nodiscard]] static Tensor borrow(Shape shape, DType dtype, std::span<std::byte> bytes);

    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
    Tensor(Tensor&&) noexcept = default;
    Tensor& operator=(Tensor&&) noexcept = default;

    [[nodiscard]] const Shape& shape() const { return m_shape; }
    [[nodiscard]] DType dtype() const { return m_dtype; }
    [[nodiscard]] std::uint64_t size() const { return m_count; }  // element count
    [[nodiscard]] std::uint64_t byteSize() const { return m_count * dtypeSize(m_dtype); }
    [[nodiscard]] std::byte* bytes() { return m_buffer.data(); }
    [[nodiscard]] const std::byte* bytes() const { return m_buffer.data(); }
    [[nodiscard]] std::span<std::byte> byteSpan() { return {m_buffer.data(), byteSize()}; }
    [[nodiscard]] std::span<const std::byte> byteSpan() const { return {m_buffer.data(), byteSize()}; }

    // Element `flat` (row-major) decoded to double.
    [[nodiscard]] double at(std::uint64_t flat) const {
        return loadAs(m_dtype, m_buffer.data() + flat * dtypeSize(m_dtype));
    }
    void set(std::uint64_t flat, double value) { storeAs(m_dtype, value, m_buffer.data() + flat * dtypeSize(m_dtype)); }

    // Typed views; the dtype must match (F32 -> float, F64 -> double, F16/BF16 -> uint16_t).
    template <class T>
    [[nodiscard]] std::span<T> as() {
        return {reinterpret_cast<T*>(m_buffer.data()), m_count};
    }
    template <class T>
    [[nodiscard]] std::span<const T> as() const {
        return {reinterpret_cast<const T*>(m_buffer.data()), m_count};
    }

    // Optional provenance (every parameter as strings); written into safetensors __metadata__.
    std::map<std::string, std::string> metadata;

private:
    Shape m_shape;
    DType m_dtype = DType::F32;
    std::uint64_t m_count = 0;
    Buffer m_buffer;
};

// Produces a tensor's elements in row-major order of shape(), encoded in dtype(), chunk by chunk.
// Exporters stream from a source, so a file can be far larger than memory.
class TensorSource {
public:
    virtual ~TensorSource() = default;
    [[nodiscard]] virtual Shape shape() const = 0;
    [[nodiscard]] virtual DType dtype() const = 0;
    // Every parameter as strings (safetensors __metadata__, JSON "params").
    [[nodiscard]] virtual std::map<std::string, std::string> metadata() const { return {}; }
    // A good chunk length in elements (a whole number of rows); exporters round to it.
    [[nodiscard]] virtual std::uint64_t preferredChunk() const { return std::uint64_t{1} << 20; }
    // Writes elements [first, first + count) to out (count * dtypeSize(dtype()) bytes).
    [[nodiscard]] virtual Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const = 0;

    [[nodiscard]] std::uint64_t size() const { return elementCount(shape()).value_or(0); }
};

// A source over an in-memory tensor (which must outlive the source).
[[nodiscard]] std::unique_ptr<TensorSource> tensorSource(const Tensor& tensor);

// Drains a source into memory, refusing above the budget.
[[nodiscard]] Result<Tensor> materialize(const TensorSource& source, std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi
