// The .safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON naming each tensor's dtype, shape and byte range, then the raw little-endian data.
// Writing produces one tensor plus __metadata__ (every parameter as strings); reading validates
// the whole header as strictly as the reference implementation (huggingface/safetensors
// `read_metadata` and `Metadata::validate`): the header size, UTF-8 JSON starting with '{',
// known dtypes, and byte ranges that tile the data area exactly (sorted by offset, each tensor
// starting where the previous one ended, the last ending at the end of the file: no gap, no
// overlap, no trailing byte), all before selecting and allocating one tensor.
#include <alibi/io/tensor_io.hpp>

#include "read_limits.hpp"
#include "tensor_io_detail.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace alibi {
namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;  // MAX_HEADER_SIZE of the reference implementation

// Sizes in bits of every dtype the safetensors specification names (the sub-byte F4 and F6
// ones included), so a file's other tensors are checked even when they are not of a dtype we
// load; an unknown dtype makes the header invalid, as in the reference implementation.
std::optional<std::uint64_t> itemBits(std::string_view dtype) {
    if (dtype == "F4") return 4;
    if (dtype == "F6_E2M3" || dtype == "F6_E3M2") return 6;
    if (dtype == "BOOL" || dtype == "U8" || dtype == "I8" || dtype == "F8_E5M2" || dtype == "F8_E4M3" ||
        dtype == "F8_E8M0")
        return 8;
    if (dtype == "I16" || dtype == "U16" || dtype == "F16" || dtype == "BF16") return 16;
    if (dtype == "I32" || dtype == "U32" || dtype == "F32") return 32;
    if (dtype == "I64" || dtype == "U64" || dtype == "F64" || dtype == "C64") return 64;
    return std::nullopt;
}

std::optional<DType> loadableDType(std::string_view dtype) {
    if (dtype == "F32") return DType::F32;
    if (dtype == "F64") return DType::F64;
    if (dtype == "F16") return DType::F16;
    if (dtype == "BF16") return DType::BF16;
    return std::nullopt;
}

// A tensor name as a message quotes it: short, escaped, in quotes.
std::string quotedName(std::string_view name) { return "'" + detail::excerpt(name) + "'"; }

std::unexpected<Error> bad(std::string message) {
    return fail(ErrorCode::BadInput, "safetensors header: " + std::move(message));
}

struct Entry {
    std::string name;
    std::string dtype;
    Shape shape;
    std::uint64_t begin = 0, end = 0;
};

}  // namespace

namespace detail {

std::string safetensorsHeader(const Shape& shape, DType dtype, const std::string& tensorName,
                              const std::map<std::string, std::string>& metadata) {
    // ordered_json keeps __metadata__ first, as the reference writer does.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        nlohmann::ordered_json meta = nlohmann::ordered_json::object();
        for (const auto& [key, value] : metadata) meta[key] = value;
        header["__metadata__"] = std::move(meta);
    }
    const std::uint64_t bytes = elementCount(shape).value_or(0) * dtypeSize(dtype);
    header[tensorName] = {{"dtype", std::string(safetensorsDTypeName(dtype))},
                          {"shape", shape},
                          {"data_offsets", {std::uint64_t{0}, bytes}}};
    // Invalid UTF-8 in a metadata value is replaced rather than thrown on.
    std::string text = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    // The data that follows starts 8-byte aligned: pad the JSON with spaces.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int b = 0; b < 8; ++b) out[b] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * b)) & 0xff);
    return out + text;
}

Result<std::uint64_t> safetensorsHeaderEnd(std::span<const std::byte> prefix, std::uint64_t fileSize) {
    if (fileSize < 8 || prefix.size() < 8)
        return fail(ErrorCode::BadInput,
                    fmt::format("not a safetensors file: {} bytes, shorter than the 8-byte header length", fileSize));
    std::uint64_t n = 0;
    for (int b = 0; b < 8; ++b) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(prefix[b])) << (8 * b);
    if (n > fileSize - 8)
        return fail(ErrorCode::BadInput,
                    fmt::format("safetensors header length {} goes beyond the end of the file ({} bytes): the file "
                                "is truncated or not a safetensors file",
                                n, fileSize));
    if (n > kMaxHeader)
        return fail(ErrorCode::TooLarge, fmt::format("safetensors header of {} bytes is above the 100,000,000-byte "
                                                     "limit of the format; the file is damaged",
                                                     n));
    return 8 + n;
}

