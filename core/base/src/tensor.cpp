// Tensor storage, the memory budget, and the in-memory TensorSource.
#include <alibi/base/tensor.hpp>

#include <sys/mman.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace alibi {
namespace {

// Above this size a buffer is mmap'ed and offered transparent huge pages.
constexpr std::size_t kHugePageThreshold = std::size_t{4} << 20;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Freed large mappings, kept for the next buffer of the same size. Writing into new memory
// costs a page fault per page (the kernel zeroes it, and in a virtual machine the host may
// fault too), which caps a fresh tensor far below memory bandwidth; the GUIs rebuild a tensor
// of the same shape on every slider step, so handing back the pages they just freed makes
// that rebuild run at the speed of a fill. The cache holds at most kCacheBytes, and a request
// of another size empties it, so memory is kept only while the same shape keeps coming back.
class MappingCache {
public:
    static MappingCache& instance() {
        static auto* cache = new MappingCache;  // never destroyed: buffers may be freed after exit starts
        return *cache;
    }

    // A cached mapping of exactly `rounded` bytes, or nullptr.
    void* take(std::size_t rounded) {
        std::vector<Entry> dropped;
        void* found = nullptr;
        {
            std::lock_guard lock(m_mutex);
            for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
                if (it->bytes == rounded) {
                    found = it->data;
                    m_bytes -= it->bytes;
                    m_entries.erase(it);
                    break;
                }
            if (!found) {
                dropped.swap(m_entries);
                m_bytes = 0;
            }
        }
        for (const Entry& e : dropped) munmap(e.data, e.bytes);
        return found;
    }

    // Keeps a freed mapping, or unmaps it (and older ones) to stay within the limit.
    void give(void* data, std::size_t rounded) {
        if (rounded > kCacheBytes) {
            munmap(data, rounded);
            return;
        }
        std::vector<Entry> dropped;
        {
            std::lock_guard lock(m_mutex);
            while (!m_entries.empty() && (m_bytes + rounded > kCacheBytes || m_entries.size() >= kCacheEntries)) {
                dropped.push_back(m_entries.front());
                m_bytes -= m_entries.front().bytes;
                m_entries.erase(m_entries.begin());
            }
            m_entries.push_back({data, rounded});
            m_bytes += rounded;
        }
        for (const Entry& e : dropped) munmap(e.data, e.bytes);
    }

private:
    struct Entry {
        void* data;
        std::size_t bytes;
    };
    static constexpr std::size_t kCacheBytes = std::size_t{1} << 30;
    static constexpr std::size_t kCacheEntries = 4;

    std::mutex m_mutex;
    std::vector<Entry> m_entries;
    std::size_t m_bytes = 0;
};

}  // namespace

std::optional<std::uint64_t> elementCount(const Shape& shape) {
    std::uint64_t n = 1;
    for (auto d : shape) {
        if (d < 0) return std::nullopt;
        const auto u = static_cast<std::uint64_t>(d);
        if (u != 0 && n > (std::uint64_t{1} << 62) / u) return std::nullopt;
        n *= u;
    }
    return n;
}

std::string shapeString(const Shape& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

std::string humanBytes(std::uint64_t bytes) {
    constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return fmt::format("{} B", bytes);
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        ++u;
    }
    return fmt::format("{:.1f} {}", v, units[u]);
}

Result<void> checkBudget(std::uint64_t bytes, std::uint64_t budget, const std::string& what) {
    if (bytes <= budget) return {};
    return fail(ErrorCode::TooLarge,
                fmt::format("{} needs {} in memory, above the {} budget; stream it to a file instead "
                            "(`alibi bias ... -o out.npy` writes in chunks with bounded memory), "
                            "or raise the budget with --max-memory",
                            what, humanBytes(bytes), humanBytes(budget)));
}

// ---------------------------------------------------------------------------
// Buffer

