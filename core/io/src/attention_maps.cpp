// Saved attention maps, read on demand: the headers are validated by the same planners as every
// other tensor read (npy.cpp, safetensors.cpp), then the layout is checked against the shapes
// attention comes in, and rows are read and decoded as they are asked for. Nothing is read whole:
// opening a 6 GiB file reads its header and a few sampled rows.
//
// Rows are read with pread(2), never through a memory mapping: a file truncated while open (an
// np.save over it) made every access past its new end a SIGBUS that killed the program (issue
// 25). A read that finds fewer bytes than the file had is an error of that read, "the file
// changed on disk; reopen it", which every caller already reports.
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/tensor_io.hpp>

#include "input_file.hpp"
#include "probability_rows.hpp"
#include "read_limits.hpp"
#include "tensor_io_detail.hpp"

#include <alibi/base/interrupt.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <vector>

namespace alibi {

std::string_view attentionValuesName(AttentionValues values) {
    return values == AttentionValues::Probabilities ? "probabilities" : "scores";
}

std::optional<AttentionValues> parseAttentionValues(std::string_view name) {
    if (name == "probabilities" || name == "probs") return AttentionValues::Probabilities;
    if (name == "scores" || name == "logits") return AttentionValues::Scores;
    return std::nullopt;
}

double AttentionOpenProgress::fraction() const {
    const double within = total == 0 ? 1.0 : static_cast<double>(std::min(done, total)) / static_cast<double>(total);
    return (static_cast<int>(stage) + within) / 3.0;
}

std::string AttentionOpenProgress::text() const {
    switch (stage) {
        case Stage::ReadingHeader:
            return fmt::format("reading the header: {} of {}", humanBytes(done), humanBytes(total));
        case Stage::ParsingHeader:
            return fmt::format("parsing the header: {} of {}", humanBytes(done), humanBytes(total));
        case Stage::SamplingRows:
            break;
    }
    return fmt::format("checking sampled rows: {} of {}", done, total);
}

std::optional<int> layerNumberFromName(std::string_view name) {
    std::size_t end = name.size();
    while (end > 0 && !(name[end - 1] >= '0' && name[end - 1] <= '9')) --end;
    if (end == 0) return std::nullopt;
    std::size_t begin = end;
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
    if (end - begin > 6) return std::nullopt;  // not a layer number
    int n = 0;
    for (std::size_t i = begin; i < end; ++i) n = n * 10 + (name[i] - '0');
    return n;
}

// Where the maps' bytes come from: the open file (read with pread, checked against the size it
// had when opened), or memory the caller owns (tests and fuzzers).
struct AttentionMaps::Mapping {
    const std::byte* memory = nullptr;
    std::optional<detail::InputFile> file;
    std::string path;
    std::uint64_t size = 0;

