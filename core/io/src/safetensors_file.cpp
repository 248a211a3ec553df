// See safetensors_file.hpp. The header goes through planSafetensorsAll (safetensors.cpp), the
// one validator of the format; reads are pread calls checked against the size the file had when
// it was opened, so a file truncated or replaced while open gives an error, never a crash.
#include <alibi/io/safetensors_file.hpp>

#include <alibi/io/output_file.hpp>
#include "input_file.hpp"
#include "tensor_io_detail.hpp"

#include <sys/stat.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

namespace alibi {

namespace {

// float16 bits to float32, exactly (every half is a float).
float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu;
    std::uint32_t mant = h & 0x3ffu;
    std::uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        std::uint32_t e = 113;
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            --e;
        }
        bits = sign | (e << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void convert(DType dtype, const std::byte* in, std::size_t count, float* out) {
    switch (dtype) {
        case DType::F32:
            std::memcpy(out, in, count * 4);
            return;
        case DType::F64:
            for (std::size_t i = 0; i < count; ++i) {
                double d;
                std::memcpy(&d, in + 8 * i, 8);
                out[i] = static_cast<float>(d);
            }
            return;
        case DType::F16:
            for (std::size_t i = 0; i < count; ++i) {
                std::uint16_t h;
                std::memcpy(&h, in + 2 * i, 2);
                out[i] = halfToFloat(h);
            }
            return;
        case DType::BF16:
            for (std::size_t i = 0; i < count; ++i) {
                std::uint16_t h;
                std::memcpy(&h, in + 2 * i, 2);
                const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
                std::memcpy(out + i, &bits, 4);
            }
            return;
    }
}

}  // namespace

struct SafetensorsFile::Impl {
    std::string path;
    std::optional<detail::InputFile> file;

    Result<void> read(std::uint64_t offset, std::byte* out, std::uint64_t n) const {
        if (offset > file->size() || n > file->size() - offset)
            return fail(ErrorCode::Internal, "SafetensorsFile: read outside the file");
        const int err = file->readAt(offset, out, n);
        if (err == 0) return {};
        if (err == EINTR) return fail(ErrorCode::Cancelled, fmt::format("reading {} was interrupted", path));
        struct stat st {};
        if (err == EIO && ::fstat(file->fd(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) != file->size())
            return fail(ErrorCode::Io, fmt::format("{}: the file changed on disk (it was {} bytes when opened, it is "
                                                   "{} bytes now); open it again",
                                                   path, file->size(), static_cast<std::uint64_t>(st.st_size)));
        return fail(ErrorCode::Io, fmt::format("{}: cannot read it ({})", path, std::strerror(err)));
    }
};

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

Result<SafetensorsFile> SafetensorsFile::open(const std::string& path, const std::function<bool()>& cancelled) {
    const auto prefixed = [&](Error e) {
        e.message = fmt::format("cannot open {}: {}", path, e.message);
        return std::unexpected(std::move(e));
    };
    auto file = detail::InputFile::open(path);
    if (!file) return prefixed(file.error());
    SafetensorsFile out;
    out.m_impl = std::make_unique<Impl>();
    out.m_impl->path = path;
    const std::uint64_t size = file->size();
    out.m_impl->file.emplace(std::move(*file));

    std::byte prefix[detail::kPrefixBytes] = {};
    const auto prefixSize = static_cast<std::size_t>(std::min<std::uint64_t>(size, detail::kPrefixBytes));
    if (auto ok = out.m_impl->read(0, prefix, prefixSize); !ok) return prefixed(ok.error());
    const auto end = detail::safetensorsHeaderEnd(std::span<const std::byte>(prefix, prefixSize), size);
    if (!end) return prefixed(end.error());
    std::vector<std::byte> header(static_cast<std::size_t>(*end));
    if (auto ok = out.m_impl->read(0, header.data(), header.size()); !ok) return prefixed(ok.error());
    auto plans = detail::planSafetensorsAll(header, size, cancelled);
    if (!plans) return prefixed(plans.error());
    out.m_entries.reserve(plans->size());
    for (auto& p : *plans)
        out.m_entries.push_back(
            SafetensorsEntry{std::move(p.name), p.dtype, std::move(p.shape), p.dataOffset, p.dataBytes});
    return out;
}

const std::string& SafetensorsFile::path() const {
    return m_impl->path;
}

std::uint64_t SafetensorsFile::fileBytes() const {
    return m_impl->file->size();
}

const SafetensorsEntry* SafetensorsFile::find(std::string_view name) const {
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), name,
                                     [](const SafetensorsEntry& e, std::string_view n) { return e.name < n; });
    return it != m_entries.end() && it->name == name ? &*it : nullptr;
}

