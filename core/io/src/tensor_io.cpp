// Tensor files: format names, the streaming export driver (chunks of bounded size from a
// TensorSource into an atomic OutputFile, with progress and cancellation) and validated import
// of .npy and .safetensors. The formats themselves live in npy.cpp, safetensors.cpp and
// text_export.cpp; import always validates a header into a plan before reading or allocating data.
#include <alibi/io/tensor_io.hpp>

#include <alibi/base/huge_buffer.hpp>
#include <alibi/io/output_file.hpp>

#include "input_file.hpp"
#include "tensor_io_detail.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace alibi {

static_assert(std::endian::native == std::endian::little,
              "tensor files are little-endian and are written straight from memory");

// ---------------------------------------------------------------------------
// Format names

std::string_view formatName(FileFormat format) {
    switch (format) {
        case FileFormat::Npy:
            return "npy";
        case FileFormat::Safetensors:
            return "safetensors";
        case FileFormat::Csv:
            return "csv";
        case FileFormat::Json:
            return "json";
        case FileFormat::Raw:
            return "raw";
        case FileFormat::Text:
            return "text";
        case FileFormat::Png:
            return "png";
        case FileFormat::Svg:
            return "svg";
    }
    return "npy";
}

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool isTensorFormat(FileFormat f) {
    return f == FileFormat::Npy || f == FileFormat::Safetensors || f == FileFormat::Csv || f == FileFormat::Json ||
           f == FileFormat::Raw;
}

bool isTextFormat(FileFormat f) {
    return f == FileFormat::Csv || f == FileFormat::Json;
}

}  // namespace

std::optional<FileFormat> parseFormat(std::string_view name) {
    const std::string n = lower(name);
    if (n == "npy") return FileFormat::Npy;
    if (n == "safetensors") return FileFormat::Safetensors;
    if (n == "csv") return FileFormat::Csv;
    if (n == "json") return FileFormat::Json;
    if (n == "raw" || n == "bin") return FileFormat::Raw;
    if (n == "text" || n == "txt") return FileFormat::Text;
    if (n == "png") return FileFormat::Png;
    if (n == "svg") return FileFormat::Svg;
    return std::nullopt;
}

std::optional<FileFormat> formatFromPath(std::string_view path) {
    const auto slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const auto dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot + 1 == name.size()) return std::nullopt;
    const std::string ext = lower(name.substr(dot + 1));
    if (ext == "text") return std::nullopt;  // ".txt" is the text extension; "text" is only a --format name
    return parseFormat(ext);
}

// ---------------------------------------------------------------------------
// Export

namespace {

// Binary formats: a prologue, then the elements' bytes as they are in memory (little-endian).
class BinaryWriter final : public detail::ChunkWriter {
public:
    BinaryWriter(std::string prologue, std::size_t elementSize)
        : m_prologue(std::move(prologue)), m_elementSize(elementSize) {}
    Result<void> begin(OutputFile& out) override { return out.write(m_prologue); }
    Result<void> chunk(OutputFile& out, std::uint64_t, std::uint64_t count, const std::byte* data) override {
        return out.write(std::span<const std::byte>(data, count * m_elementSize));
    }
    Result<void> end(OutputFile&) override { return {}; }

private:
    std::string m_prologue;
    std::size_t m_elementSize;
};

// Elements per chunk: a whole number of the source's preferred chunks when the byte budget
// allows, otherwise a whole number of rows (the innermost axis) when one fits, otherwise just
// the budget: memory stays bounded by chunkBytes whatever the shape.
std::uint64_t chunkElements(const TensorSource& source, const Shape& shape, std::uint64_t count, std::size_t es,
                            std::uint64_t chunkBytes) {
    const std::uint64_t want = std::max<std::uint64_t>(1, chunkBytes / es);
    const std::uint64_t preferred = std::max<std::uint64_t>(1, source.preferredChunk());
    std::uint64_t n;
    if (want >= preferred) {
        n = want / preferred * preferred;
    } else {
        const std::uint64_t row = shape.empty() || shape.back() <= 0 ? 1 : static_cast<std::uint64_t>(shape.back());
        // Rows are split only when one row alone exceeds the budget (a flat tensor is one row).
        n = want >= row ? want / row * row : want;
    }
    return std::max<std::uint64_t>(1, std::min(n, count));
}

// Reads chunks of a source on one helper thread, one chunk ahead of the writer: start() hands
// it a read, finish() waits for it and returns its result. The thread blocks every signal, and
// so do the source's workers it starts, so an interrupt still reaches the calling thread, whose
// blocked write returns EINTR as before. Destruction waits for a read under way, so an early
// return never leaves the helper filling a buffer that is going away.
class ReadAhead {
public:
    explicit ReadAhead(const TensorSource& source) : m_source(source), m_thread([this] { run(); }) {}
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;
    ~ReadAhead() {
        {
            std::unique_lock lock(m_mutex);
            m_done.wait(lock, [this] { return !m_busy; });
            m_stop = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }

    void start(std::uint64_t first, std::uint64_t count, std::byte* out) {
        {
            std::lock_guard lock(m_mutex);
            m_job = Job{first, count, out};
            m_busy = true;
            m_result = {};
        }
        m_wake.notify_one();
    }

    Result<void> finish() {
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return !m_busy; });
        if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
        return m_result;
    }

private:
    struct Job {
        std::uint64_t first = 0, count = 0;
        std::byte* out = nullptr;
    };