    // Exactly `n` bytes at `offset` (inside the size the file had when opened).
    [[nodiscard]] Result<void> read(std::uint64_t offset, std::byte* out, std::uint64_t n) const {
        if (offset > size || n > size - offset)
            return fail(ErrorCode::Internal, "AttentionMaps: read outside the file");
        if (!file) {
            if (n > 0) std::memcpy(out, memory + offset, static_cast<std::size_t>(n));
            return {};
        }
        const int err = file->readAt(offset, out, n);
        if (err == 0) return {};
        if (err == EINTR) return fail(ErrorCode::Cancelled, "reading the attention maps was interrupted");
        struct stat st {};
        if (err == EIO && ::fstat(file->fd(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) != size)
            return fail(ErrorCode::Io,
                        fmt::format("{}: the file changed on disk (it was {} bytes when opened, it is {} bytes now); "
                                    "reopen it",
                                    path, size, static_cast<std::uint64_t>(st.st_size)));
        return fail(ErrorCode::Io, fmt::format("{}: cannot read it ({}); if the file changed on disk, reopen it", path,
                                               std::strerror(err)));
    }
    void advise(std::uint64_t offset, std::uint64_t n, int advice) const {
        if (file) (void)::posix_fadvise(file->fd(), static_cast<off_t>(offset), static_cast<off_t>(n), advice);
    }
};

AttentionMaps::AttentionMaps(AttentionMaps&&) noexcept = default;
AttentionMaps& AttentionMaps::operator=(AttentionMaps&&) noexcept = default;
AttentionMaps::~AttentionMaps() = default;

namespace {

std::unexpected<Error> badLayout(const std::string& message) {
    return fail(ErrorCode::BadInput, "attention maps: " + message);
}

// How far a row of probabilities may sum from 1: the rounding of K stored values, each off by
// at most half an ulp of the dtype relative to itself, moves the sum by at most that much.
double sumTolerance(DType dtype) {
    switch (dtype) {
        case DType::F16:
            return 5e-3;
        case DType::BF16:
            return 2e-2;
        default:
            return 1e-3;
    }
}

}  // namespace

Result<AttentionMaps> AttentionMaps::open(const std::string& path, const AttentionOpenOptions& options) {
    const auto prefixed = [&](Error e) {
        e.message = fmt::format("cannot open attention maps {}: {}", path, e.message);
        return std::unexpected(std::move(e));
    };
    auto file = detail::InputFile::open(path);
    if (!file) {
        Error e = file.error();
        if (e.code == ErrorCode::InvalidArgument) e.message += "; give a .npy or .safetensors file";
        return prefixed(std::move(e));
    }
    if (file->size() < 12)
        return prefixed(Error{ErrorCode::BadInput, fmt::format("the file holds only {} bytes", file->size())});
    auto mapping = std::make_shared<Mapping>();
    mapping->size = file->size();
    mapping->path = path;
    mapping->file.emplace(std::move(*file));
    // Opening reads the header and a few scattered sample rows: no read-ahead, so opening a
    // large file stays cheap in time and memory (read ahead again below, for the passes that
    // read rows in order, layer by layer).
    mapping->advise(0, 0, POSIX_FADV_RANDOM);
    std::byte magic[12] = {};
    if (auto ok = mapping->read(0, magic, sizeof magic); !ok) return prefixed(ok.error());

    const bool npyMagic = std::memcmp(magic, "\x93NUMPY", 6) == 0;
    const auto ext = formatFromPath(path);
    bool safetensors;
    if (npyMagic || ext == FileFormat::Npy)
        safetensors = false;
    else if (ext == FileFormat::Safetensors || static_cast<char>(magic[8]) == '{')
        safetensors = true;
    else
        return prefixed(
            Error{ErrorCode::BadInput, "it is neither a .npy file (no \\x93NUMPY magic) nor a safetensors file"});
    auto maps = build(std::move(mapping), safetensors, options);
    if (!maps) return prefixed(maps.error());
    return maps;
}

Result<AttentionMaps> AttentionMaps::fromBytes(std::span<const std::byte> bytes, bool safetensors,
                                               const AttentionOpenOptions& options) {
    auto mapping = std::make_shared<Mapping>();
    mapping->memory = bytes.data();
    mapping->size = bytes.size();
    return build(std::move(mapping), safetensors, options);
}

Result<AttentionMaps> AttentionMaps::build(std::shared_ptr<Mapping> mapping, bool safetensors,
                                           const AttentionOpenOptions& options) {
    const std::uint64_t size = mapping->size;
    std::byte prefixBytes[detail::kPrefixBytes] = {};
    const auto prefixSize = static_cast<std::size_t>(std::min<std::uint64_t>(size, detail::kPrefixBytes));
    if (auto ok = mapping->read(0, prefixBytes, prefixSize); !ok) return std::unexpected(ok.error());
    const std::span<const std::byte> prefix(prefixBytes, prefixSize);
    constexpr std::uint64_t kNoBudget = std::numeric_limits<std::uint64_t>::max();

    // The header, read whole: its end was checked against the file's size (and, for
    // safetensors, the format's 100 MB limit) before anything is allocated.
    const auto end = safetensors ? detail::safetensorsHeaderEnd(prefix, size) : detail::npyHeaderEnd(prefix, size);
    if (!end) return std::unexpected(end.error());
    std::vector<std::byte> header;
    try {
        header.resize(static_cast<std::size_t>(*end));
    } catch (const std::bad_alloc&) {
        return fail(ErrorCode::TooLarge, fmt::format("its header of {} does not fit in memory",
                                                     humanBytes(static_cast<std::uint64_t>(*end))));
    }
    // Read a MiB at a time, telling the caller how far (a 100 MB header on a slow disk takes a
    // while) and stopping when asked to.
    using Stage = AttentionOpenProgress::Stage;
    const auto goOn = [&](Stage stage, std::uint64_t done, std::uint64_t total) {
        return !interruptRequested() && !(options.cancelled && options.cancelled()) &&
               !(options.progress && !options.progress(AttentionOpenProgress{stage, done, total}));
    };
    const auto cancelled = [] { return fail(ErrorCode::Cancelled, "opening the attention maps was cancelled"); };
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    if (!goOn(Stage::ReadingHeader, 0, header.size())) return cancelled();
    for (std::size_t at = 0; at < header.size(); at += kChunk) {
        const std::size_t n = std::min(kChunk, header.size() - at);
        if (auto ok = mapping->read(at, header.data() + at, n); !ok) return std::unexpected(ok.error());
        if (!goOn(Stage::ReadingHeader, at + n, header.size())) return cancelled();
    }

    std::vector<detail::TensorPlan> plans;
    std::map<std::string, std::string> metadata;
    if (safetensors) {
        // The __metadata__ entries the maps use: their tokens and the slopes they were computed with.
        constexpr std::string_view kMetadataKeys[] = {kTokensMetadataKey, kTokenIdsMetadataKey, kSlopesMetadataKey};
        // The parser counts the JSON's bytes; the stage counts the header's (with its length field).
        const ProgressFn parsed = [&](std::uint64_t done, std::uint64_t total) {
            const std::uint64_t before = header.size() - total;
            return !options.progress ||
                   options.progress(AttentionOpenProgress{Stage::ParsingHeader, before + done, header.size()});
        };
        if (!goOn(Stage::ParsingHeader, 0, header.size())) return cancelled();
        auto all = detail::planSafetensorsAll(header, size, options.cancelled, &metadata, kMetadataKeys, parsed);
        if (!all) return std::unexpected(all.error());
        plans = std::move(*all);
        if (!options.tensor.empty()) {
            const auto it = std::find_if(plans.begin(), plans.end(),
                                         [&](const detail::TensorPlan& p) { return p.name == options.tensor; });
            if (it == plans.end()) {
                std::string names;
                for (std::size_t i = 0; i < plans.size() && i < 20; ++i)
                    names += (i ? ", '" : "'") + detail::excerpt(plans[i].name) + "'";
                if (plans.size() > 20) names += fmt::format(", and {} more", plans.size() - 20);
                return fail(ErrorCode::InvalidArgument, fmt::format("the file has no tensor named '{}'; it holds {}",
                                                                    detail::excerpt(options.tensor), names));
            }
            plans = {std::move(*it)};
        }
    } else {
        if (!options.tensor.empty())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("a tensor name ('{}') chooses a layer of a .safetensors file, but this is a .npy "
                                    "array, one unnamed tensor; leave the tensor name out (choose a layer by number "
                                    "instead)",
                                    detail::excerpt(options.tensor)));
        auto plan = detail::planNpy(header, size, kNoBudget);
        if (!plan) return std::unexpected(plan.error());
        plans.push_back(std::move(*plan));
    }
    if (!goOn(Stage::ParsingHeader, header.size(), header.size())) return cancelled();
    header = {};

