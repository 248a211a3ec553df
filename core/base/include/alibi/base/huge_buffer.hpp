// Working memory for large, short-lived buffers (export chunks, per-head data): not
// zero-filled, and on Linux mapped 2 MiB-aligned with transparent huge pages asked for, so
// touching it costs one page fault per 2 MiB instead of one per 4 KiB. Page faults of fresh
// buffers were a large part of a whole export's time (each is a trip into the kernel, dearer
// still in a virtual machine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace alibi::detail {

class HugeBuffer {
public:
    HugeBuffer() = default;
    // Throws std::bad_alloc when the memory cannot be had.
    explicit HugeBuffer(std::size_t bytes) : m_size(bytes) {
        if (bytes == 0) return;
#if defined(__linux__)
        constexpr std::size_t kHuge = std::size_t{2} << 20;
        if (bytes >= kHuge) {
            const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
            // Over-map by one huge page, then trim both ends to a 2 MiB-aligned range.
            void* raw = mmap(nullptr, rounded + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (raw == MAP_FAILED) throw std::bad_alloc();
            auto* base = static_cast<std::byte*>(raw);
            const auto misalign = reinterpret_cast<std::uintptr_t>(base) & (kHuge - 1);
            std::byte* aligned = misalign ? base + (kHuge - misalign) : base;
            if (aligned > base) munmap(base, static_cast<std::size_t>(aligned - base));
            const std::byte* end = base + rounded + kHuge;
            if (aligned + rounded < end) munmap(aligned + rounded, static_cast<std::size_t>(end - (aligned + rounded)));
            (void)madvise(aligned, rounded, MADV_HUGEPAGE);
            m_data = aligned;
            m_mapped = rounded;
            return;
        }
#endif
        m_data = static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}));
    }
    ~HugeBuffer() {
        release();
    }
    HugeBuffer(HugeBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr)),
          m_size(std::exchange(other.m_size, 0)),
          m_mapped(std::exchange(other.m_mapped, 0)) {}
    HugeBuffer& operator=(HugeBuffer&& other) noexcept {
        if (this != &other) {
            release();
            m_data = std::exchange(other.m_data, nullptr);
            m_size = std::exchange(other.m_size, 0);
            m_mapped = std::exchange(other.m_mapped, 0);
        }
        return *this;
    }
    HugeBuffer(const HugeBuffer&) = delete;
    HugeBuffer& operator=(const HugeBuffer&) = delete;

    [[nodiscard]] std::byte* data() const {
        return m_data;
    }
    [[nodiscard]] std::size_t size() const {
        return m_size;
    }

private:
    void release() {
        if (m_data == nullptr) return;
#if defined(__linux__)
        if (m_mapped != 0) {
            munmap(m_data, m_mapped);
            m_data = nullptr;
            return;
        }
#endif
        ::operator delete (m_data, std::align_val_t{64});
        m_data = nullptr;
    }

    std::byte* m_data = nullptr;
    std::size_t m_size = 0;
    std::size_t m_mapped = 0;  // bytes mapped (0: from operator new)
};

}  // namespace alibi::detail