namespace {

// A header validated whole: every tensor's entry (in file order), the metadata, and where the
// data area starts.
struct ParsedHeader {
    std::vector<Entry> entries;
    std::map<std::string, std::string> metadata;
    std::uint64_t dataStart = 0;
};

Result<ParsedHeader> parseHeader(std::span<const std::byte> header, std::uint64_t fileSize) {
    const auto end = safetensorsHeaderEnd(header, fileSize);
    if (!end) return std::unexpected(end.error());
    if (header.size() < *end) return fail(ErrorCode::Internal, "planSafetensors: the header bytes were not all read");
    const std::string_view text(reinterpret_cast<const char*>(header.data()) + 8, static_cast<std::size_t>(*end - 8));
    if (text.empty() || text.front() != '{')
        return bad("it does not start with '{' (the JSON object); the file is damaged or not safetensors");
    if (jsonDepth(text) > kMaxJsonDepth)
        return bad(fmt::format("the JSON is nested more than {} levels deep (a valid header has 3); the file is "
                               "damaged",
                               kMaxJsonDepth));

    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // The parser's message quotes the token it stopped at, which can be huge: cut it.
        return bad(fmt::format("invalid JSON ({})", excerpt(e.what(), 160)));
    }
    if (!doc.is_object()) return bad("the JSON is not an object");