    AttentionMaps maps;
    maps.m_fileBytes = size;
    const detail::TensorPlan& first = plans.front();
    maps.m_dtype = first.dtype;
    maps.m_byteSwap = first.byteSwap;
    const std::size_t rank = first.shape.size();
    // One tensor (an .npy array, or a safetensors file holding one) may stack layers and batches;
    // several safetensors tensors are one layer each.
    // A single safetensors tensor is one layer when it was chosen by name or its name carries
    // a layer number (HF's per-layer (B, H, Q, K)); otherwise it stacks layers like an array.
    const bool stacked =
        plans.size() == 1 && !(safetensors && (!options.tensor.empty() || layerNumberFromName(first.name)));
    const char* accepted = stacked ? "(H, Q, K), (L, H, Q, K) or (B, L, H, Q, K)"
                                   : "(H, Q, K) or (B, H, Q, K) for every tensor, one tensor per layer";
    if ((stacked && (rank < 3 || rank > 5)) || (!stacked && rank != 3 && rank != 4))
        return badLayout(fmt::format("shape {} has {} dimensions; attention maps are {}",
                                     detail::excerpt(shapeString(first.shape)), rank, accepted));
    for (const auto& p : plans) {
        if (p.shape != first.shape || p.dtype != first.dtype)
            return badLayout(fmt::format(
                "tensor '{}' is {} {} but tensor '{}' is {} {}; every layer's tensor must have "
                "the same shape and dtype (open one with --tensor NAME)",
                detail::excerpt(p.name), detail::excerpt(shapeString(p.shape)), dtypeName(p.dtype),
                detail::excerpt(first.name), detail::excerpt(shapeString(first.shape)), dtypeName(first.dtype)));
    }
    for (const auto d : first.shape)
        if (d <= 0) return badLayout(fmt::format("shape {} has an empty dimension", shapeString(first.shape)));