    void run() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_stop || m_busy; });
            if (m_stop) return;
            const Job job = m_job;
            lock.unlock();
            Result<void> result;
            std::exception_ptr error;
            try {
                result = m_source.read(job.first, job.count, job.out);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            m_result = std::move(result);
            m_error = error;
            m_busy = false;
            m_done.notify_one();
        }
    }

    const TensorSource& m_source;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    Job m_job;
    bool m_busy = false, m_stop = false;
    Result<void> m_result;
    std::exception_ptr m_error;
    std::thread m_thread;  // last: started once every member above exists
};

// Reads the whole source once to find a non-finite value before anything is written: for a
// target written in place (stdout, a FIFO), where a failure half way could not be undone.
Result<void> prescanFinite(const TensorSource& source, const Shape& shape, std::uint64_t count, std::uint64_t chunk,
                           std::byte* buffer, const std::string& path) {
    const DType dtype = source.dtype();
    for (std::uint64_t first = 0; first < count; first += chunk) {
        const std::uint64_t n = std::min(chunk, count - first);
        if (auto ok = source.read(first, n, buffer); !ok) return ok;
        if (auto ok = detail::checkFinite(shape, dtype, first, n, buffer, path); !ok) return ok;
    }
    return {};
}

}  // namespace

Result<void> exportTensor(const TensorSource& source, const std::string& path, const ExportOptions& options) {
    const FileFormat format = options.format;
    if (!isTensorFormat(format))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("format '{}' is not a tensor format: tensors export to npy, safetensors, csv, json or "
                                "raw (images and plots come from the render commands)",
                                formatName(format)));
    // Binary goes to a pipe or a redirected file, never to a terminal, where it would be noise.
    if (path == "-" && !isTextFormat(format) && ::isatty(STDOUT_FILENO) == 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write {} to standard output ('-'): it is a terminal and {} is binary; pipe "
                                "or redirect it (| python3 ..., > out.{}), or give -o FILE",
                                formatName(format), formatName(format), formatName(format)));
    if (format == FileFormat::Safetensors && (options.tensorName.empty() || options.tensorName == "__metadata__"))
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("'{}' cannot name a safetensors tensor; choose another tensor name", options.tensorName));

    const Shape shape = source.shape();
    const DType dtype = source.dtype();
    const std::size_t es = dtypeSize(dtype);
    const auto counted = elementCount(shape);
    if (!counted || *counted > std::numeric_limits<std::uint64_t>::max() / 8)
        return fail(ErrorCode::TooLarge,
                    fmt::format("a tensor of shape {} has too many elements to write", shapeString(shape)));
    const std::uint64_t count = *counted;
    const std::uint64_t totalBytes = count * es;
    const auto metadata = source.metadata();

    std::unique_ptr<detail::ChunkWriter> writer;
    switch (format) {
        case FileFormat::Npy:
            writer = std::make_unique<BinaryWriter>(npyHeader(shape, dtype), es);
            break;
        case FileFormat::Safetensors:
            writer = std::make_unique<BinaryWriter>(
                detail::safetensorsHeader(shape, dtype, options.tensorName, metadata), es);
            break;
        case FileFormat::Raw:
            writer = std::make_unique<BinaryWriter>(std::string(), es);
            break;
        case FileFormat::Csv:
            writer = detail::makeCsvWriter(shape, dtype, metadata);
            break;
        case FileFormat::Json:
            writer = detail::makeJsonWriter(shape, dtype, metadata, options.allowNonFinite, path);
            break;
        default:
            return fail(ErrorCode::Internal, "exportTensor: unhandled format");
    }

    const std::uint64_t chunk = chunkElements(source, shape, count, es, options.chunkBytes);
    // Two chunk buffers, reused: the source fills one while the other is written out. Not
    // zero-filled and on huge pages: their first touch would otherwise fault every 4 KiB.
    detail::HugeBuffer buffer, spare;
    try {
        buffer = detail::HugeBuffer(static_cast<std::size_t>(count == 0 ? 0 : chunk * es));
        if (count > chunk) spare = detail::HugeBuffer(buffer.size());
    } catch (const std::bad_alloc&) {
        return fail(ErrorCode::TooLarge,
                    fmt::format("cannot allocate two {} export buffers; lower the chunk size", humanBytes(chunk * es)));
    }

    auto file = OutputFile::open(path);
    if (!file) return std::unexpected(file.error());
    const std::string shown = path == "-" ? std::string("standard output") : path;
    if (format == FileFormat::Json && !options.allowNonFinite && file->inPlace()) {
        if (auto ok = prescanFinite(source, shape, count, chunk, buffer.data(), path); !ok) return ok;
    }

    const auto cancelled = [&] {
        return fail(ErrorCode::Cancelled,
                    file->inPlace()
                        ? fmt::format("export to {} cancelled; {} is written in place, so what was written before "
                                      "cancelling stays there",
                                      shown, shown)
                        : fmt::format("export to {} cancelled; nothing was written at {}", path, path));
    };
    if (options.progress && !options.progress(0, totalBytes)) return cancelled();
    if (auto ok = writer->begin(*file); !ok) return ok;
    // Compute and writing overlap: the helper computes chunk k + 1 (on the source's workers)
    // while this thread writes chunk k, so formatting and the write system calls cost no
    // compute time. The buffers alternate and are reused; writes stay on this thread.
    if (count > 0) {
        // Without a thread to be had (a process or address-space limit), the chunks are read on
        // this thread, one after the other: slower, never an abort (issue 25).
        std::unique_ptr<ReadAhead> ahead;
        try {
            ahead = std::make_unique<ReadAhead>(source);
        } catch (const std::system_error&) {
        }
        if (ahead) ahead->start(0, std::min(chunk, count), buffer.data());
        for (std::uint64_t first = 0; first < count; first += chunk) {
            const std::uint64_t n = std::min(chunk, count - first);
            if (auto ok = ahead ? ahead->finish() : source.read(first, n, buffer.data()); !ok) return ok;
            if (ahead && first + n < count) ahead->start(first + n, std::min(chunk, count - first - n), spare.data());
            if (auto ok = writer->chunk(*file, first, n, buffer.data()); !ok) return ok;
            if (options.progress && !options.progress((first + n) * es, totalBytes)) return cancelled();
            std::swap(buffer, spare);
        }
    }
    if (auto ok = writer->end(*file); !ok) return ok;
    return file->commit();
}