Result<void> SafetensorsFile::readF32(const SafetensorsEntry& entry, std::uint64_t first, std::span<float> out) const {
    const std::uint64_t count = entry.elements();
    if (first > count || out.size() > count - first)
        return fail(ErrorCode::Internal, fmt::format("SafetensorsFile: elements [{}, {}) of tensor '{}' are outside "
                                                     "its {} elements",
                                                     first, first + out.size(), entry.name, count));
    const std::size_t item = dtypeSize(entry.dtype);
    // In pieces of at most 4 MiB of stored bytes, converted as they arrive.
    constexpr std::size_t kPiece = std::size_t{4} << 20;
    std::vector<std::byte> buffer;
    if (entry.dtype == DType::F32) {
        return m_impl->read(entry.offset + first * 4, reinterpret_cast<std::byte*>(out.data()), out.size() * 4);
    }
    buffer.resize(std::min<std::size_t>(kPiece, out.size() * item));
    std::size_t done = 0;
    while (done < out.size()) {
        const std::size_t n = std::min<std::size_t>(buffer.size() / item, out.size() - done);
        if (auto ok = m_impl->read(entry.offset + (first + done) * item, buffer.data(), n * item); !ok) return ok;
        convert(entry.dtype, buffer.data(), n, out.data() + done);
        done += n;
    }
    return {};
}

// ---------------------------------------------------------------------------
// Writing

struct SafetensorsWriter::Impl {
    std::optional<OutputFile> file;
    std::uint64_t expected = 0, written = 0;  // elements
};

SafetensorsWriter::SafetensorsWriter(SafetensorsWriter&&) noexcept = default;
SafetensorsWriter& SafetensorsWriter::operator=(SafetensorsWriter&&) noexcept = default;
SafetensorsWriter::~SafetensorsWriter() = default;

Result<SafetensorsWriter> SafetensorsWriter::open(const std::string& path, std::vector<Spec> tensors,
                                                  const std::map<std::string, std::string>& metadata) {
    std::vector<detail::SafetensorsEntry> entries;
    std::set<std::string> names;
    std::uint64_t offset = 0;
    for (const Spec& t : tensors) {
        const auto count = elementCount(t.shape);
        if (!count) return fail(ErrorCode::TooLarge, fmt::format("tensor '{}' is too large", t.name));
        if (!names.insert(t.name).second)
            return fail(ErrorCode::Internal, fmt::format("two tensors are named '{}'", t.name));
        entries.push_back({t.name, t.shape, DType::F32});
        offset += *count * 4;
    }
    const std::string header = detail::safetensorsHeader(entries, metadata);

    auto file = OutputFile::open(path);
    if (!file) return std::unexpected(file.error());
    if (auto ok = file->write(header); !ok) return std::unexpected(ok.error());
    SafetensorsWriter w;
    w.m_impl = std::make_unique<Impl>();
    w.m_impl->file.emplace(std::move(*file));
    w.m_impl->expected = offset / 4;
    return w;
}

Result<void> SafetensorsWriter::write(std::span<const float> values) {
    if (values.size() > m_impl->expected - m_impl->written)
        return fail(ErrorCode::Internal, "SafetensorsWriter: more values than the tensors hold");
    m_impl->written += values.size();
    return m_impl->file->write(std::as_bytes(values));
}

Result<void> SafetensorsWriter::commit() {
    if (m_impl->written != m_impl->expected)
        return fail(ErrorCode::Internal,
                    fmt::format("SafetensorsWriter: {} of {} values written", m_impl->written, m_impl->expected));
    return m_impl->file->commit();
}

}  // namespace alibi