    const auto dim = [&](std::size_t fromEnd) { return first.shape[rank - fromEnd]; };
    const std::int64_t heads = dim(3), queries = dim(2), keys = dim(1);
    std::int64_t layers = stacked ? (rank >= 4 ? dim(4) : 1) : static_cast<std::int64_t>(plans.size());
    std::int64_t batches = stacked ? (rank == 5 ? first.shape[0] : 1) : (rank == 4 ? first.shape[0] : 1);
    // The message names the limit passed: a file of 4097 one-layer tensors is refused for its
    // layers, not for the (small) shape of each.
    const auto beyond = [&](std::string what) {
        return fail(ErrorCode::TooLarge,
                    fmt::format("attention maps: {}; the limits are {} layers, {} heads and {} queries or keys",
                                std::move(what), kMaxAttentionLayers, kMaxAttentionHeads, kMaxAttentionLength));
    };
    if (layers > kMaxAttentionLayers)
        return beyond(stacked
                          ? fmt::format("shape {} holds {} layers", detail::excerpt(shapeString(first.shape)), layers)
                          : fmt::format("the file holds {} layer tensors", layers));
    if (heads > kMaxAttentionHeads)
        return beyond(fmt::format("shape {} has {} heads", detail::excerpt(shapeString(first.shape)), heads));
    if (queries > kMaxAttentionLength || keys > kMaxAttentionLength)
        return beyond(fmt::format("shape {} has {} queries and {} keys", detail::excerpt(shapeString(first.shape)),
                                  queries, keys));
    if (options.batch < 0 || options.batch >= batches)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("batch element {} does not exist: the file holds {} (choose 0 to {})", options.batch,
                                batches, batches - 1));

    maps.m_heads = static_cast<int>(heads);
    maps.m_queries = queries;
    maps.m_keys = keys;
    maps.m_batches = static_cast<int>(batches);
    maps.m_batch = options.batch;
    const std::uint64_t block = static_cast<std::uint64_t>(heads * queries * keys) * dtypeSize(first.dtype);
    maps.m_layoutText =
        fmt::format("{} {} ({})", shapeString(first.shape), dtypeName(first.dtype),
                    safetensors ? fmt::format("safetensors, {} tensor{}", plans.size(), plans.size() == 1 ? "" : "s")
                                : std::string(".npy"));