// ---------------------------------------------------------------------------
// Import

namespace detail {

Result<void> checkImportBudget(std::uint64_t bytes, std::uint64_t budget, const std::string& what) {
    if (bytes <= budget) return {};
    return fail(ErrorCode::TooLarge,
                fmt::format("{} needs {} in memory, above the {} budget; a tensor is read whole, so raise the budget "
                            "with --max-memory (or a session's max_memory) if the machine has the memory",
                            what, humanBytes(bytes), humanBytes(budget)));
}

void byteSwap(std::span<std::byte> data, std::size_t elementSize) {
    for (std::size_t i = 0; i + elementSize <= data.size(); i += elementSize)
        std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i),
                     data.begin() + static_cast<std::ptrdiff_t>(i + elementSize));
}

}  // namespace detail

namespace {

// Allocates the planned tensor (within the budget) and lets `fill` put the data bytes in.
template <class Fill>
Result<LoadedTensor> materializePlan(detail::TensorPlan& plan, std::uint64_t budget, Fill&& fill) {
    auto tensor = Tensor::allocate(plan.shape, plan.dtype, budget, "the loaded tensor");
    if (!tensor) return std::unexpected(tensor.error());
    if (tensor->byteSize() != plan.dataBytes)
        return fail(ErrorCode::Internal, "tensor import: the plan and the allocation disagree on the size");
    if (auto ok = fill(tensor->byteSpan()); !ok) return std::unexpected(ok.error());
    if (plan.byteSwap) detail::byteSwap(tensor->byteSpan(), dtypeSize(plan.dtype));
    tensor->metadata = std::move(plan.metadata);
    LoadedTensor loaded;
    loaded.tensor = std::move(*tensor);
    loaded.name = std::move(plan.name);
    loaded.bf16FromU2 = plan.bf16FromU2;
    return loaded;
}

Result<LoadedTensor> fromMemory(std::span<const std::byte> bytes, detail::TensorPlan plan, std::uint64_t budget) {
    return materializePlan(plan, budget, [&](std::span<std::byte> out) -> Result<void> {
        if (plan.dataOffset > bytes.size() || out.size() > bytes.size() - plan.dataOffset)
            return fail(ErrorCode::Internal, "tensor import: the data lies outside the buffer");
        if (!out.empty()) std::memcpy(out.data(), bytes.data() + plan.dataOffset, out.size());
        return {};
    });
}

}  // namespace