    const std::uint64_t dataSize = fileSize - *end;
    using detail::excerpt;
    std::map<std::string, std::string> metadata;
    std::vector<Entry> entries;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        const std::string& key = it.key();
        const auto& value = it.value();
        if (key == "__metadata__") {
            if (!value.is_object()) return bad("__metadata__ must be an object mapping strings to strings");
            for (auto m = value.begin(); m != value.end(); ++m) {
                if (!m.value().is_string())
                    return bad(fmt::format("__metadata__ entry {} is {}, not a string (safetensors metadata maps "
                                           "strings to strings)",
                                           quotedName(m.key()), m.value().type_name()));
                metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string name = quotedName(key);
        if (!value.is_object())
            return bad(fmt::format("tensor {} must be an object with dtype, shape and data_offsets", name));
        Entry e;
        e.name = key;
        const auto dtype = value.find("dtype");
        if (dtype == value.end() || !dtype->is_string())
            return bad(fmt::format("tensor {} has no \"dtype\" string", name));
        e.dtype = dtype->get<std::string>();
        const auto bits = itemBits(e.dtype);
        if (!bits)
            return bad(fmt::format("tensor {} has dtype \"{}\", which the safetensors format does not define; the "
                                   "file is damaged or from a newer version of the format",
                                   name, excerpt(e.dtype)));
        const auto shape = value.find("shape");
        if (shape == value.end() || !shape->is_array())
            return bad(fmt::format("tensor {} has no \"shape\" list", name));
        if (shape->size() > kMaxDims)
            return bad(fmt::format("tensor {} has {} dimensions, above the limit of {}; the file is damaged", name,
                                   shape->size(), kMaxDims));
        for (const auto& d : *shape) {
            if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<std::uint64_t>() >
                                                                         static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
                return bad(fmt::format("tensor {}: \"shape\" must list non-negative integers, got {}", name,
                                       excerpt(d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
            const auto v = d.get<std::int64_t>();
            if (v < 0) return bad(fmt::format("tensor {}: \"shape\" has a negative dimension ({})", name, v));
            e.shape.push_back(v);
        }
        const auto offsets = value.find("data_offsets");
        if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
            !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
            return bad(fmt::format("tensor {} needs \"data_offsets\": [begin, end] with two non-negative integers",
                                   name));
        e.begin = (*offsets)[0].get<std::uint64_t>();
        e.end = (*offsets)[1].get<std::uint64_t>();
        if (e.begin > e.end)
            return bad(fmt::format("tensor {}: data_offsets [{}, {}] end before they begin; the file is damaged", name,
                                   e.begin, e.end));
        if (e.end > dataSize)
            return bad(fmt::format("tensor {}: data_offsets [{}, {}] fall outside the {} bytes of data after the "
                                   "header; the file is truncated or damaged",
                                   name, e.begin, e.end, dataSize));
        const auto count = elementCount(e.shape);
        if (!count || *count > std::numeric_limits<std::uint64_t>::max() / *bits)
            return fail(ErrorCode::TooLarge, fmt::format("safetensors header: tensor {} declares shape {}, more "
                                                         "elements than can be addressed; the file is damaged",
                                                         name, excerpt(shapeString(e.shape))));
        if (*count * *bits % 8 != 0)
            return bad(fmt::format("tensor {}: {} elements of {} do not fill a whole number of bytes", name, *count,
                                   e.dtype));
        if (e.end - e.begin != *count * *bits / 8)
            return bad(fmt::format("tensor {}: data_offsets [{}, {}] span {} bytes, but shape {} {} needs {}", name,
                                   e.begin, e.end, e.end - e.begin, excerpt(shapeString(e.shape)), e.dtype,
                                   *count * *bits / 8));
        entries.push_back(std::move(e));
    }
    if (entries.empty()) return bad("the file holds no tensor");

    // The byte ranges, in order, must tile the data area exactly: each tensor starts where the
    // previous one ended (a gap is unexplained data, an overlap two tensors sharing bytes), and
    // the last one ends at the end of the file (trailing bytes mean a wrong header length).
    std::vector<const Entry*> sorted;
    for (const auto& e : entries) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t covered = 0;
    const Entry* previous = nullptr;
    for (const Entry* e : sorted) {
        if (e->begin > covered)
            return bad(fmt::format("{} unexplained bytes lie before tensor {} (data_offsets [{}, {}]; {}): the "
                                   "tensors must tile the data area exactly; the file is damaged",
                                   e->begin - covered, quotedName(e->name), e->begin, e->end,
                                   previous ? fmt::format("the tensor before it, {}, ends at {}", quotedName(previous->name),
                                                          covered)
                                            : std::string("the data area starts at 0")));
        if (e->begin < covered)
            return bad(fmt::format("tensors {} and {} overlap (data_offsets [{}, {}] and [{}, {}]); the file is "
                                   "damaged",
                                   quotedName(previous->name), quotedName(e->name), previous->begin, previous->end, e->begin,
                                   e->end));
        covered = e->end;
        previous = e;
    }
    if (covered != dataSize)
        return bad(fmt::format("{} bytes follow the last tensor's data (the tensors cover {} of the {} bytes after "
                               "the header): the header length or the offsets are wrong; the file is damaged",
                               dataSize - covered, covered, dataSize));

    return ParsedHeader{std::move(entries), std::move(metadata), *end};
}

}  // namespace

Result<std::vector<TensorPlan>> planSafetensorsAll(std::span<const std::byte> header, std::uint64_t fileSize) {
    auto parsed = parseHeader(header, fileSize);
    if (!parsed) return std::unexpected(parsed.error());
    std::vector<TensorPlan> plans;
    for (const Entry& e : parsed->entries) {
        const auto dtype = loadableDType(e.dtype);
        if (!dtype)
            return bad(fmt::format("tensor {} has dtype \"{}\", which is not supported (supported: F64, F32, F16, "
                                   "BF16); convert it, e.g. t.to(torch.float32)",
                                   quotedName(e.name), e.dtype));
        TensorPlan plan;
        plan.shape = e.shape;
        plan.dtype = *dtype;
        plan.dataOffset = parsed->dataStart + e.begin;
        plan.dataBytes = e.end - e.begin;
        plan.name = e.name;
        plan.metadata = parsed->metadata;
        plans.push_back(std::move(plan));
    }
    return plans;
}

Result<TensorPlan> planSafetensors(std::span<const std::byte> header, std::uint64_t fileSize,
                                   const std::string& name, std::uint64_t budget) {
    auto parsed = parseHeader(header, fileSize);
    if (!parsed) return std::unexpected(parsed.error());
    const std::vector<Entry>& entries = parsed->entries;
    std::map<std::string, std::string>& metadata = parsed->metadata;
    const std::uint64_t* end = &parsed->dataStart;

    // Choose the tensor.
    const auto names = [&] {
        std::string list;
        std::size_t shown = 0;
        for (const auto& e : entries) {
            if (shown == 20) {
                list += fmt::format(", and {} more", entries.size() - shown);
                break;
            }
            list += (shown++ ? ", " : "") + quotedName(e.name);
        }
        return list;
    };
    const Entry* chosen = nullptr;
    const auto find = [&](const std::string& n) -> const Entry* {
        for (const auto& e : entries)
            if (e.name == n) return &e;
        return nullptr;
    };
    if (!name.empty()) {
        chosen = find(name);
        if (!chosen)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("the safetensors file has no tensor named {}; it holds {}", quotedName(name), names()));
    } else if (entries.size() == 1) {
        chosen = &entries.front();
    } else if (!(chosen = find("bias")) && !(chosen = find("alibi"))) {
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the safetensors file holds {} tensors and none is named 'bias' or 'alibi'; choose "
                                "one by name (alibi diagnose --tensor NAME): {}",
                                entries.size(), names()));
    }

    const auto dtype = loadableDType(chosen->dtype);
    if (!dtype)
        return bad(fmt::format("tensor {} has dtype \"{}\", which is not supported (supported: F64, F32, F16, BF16); "
                               "convert it, e.g. t.to(torch.float32)",
                               quotedName(chosen->name), chosen->dtype));
    const std::uint64_t bytes = chosen->end - chosen->begin;
    if (auto ok = checkImportBudget(bytes, budget,
                                    fmt::format("safetensors tensor {} {} {}", quotedName(chosen->name),
                                                excerpt(shapeString(chosen->shape)), chosen->dtype));
        !ok)
        return std::unexpected(ok.error());

    TensorPlan plan;
    plan.shape = chosen->shape;
    plan.dtype = *dtype;
    plan.dataOffset = *end + chosen->begin;
    plan.dataBytes = bytes;
    plan.name = chosen->name;
    plan.metadata = std::move(metadata);
    return plan;
}

}  // namespace detail
}  // namespace alibi