    if (stacked) {
        for (std::int64_t l = 0; l < layers; ++l) {
            maps.m_layers.push_back(
                {first.dataOffset + (static_cast<std::uint64_t>(options.batch) * static_cast<std::uint64_t>(layers) +
                                     static_cast<std::uint64_t>(l)) *
                                        block});
            maps.m_info.push_back(
                {first.name.empty() || !safetensors ? std::string() : first.name, static_cast<int>(l)});
        }
    } else {
        // Order the layers by the number in their names; file order when any name has none.
        std::vector<std::pair<std::optional<int>, const detail::TensorPlan*>> named;
        bool allNumbered = true;
        for (const auto& p : plans) {
            named.emplace_back(layerNumberFromName(p.name), &p);
            allNumbered = allNumbered && named.back().first.has_value();
        }
        if (allNumbered) {
            std::stable_sort(named.begin(), named.end(),
                             [](const auto& a, const auto& b) { return *a.first < *b.first; });
            for (std::size_t i = 1; i < named.size(); ++i)
                if (*named[i].first == *named[i - 1].first)
                    return badLayout(
                        fmt::format("tensors '{}' and '{}' both carry layer number {}; open one of them with "
                                    "--tensor NAME",
                                    detail::excerpt(named[i - 1].second->name), detail::excerpt(named[i].second->name),
                                    *named[i].first));
        } else {
            std::stable_sort(named.begin(), named.end(),
                             [](const auto& a, const auto& b) { return a.second->dataOffset < b.second->dataOffset; });
        }
        for (std::size_t i = 0; i < named.size(); ++i) {
            maps.m_layers.push_back({named[i].second->dataOffset + static_cast<std::uint64_t>(options.batch) * block});
            maps.m_info.push_back({named[i].second->name, allNumbered ? *named[i].first : static_cast<int>(i)});
        }
    }
    maps.readTokens(metadata);
    maps.readSlopes(metadata);
    maps.m_mapping = std::move(mapping);
    if (auto ok = maps.detect(options); !ok) return std::unexpected(ok.error());
    maps.m_mapping->advise(0, 0, POSIX_FADV_SEQUENTIAL);  // from here rows are read in order, layer by layer
    return maps;
}

void AttentionMaps::readTokens(const std::map<std::string, std::string>& metadata) {
    const auto it = metadata.find(std::string(kTokensMetadataKey));
    if (it == metadata.end()) return;
    const auto ignored = [&](const std::string& why) {
        m_tokens.clear();
        m_tokenIds.clear();
        m_tokensNote = fmt::format("the file's tokens are not shown: {}", why);
    };
    const auto list = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (list.is_discarded() || !list.is_array())
        return ignored(fmt::format("its __metadata__ \"{}\" is not a JSON list of strings", kTokensMetadataKey));
    for (const auto& token : list) {
        if (!token.is_string())
            return ignored(
                fmt::format("its __metadata__ \"{}\" holds something other than strings", kTokensMetadataKey));
        m_tokens.push_back(token.get<std::string>());
    }
    if (static_cast<std::int64_t>(m_tokens.size()) != m_keys)
        return ignored(fmt::format("it names {} tokens for {} keys", m_tokens.size(), m_keys));
    if (const auto ids = metadata.find(std::string(kTokenIdsMetadataKey)); ids != metadata.end()) {
        const auto idList = nlohmann::json::parse(ids->second, nullptr, false);
        if (idList.is_discarded() || !idList.is_array() || idList.size() != m_tokens.size())
            return ignored(fmt::format("its \"{}\" is not a list of {} ids", kTokenIdsMetadataKey, m_tokens.size()));
        for (const auto& id : idList) {
            if (!id.is_number_integer())
                return ignored(
                    fmt::format("its \"{}\" holds something other than whole numbers", kTokenIdsMetadataKey));
            m_tokenIds.push_back(id.get<std::int64_t>());
        }
    }
}

void AttentionMaps::readSlopes(const std::map<std::string, std::string>& metadata) {
    const auto it = metadata.find(std::string(kSlopesMetadataKey));
    if (it == metadata.end()) return;
    const auto ignored = [&](const std::string& why) {
        m_fileSlopes.clear();
        m_fileSlopesNote = fmt::format("the file's slopes are not used: {}", why);
    };
    const auto list = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (list.is_discarded() || !list.is_array())
        return ignored(fmt::format("its __metadata__ \"{}\" is not a JSON list of numbers", kSlopesMetadataKey));
    for (const auto& slope : list) {
        if (!slope.is_number() || !std::isfinite(slope.get<double>()) || slope.get<double>() <= 0)
            return ignored(
                fmt::format("its __metadata__ \"{}\" holds something other than positive numbers", kSlopesMetadataKey));
        m_fileSlopes.push_back(slope.get<double>());
    }
    if (static_cast<int>(m_fileSlopes.size()) != m_heads)
        return ignored(fmt::format("it names {} slopes for {} heads", m_fileSlopes.size(), m_heads));
}