Buffer::Buffer(std::size_t bytes) : m_size(bytes) {
    if (bytes == 0) return;
    if (bytes >= kHugePageThreshold) {
        // Huge pages only back 2 MiB-aligned ranges, and mmap promises 4 KiB alignment only:
        // map one huge page more, then give back the unaligned slack at both ends.
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        if (void* reused = MappingCache::instance().take(rounded)) {
            m_data = static_cast<std::byte*>(reused);
            m_mapped = true;
            return;
        }
        void* p = mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        const auto raw = reinterpret_cast<std::uintptr_t>(p);
        const std::uintptr_t aligned = (raw + kHugePage - 1) / kHugePage * kHugePage;
        if (aligned > raw) munmap(p, aligned - raw);
        if (const std::size_t tail = kHugePage - (aligned - raw); tail > 0)
            munmap(reinterpret_cast<void*>(aligned + rounded), tail);
        madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);  // a hint; ignored where THP is off
        m_data = reinterpret_cast<std::byte*>(aligned);
        m_mapped = true;
        return;
    }
    m_data = static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    if (!m_data) throw std::bad_alloc();
}

Buffer Buffer::borrow(std::byte* data, std::size_t bytes) {
    Buffer b;
    b.m_data = data;
    b.m_size = bytes;
    b.m_borrowed = true;
    return b;
}

Buffer::~Buffer() {
    if (!m_data || m_borrowed) return;
    if (m_mapped)
        MappingCache::instance().give(m_data, (m_size + kHugePage - 1) / kHugePage * kHugePage);
    else
        std::free(m_data);
}

Buffer::Buffer(Buffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_mapped(std::exchange(other.m_mapped, false)),
      m_borrowed(std::exchange(other.m_borrowed, false)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        Buffer old(std::move(*this));
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_mapped = std::exchange(other.m_mapped, false);
        m_borrowed = std::exchange(other.m_borrowed, false);
    }
    return *this;
}

// ---------------------------------------------------------------------------
// Tensor

Tensor::Tensor(Shape shape, DType dtype)
    : m_shape(std::move(shape)),
      m_dtype(dtype),
      m_count(elementCount(m_shape).value_or(0)),
      m_buffer(static_cast<std::size_t>(m_count * dtypeSize(dtype))) {}

Tensor Tensor::borrow(Shape shape, DType dtype, std::span<std::byte> bytes) {
    Tensor t;
    t.m_count = elementCount(shape).value_or(0);
    t.m_shape = std::move(shape);
    t.m_dtype = dtype;
    t.m_buffer = Buffer::borrow(bytes.data(), bytes.size());
    return t;
}

Result<Tensor> Tensor::allocate(Shape shape, DType dtype, std::uint64_t budget, const std::string& what) {
    const auto count = elementCount(shape);
    if (!count || *count > (std::uint64_t{1} << 60) / 8)
        return fail(ErrorCode::TooLarge,
                    fmt::format("{} of shape {} has too many elements to address", what, shapeString(shape)));
    const std::uint64_t bytes = *count * dtypeSize(dtype);
    if (auto ok = checkBudget(bytes, budget, fmt::format("{} {} {}", what, shapeString(shape), dtypeName(dtype))); !ok)
        return std::unexpected(ok.error());
    try {
        return Tensor(std::move(shape), dtype);
    } catch (const std::bad_alloc&) {
        return fail(ErrorCode::TooLarge,
                    fmt::format("could not allocate {} for {}: the system is out of memory", humanBytes(bytes), what));
    }
}

// ---------------------------------------------------------------------------
// Sources

namespace {

class InMemorySource final : public TensorSource {
public:
    explicit InMemorySource(const Tensor& t) : m_tensor(t) {}
    Shape shape() const override { return m_tensor.shape(); }
    DType dtype() const override { return m_tensor.dtype(); }
    std::map<std::string, std::string> metadata() const override { return m_tensor.metadata; }
    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        if (first + count > m_tensor.size())
            return fail(ErrorCode::Internal, "read past the end of an in-memory tensor");
        const std::size_t es = dtypeSize(m_tensor.dtype());
        std::memcpy(out, m_tensor.bytes() + first * es, count * es);
        return {};
    }

private:
    const Tensor& m_tensor;
};

}  // namespace

std::unique_ptr<TensorSource> tensorSource(const Tensor& tensor) {
    return std::make_unique<InMemorySource>(tensor);
}

Result<Tensor> materialize(const TensorSource& source, std::uint64_t budget) {
    auto tensor = Tensor::allocate(source.shape(), source.dtype(), budget);
    if (!tensor) return tensor;
    if (auto ok = source.read(0, tensor->size(), tensor->bytes()); !ok) return std::unexpected(ok.error());
    tensor->metadata = source.metadata();
    return tensor;
}

}  // namespace alibi