Result<LoadedTensor> parseNpy(std::span<const std::byte> bytes, std::uint64_t budget) {
    auto plan = detail::planNpy(bytes, bytes.size(), budget);
    if (!plan) return std::unexpected(plan.error());
    return fromMemory(bytes, std::move(*plan), budget);
}

Result<LoadedTensor> parseSafetensors(std::span<const std::byte> bytes, const std::string& name, std::uint64_t budget) {
    auto plan = detail::planSafetensors(bytes, bytes.size(), name, budget);
    if (!plan) return std::unexpected(plan.error());
    return fromMemory(bytes, std::move(*plan), budget);
}

Result<LoadedTensor> loadTensor(const std::string& path, std::uint64_t budget) {
    return loadTensor(path, TensorReadOptions{.tensorName = {}, .budget = budget, .read = {}});
}

Result<LoadedTensor> loadTensor(const std::string& path, const std::string& tensorName, std::uint64_t budget) {
    return loadTensor(path, TensorReadOptions{.tensorName = tensorName, .budget = budget, .read = {}});
}

Result<LoadedTensor> loadTensor(const std::string& path, const TensorReadOptions& options) {
    const std::uint64_t budget = options.budget;
    const auto prefixed = [&](Error e) {
        e.message = fmt::format("cannot load {}: {}", path, e.message);
        return std::unexpected(std::move(e));
    };
    const auto cancelled = [&] { return fail(ErrorCode::Cancelled, fmt::format("reading {} was cancelled", path)); };
    // A FIFO or device is refused before it is opened: nothing here ever waits for a writer.
    auto file = detail::InputFile::open(path);
    if (!file) {
        Error e = file.error();
        e.message = fmt::format("cannot load {}: {}{}", path, e.message,
                                e.code == ErrorCode::InvalidArgument ? "; give a .npy or .safetensors file" : "");
        return std::unexpected(std::move(e));
    }
    const std::uint64_t fileSize = file->size();
    const auto readAt = [&](std::uint64_t offset, std::byte* out, std::uint64_t size) {
        return file->readAt(offset, out, size);
    };

    std::byte prefix[detail::kPrefixBytes] = {};
    const auto prefixSize = static_cast<std::size_t>(std::min<std::uint64_t>(fileSize, sizeof prefix));
    if (const int err = readAt(0, prefix, prefixSize); err != 0)
        return fail(ErrorCode::Io, fmt::format("cannot load {}: {}", path, std::strerror(err)));
    const std::span<const std::byte> head(prefix, prefixSize);

    // The magic bytes decide when they are there; then the extension; then a safetensors guess.
    const bool npyMagic = prefixSize >= 6 && std::memcmp(prefix, "\x93NUMPY", 6) == 0;
    const auto ext = formatFromPath(path);
    bool npy;
    if (npyMagic || ext == FileFormat::Npy) {
        npy = true;
    } else if (ext == FileFormat::Safetensors || (prefixSize > 8 && static_cast<char>(prefix[8]) == '{')) {
        npy = false;
    } else {
        return fail(ErrorCode::BadInput,
                    fmt::format("cannot load {}: it is neither a .npy file (no \\x93NUMPY magic) nor a safetensors "
                                "file; tensors load from .npy or .safetensors",
                                path));
    }

    const auto end = npy ? detail::npyHeaderEnd(head, fileSize) : detail::safetensorsHeaderEnd(head, fileSize);
    if (!end) return prefixed(end.error());
    std::vector<std::byte> header;
    try {
        header.resize(static_cast<std::size_t>(*end));
    } catch (const std::bad_alloc&) {
        return fail(ErrorCode::TooLarge, fmt::format("cannot load {}: out of memory for its header", path));
    }
    // The progress bar's parts: the header's share of the file, half read and half parsed (a
    // legal safetensors header may be 100 MB), then the data.
    using Stage = ReadProgress::Stage;
    const double headerPart = fileSize == 0 ? 1.0 : static_cast<double>(header.size()) / static_cast<double>(fileSize);
    const auto step = [&](Stage stage, std::uint64_t done, std::uint64_t total) {
        const double before = stage == Stage::ReadingHeader   ? 0.0
                              : stage == Stage::ParsingHeader ? headerPart / 2
                                                              : headerPart;
        const double share = stage == Stage::ReadingData ? 1.0 - headerPart : headerPart / 2;
        return detail::goOn(options.read, ReadProgress{stage, done, total, before, share});
    };
    constexpr std::size_t kHeaderChunk = std::size_t{1} << 20;
    if (!step(Stage::ReadingHeader, 0, header.size())) return cancelled();
    for (std::size_t at = 0; at < header.size(); at += kHeaderChunk) {
        const std::size_t n = std::min(kHeaderChunk, header.size() - at);
        if (const int err = readAt(at, header.data() + at, n); err != 0)
            return err == EINTR ? cancelled()
                                : fail(ErrorCode::Io, fmt::format("cannot load {}: {}", path, std::strerror(err)));
        if (!step(Stage::ReadingHeader, at + n, header.size())) return cancelled();
    }
    // The parser counts the JSON's bytes; the stage counts the header's (with its length field).
    const ProgressFn parsed = [&](std::uint64_t done, std::uint64_t total) {
        return step(Stage::ParsingHeader, header.size() - total + done, header.size());
    };
    auto plan =
        npy ? detail::planNpy(header, fileSize, budget)
            : detail::planSafetensors(header, fileSize, options.tensorName, budget, options.read.cancelled, parsed);
    if (!plan && plan.error().code == ErrorCode::Cancelled) return cancelled();
    if (!plan) return prefixed(plan.error());
    if (!step(Stage::ParsingHeader, header.size(), header.size())) return cancelled();
    header = {};
    if (npy) {
        const auto slash = path.find_last_of('/');
        plan->name = slash == std::string::npos ? path : path.substr(slash + 1);
    }
    // The data a few MiB at a time, so a slow disk shows its progress and Cancel stops it soon.
    constexpr std::size_t kDataChunk = std::size_t{4} << 20;
    auto loaded = materializePlan(*plan, budget, [&](std::span<std::byte> out) -> Result<void> {
        if (!step(Stage::ReadingData, 0, out.size())) return cancelled();
        for (std::size_t at = 0; at < out.size(); at += kDataChunk) {
            const std::size_t n = std::min(kDataChunk, out.size() - at);
            if (const int err = readAt(plan->dataOffset + at, out.data() + at, n); err != 0)
                return err == EINTR ? cancelled()
                                    : fail(ErrorCode::Io, fmt::format("cannot load {}: {}", path, std::strerror(err)));
            if (!step(Stage::ReadingData, at + n, out.size())) return cancelled();
        }
        return {};
    });
    if (!loaded && loaded.error().code != ErrorCode::Io && loaded.error().code != ErrorCode::Cancelled)
        return prefixed(loaded.error());
    return loaded;
}

}  // namespace alibi