const std::string* AttentionMaps::keyToken(std::int64_t key) const {
    if (key < 0 || key >= static_cast<std::int64_t>(m_tokens.size())) return nullptr;
    return &m_tokens[static_cast<std::size_t>(key)];
}

const std::string* AttentionMaps::queryToken(std::int64_t query) const {
    if (query < 0 || query >= m_queries) return nullptr;
    return keyToken(query + m_keys - m_queries);
}

std::optional<std::int64_t> AttentionMaps::keyTokenId(std::int64_t key) const {
    if (key < 0 || key >= static_cast<std::int64_t>(m_tokenIds.size())) return std::nullopt;
    return m_tokenIds[static_cast<std::size_t>(key)];
}

Result<int> AttentionMaps::layerIndexOf(std::int64_t number) const {
    std::string numbers;
    for (std::size_t l = 0; l < m_info.size(); ++l) {
        if (static_cast<std::int64_t>(m_info[l].number) == number) return static_cast<int>(l);
        if (l < 30) numbers += fmt::format("{}{}", l ? ", " : "", m_info[l].number);
    }
    return fail(ErrorCode::InvalidArgument, fmt::format("--layer: the file has no layer {}; its layers are {}{}",
                                                        number, numbers, m_info.size() > 30 ? ", ..." : ""));
}

std::uint64_t AttentionMaps::mapBytes() const {
    return m_layers.size() * static_cast<std::uint64_t>(m_heads) * static_cast<std::uint64_t>(m_queries) *
           static_cast<std::uint64_t>(m_keys) * dtypeSize(m_dtype);
}

Result<void> AttentionMaps::checkRowIndex(int layer, int head, std::int64_t q, std::size_t size) const {
    if (layer < 0 || layer >= layers() || head < 0 || head >= m_heads || q < 0 || q >= m_queries ||
        size != static_cast<std::size_t>(m_keys))
        return fail(ErrorCode::Internal, "AttentionMaps: row out of range");
    return {};
}

std::uint64_t AttentionMaps::rowOffset(int layer, int head, std::int64_t q) const {
    return m_layers[static_cast<std::size_t>(layer)].offset +
           ((static_cast<std::uint64_t>(head) * static_cast<std::uint64_t>(m_queries) + static_cast<std::uint64_t>(q)) *
            static_cast<std::uint64_t>(m_keys)) *
               dtypeSize(m_dtype);
}

namespace {

// The bytes of one row, read from the file; one buffer per thread, reused.
std::byte* rowBuffer(std::size_t bytes) {
    thread_local std::vector<std::byte> buffer;
    if (buffer.size() < bytes) buffer.resize(bytes);
    return buffer.data();
}

}  // namespace

Result<const std::byte*> AttentionMaps::readRow(int layer, int head, std::int64_t q) const {
    const std::size_t bytes = static_cast<std::size_t>(m_keys) * dtypeSize(m_dtype);
    std::byte* row = rowBuffer(bytes);
    if (auto ok = m_mapping->read(rowOffset(layer, head, q), row, bytes); !ok) return std::unexpected(ok.error());
    return row;
}

Result<void> AttentionMaps::decode(int layer, int head, std::int64_t q, std::span<double> out) const {
    if (auto ok = checkRowIndex(layer, head, q, out.size()); !ok) return ok;
    const std::size_t es = dtypeSize(m_dtype);
    const std::size_t n = out.size();
    if (m_dtype == DType::F64 && !m_byteSwap)  // read straight into the caller's doubles
        return m_mapping->read(rowOffset(layer, head, q), reinterpret_cast<std::byte*>(out.data()), n * 8);
    const auto read = readRow(layer, head, q);
    if (!read) return std::unexpected(read.error());
    const std::byte* row = *read;
    if (m_byteSwap) {
        std::byte element[8];
        for (std::size_t k = 0; k < n; ++k) {
            std::memcpy(element, row + k * es, es);
            std::reverse(element, element + es);
            out[k] = loadAs(m_dtype, element);
        }
        return {};
    }
    switch (m_dtype) {
        case DType::F32:
            for (std::size_t k = 0; k < n; ++k) {
                float v;
                std::memcpy(&v, row + k * 4, 4);
                out[k] = v;
            }
            break;
        case DType::F64:
            std::memcpy(out.data(), row, n * 8);
            break;  // (not reached: read above)
        case DType::BF16:
            for (std::size_t k = 0; k < n; ++k) {
                std::uint16_t bits;
                std::memcpy(&bits, row + k * 2, 2);
                out[k] = std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
            }
            break;
        case DType::F16:
            for (std::size_t k = 0; k < n; ++k) {
                std::uint16_t bits;
                std::memcpy(&bits, row + k * 2, 2);
                out[k] = halfBitsToDouble(bits);
            }
            break;
    }
    return {};
}

Result<void> AttentionMaps::probabilities(int layer, int head, std::int64_t q, std::span<double> out) const {
    // Stored f32 probabilities (the common case) are widened, checked and summed in one pass.
    const bool fused = m_values == AttentionValues::Probabilities && m_dtype == DType::F32 && !m_byteSwap;
    if (auto ok = fused ? checkRowIndex(layer, head, q, out.size()) : decode(layer, head, q, out); !ok) return ok;
    const auto where = [&](std::size_t k) {
        return fmt::format("layer {} head {} query row {} key {}", m_info[static_cast<std::size_t>(layer)].number, head,
                           q, k);
    };
    if (m_values == AttentionValues::Scores) {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < out.size(); ++k) {
            if (std::isnan(out[k]) || out[k] == std::numeric_limits<double>::infinity())
                return fail(ErrorCode::BadInput,
                            fmt::format("attention maps: {} is {}; scores must be finite or -inf", where(k), out[k]));
            top = std::max(top, out[k]);
        }
        if (top == -std::numeric_limits<double>::infinity()) {  // every key masked
            std::fill(out.begin(), out.end(), 0.0);
            return {};
        }
        double sum = 0;
        for (double& v : out) sum += (v = std::exp(v - top));
        for (double& v : out) v /= sum;
        return {};
    }
    const double tolerance = sumTolerance(m_dtype);
    const std::byte* stored = nullptr;
    if (fused) {
        const auto read = readRow(layer, head, q);
        if (!read) return std::unexpected(read.error());
        stored = *read;
    }
    const detail::RowCheck check = fused ? detail::widenCheckF32(stored, out.data(), out.size(), tolerance)
                                         : detail::checkRow(out.data(), out.size(), tolerance);
    if (check.outside)  // the offending key is looked for only when there is one
        for (std::size_t k = 0; k < out.size(); ++k)
            if (!(out[k] >= -tolerance && out[k] <= 1 + tolerance))
                return fail(ErrorCode::BadInput,
                            fmt::format("attention maps: {} is {}, not a probability; if the file holds pre-softmax "
                                        "scores, say so (--values scores)",
                                        where(k), out[k]));
    const double sum = check.sum;
    if (sum == 0) return {};  // a padding query or a row with every key masked: the caller skips it
    if (std::abs(sum - 1) > tolerance)
        return fail(
            ErrorCode::BadInput,
            fmt::format("attention maps: layer {} head {} query row {} sums to {:.6g}, not 1; if the file holds "
                        "pre-softmax scores, say so (--values scores)",
                        m_info[static_cast<std::size_t>(layer)].number, head, q, sum));
    detail::normaliseRow(out.data(), out.size(), sum);  // stored rounding: renormalise
    return {};
}

Result<void> AttentionMaps::detect(const AttentionOpenOptions& options) {
    // A sample of rows spread over layers, heads and queries decides; the full pass of a fit or
    // a view checks every row it reads.
    constexpr int kSamples = 64;
    std::vector<double> row(static_cast<std::size_t>(m_keys));
    bool negative = false, aboveOne = false, minusInf = false, sumsOff = false;
    std::string offRow;
    const double tolerance = sumTolerance(m_dtype);
    struct Sample {
        int layer, head;
        std::int64_t q;
    };
    std::vector<Sample> samples;
    for (int s = 0; s < kSamples; ++s)
        samples.push_back({s % layers(), (s * 7) % m_heads,
                           m_queries == 1 ? 0 : (static_cast<std::int64_t>(s) * (m_queries - 1)) / (kSamples - 1)});
    // Each sampled row is read twice (its values, then its mass after the query): the progress
    // counts both passes.
    const std::uint64_t checks = 2 * samples.size();
    std::uint64_t checked = 0;
    const auto goOn = [&] {
        return !interruptRequested() && !(options.cancelled && options.cancelled()) &&
               !(options.progress &&
                 !options.progress(AttentionOpenProgress{AttentionOpenProgress::Stage::SamplingRows, checked, checks}));
    };
    const auto cancelled = [] { return fail(ErrorCode::Cancelled, "opening the attention maps was cancelled"); };
    if (!goOn()) return cancelled();
    for (const auto& s : samples) {
        if (auto ok = decode(s.layer, s.head, s.q, row); !ok) return ok;
        ++checked;
        if (!goOn()) return cancelled();
        double sum = 0;
        for (std::size_t k = 0; k < row.size(); ++k) {
            const double v = row[k];
            if (std::isnan(v))
                return fail(ErrorCode::BadInput,
                            fmt::format("attention maps: layer {} head {} query row {} key {} is NaN; the maps are "
                                        "damaged or were saved from a diverged model",
                                        m_info[static_cast<std::size_t>(s.layer)].number, s.head, s.q, k));
            if (v == -std::numeric_limits<double>::infinity())
                minusInf = true;
            else if (v < -tolerance)
                negative = true;
            else if (v > 1 + tolerance)
                aboveOne = true;
            sum += v;
        }
        if (sum != 0 && std::abs(sum - 1) > tolerance && offRow.empty()) {
            sumsOff = true;
            offRow = fmt::format("layer {} head {} row {} sums to {:.6g}",
                                 m_info[static_cast<std::size_t>(s.layer)].number, s.head, s.q, sum);
        }
    }
    if (options.values) {
        m_values = *options.values;
        m_valuesDetected = false;
        m_valuesReason = "as given";
    } else if (minusInf || negative || aboveOne) {
        m_values = AttentionValues::Scores;
        m_valuesReason = fmt::format("{} in sampled rows: read as pre-softmax scores", minusInf   ? "-inf entries"
                                                                                       : negative ? "negative values"
                                                                                                  : "values above 1");
    } else if (sumsOff) {
        m_values = AttentionValues::Scores;
        m_valuesReason = fmt::format("values in [0, 1] but {}: read as pre-softmax scores", offRow);
    } else {
        m_values = AttentionValues::Probabilities;
        m_valuesReason = fmt::format("every sampled row sums to 1 ({} rows)", kSamples);
    }

    // Causal when the sampled rows put (next to) no mass after their query's position.
    m_causal = true;
    for (const auto& s : samples) {
        if (!goOn()) return cancelled();
        ++checked;
        // A row that fails its checks here fails them again, with its message, in the full pass.
        if (!probabilities(s.layer, s.head, s.q, row)) continue;
        const std::int64_t position = s.q + m_keys - m_queries;
        double after = 0;
        for (std::int64_t k = std::max<std::int64_t>(position + 1, 0); k < m_keys; ++k)
            after += row[static_cast<std::size_t>(k)];
        if (after > 1e-6) {
            m_causal = false;
            break;
        }
    }
    checked = checks;
    if (!goOn()) return cancelled();
    return {};
}

void AttentionMaps::release(int layer, int head) const {
    if (!m_mapping || !m_mapping->file || layer < 0 || layer >= layers() || head >= m_heads) return;
    // Rows are read into this process's buffers, so its resident size stays bounded anyway; this
    // gives the kernel's cached pages of the block back too, for a pass over a file larger than memory.
    const std::uint64_t headBytes =
        static_cast<std::uint64_t>(m_queries) * static_cast<std::uint64_t>(m_keys) * dtypeSize(m_dtype);
    const std::uint64_t start = m_layers[static_cast<std::size_t>(layer)].offset +
                                (head < 0 ? 0 : static_cast<std::uint64_t>(head) * headBytes);
    const std::uint64_t bytes = head < 0 ? headBytes * static_cast<std::uint64_t>(m_heads) : headBytes;
    m_mapping->advise(start, bytes, POSIX_FADV_DONTNEED);
}

}  // namespace alibi
