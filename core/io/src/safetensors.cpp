// The .safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON naming each tensor's dtype, shape and byte range, then the raw little-endian data.
// Writing produces one tensor plus __metadata__ (every parameter as strings); reading validates
// the whole header as strictly as the reference implementation (huggingface/safetensors
// `read_metadata` and `Metadata::validate`): the header size, UTF-8 JSON starting with '{',
// known dtypes, and byte ranges that tile the data area exactly (sorted by offset, each tensor
// starting where the previous one ended, the last ending at the end of the file: no gap, no
// overlap, no trailing byte), all before selecting and allocating one tensor.
#include <alibi/io/tensor_io.hpp>

#include <alibi/base/interrupt.hpp>
#include "counting_chars.hpp"
#include "read_limits.hpp"
#include "tensor_io_detail.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
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
std::string quotedName(std::string_view name) {
    return "'" + detail::excerpt(name) + "'";
}

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

std::string safetensorsHeader(std::span<const SafetensorsEntry> tensors,
                              const std::map<std::string, std::string>& metadata) {
    // ordered_json keeps __metadata__ first, as the reference writer does.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        nlohmann::ordered_json meta = nlohmann::ordered_json::object();
        for (const auto& [key, value] : metadata) meta[key] = value;
        header["__metadata__"] = std::move(meta);
    }
    std::uint64_t offset = 0;
    for (const SafetensorsEntry& t : tensors) {
        const std::uint64_t bytes = elementCount(t.shape).value_or(0) * dtypeSize(t.dtype);
        header[t.name] = {{"dtype", std::string(safetensorsDTypeName(t.dtype))},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    // Invalid UTF-8 in a metadata value is replaced rather than thrown on.
    std::string text = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    // The data that follows starts 8-byte aligned: pad the JSON with spaces.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int b = 0; b < 8; ++b) out[b] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * b)) & 0xff);
    return out + text;
}

std::string safetensorsHeader(const Shape& shape, DType dtype, const std::string& tensorName,
                              const std::map<std::string, std::string>& metadata) {
    const SafetensorsEntry only{tensorName, shape, dtype};
    return safetensorsHeader(std::span(&only, 1), metadata);
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

// A header validated whole: every tensor's entry (sorted by name, as a JSON object's keys), the
// metadata (when asked for), and where the data area starts.
struct ParsedHeader {
    std::vector<Entry> entries;
    std::map<std::string, std::string> metadata;
    std::uint64_t dataStart = 0;
};

// One element of a tensor's "shape" or "data_offsets" list as the JSON had it.
struct RawNumber {
    enum Kind : std::uint8_t { Unsigned, Negative, Float, Other } kind = Other;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double f = 0;
    const char* other = "";  // for Other: "null", "true", "a string", "a list", "an object"
    [[nodiscard]] std::string shown() const {
        switch (kind) {
            case Unsigned:
                return std::to_string(u);
            case Negative:
                return std::to_string(i);
            case Float:
                return fmt::format("{}", f);
            default:
                return other;
        }
    }
};

// A field of a tensor's entry: missing, a string, a list of scalars, or something else.
struct RawField {
    enum Kind : std::uint8_t { Missing, String, List, Other } kind = Missing;
    std::string text;
    std::vector<RawNumber> items;  // the first kMaxDims + 1 only
    std::size_t count = 0;         // every item
};

struct RawTensor {
    std::string name;
    bool object = true;
    RawField dtype, shape, offsets;
};

// Reads the header JSON event by event (nlohmann's SAX interface), never as a document: what it
// keeps is a few fields per tensor and, when asked for, the metadata once, so parsing costs what
// the header is (a document of a 99 MB header takes gigabytes; issue 25). The metadata's size is
// checked against its budget as it is read, before it is stored, and every few thousand events
// the user's Ctrl+C (interrupt.hpp) or the caller's cancel is honoured.
class HeaderReader {
public:
    using number_integer_t = nlohmann::json::number_integer_t;
    using number_unsigned_t = nlohmann::json::number_unsigned_t;
    using number_float_t = nlohmann::json::number_float_t;
    using string_t = nlohmann::json::string_t;
    using binary_t = nlohmann::json::binary_t;

    // `onlyKeys` (when not empty) keeps only those entries of the metadata. `position` is where
    // the parser is in the header's text (CountingChars leaves it there), reported with `parsed`
    // as it goes.
    HeaderReader(bool keepMetadata, const std::function<bool()>& cancelled, const ProgressFn& parsed,
                 const char* const* position, const char* text, std::uint64_t textBytes,
                 std::span<const std::string_view> onlyKeys = {})
        : m_keepMetadata(keepMetadata),
          m_onlyKeys(onlyKeys),
          m_cancelled(cancelled),
          m_parsed(parsed),
          m_position(position),
          m_text(text),
          m_textBytes(textBytes) {}

    bool null() { return scalar(RawNumber{RawNumber::Other, 0, 0, 0, "null"}, "null"); }
    bool boolean(bool b) { return scalar(RawNumber{RawNumber::Other, 0, 0, 0, b ? "true" : "false"}, "boolean"); }
    bool number_integer(number_integer_t v) {
        RawNumber n;
        if (v < 0) {
            n.kind = RawNumber::Negative;
            n.i = v;
        } else {
            n.kind = RawNumber::Unsigned;
            n.u = static_cast<std::uint64_t>(v);
        }
        return scalar(n, "number");
    }
    bool number_unsigned(number_unsigned_t v) { return scalar(RawNumber{RawNumber::Unsigned, v, 0, 0, ""}, "number"); }
    bool number_float(number_float_t v, const string_t&) {
        return scalar(RawNumber{RawNumber::Float, 0, 0, v, ""}, "number");
    }
    bool binary(binary_t&) { return scalar(RawNumber{RawNumber::Other, 0, 0, 0, "binary"}, "binary"); }
    bool string(string_t& v) {
        if (!tick()) return false;
        if (m_skip > 0) return true;
        if (m_depth == 0) return notObject();
        if (m_depth == 1) return topValue(nullptr, "string");
        if (m_depth == 2 && m_inMetadata) {
            // Only what is kept costs memory, so only that is budgeted: a reader of every
            // tensor (the attention maps) checks the values are strings and moves on.
            if (!m_keepMetadata) return true;
            if (!m_onlyKeys.empty() && std::find(m_onlyKeys.begin(), m_onlyKeys.end(), m_metaKey) == m_onlyKeys.end())
                return true;
            m_metadataBytes += m_metaKey.size() + v.size();
            ++m_metadataEntries;
            if (auto ok = checkMetadataBudget(); !ok) return false;
            m_metadata[std::move(m_metaKey)] = std::move(v);
            return true;
        }
        if (m_depth == 2) {
            RawField& f = field();
            if (m_field == Field::Dtype) {
                f.kind = RawField::String;
                f.text = std::move(v);
            } else if (m_field != Field::Ignored) {
                f = RawField{RawField::Other, {}, {}, 0};
            }
            return true;
        }
        if (m_depth == 3) return item(RawNumber{RawNumber::Other, 0, 0, 0, "a string"});
        return true;
    }

    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(string_t& k) {
        if (!tick()) return false;
        if (m_skip > 0) return true;
        if (m_depth == 1) {
            m_topKey = std::move(k);
        } else if (m_depth == 2 && m_inMetadata) {
            m_metaKey = std::move(k);
        } else if (m_depth == 2) {
            m_field = k == "dtype"          ? Field::Dtype
                      : k == "shape"        ? Field::Shape
                      : k == "data_offsets" ? Field::Offsets
                                            : Field::Ignored;
        }
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
        m_error = bad(fmt::format("invalid JSON ({})", excerpt(e.what(), 160))).error();
        return false;
    }

    [[nodiscard]] const std::optional<Error>& error() const { return m_error; }
    [[nodiscard]] std::vector<RawTensor>& tensors() { return m_tensors; }
    [[nodiscard]] std::map<std::string, std::string>& metadata() { return m_metadata; }

private:
    enum class Field { Dtype, Shape, Offsets, Ignored };

    // Counts events; every 4096 reports how far the parse is and asks whether to stop.
    bool tick() {
        if (++m_events % 4096 != 0) return true;
        if (interruptRequested() || (m_cancelled && m_cancelled()) ||
            (m_parsed && !m_parsed(static_cast<std::uint64_t>(*m_position - m_text), m_textBytes))) {
            m_error = Error{ErrorCode::Cancelled, "reading the safetensors header was cancelled"};
            return false;
        }
        return true;
    }

    Result<void> checkMetadataBudget() {
        if (m_metadataBytes <= kMaxSafetensorsMetadataBytes && m_metadataEntries <= kMaxSafetensorsMetadataEntries)
            return {};
        m_error = Error{ErrorCode::TooLarge,
                        fmt::format("safetensors header: its __metadata__ holds more than {} entries or {} of text "
                                    "(this program reads at most that much); the file's metadata is far larger than "
                                    "a model's (a name, a format, a few parameters): save the tensors again without "
                                    "it, e.g. safetensors.torch.save_file(tensors, path) with no metadata",
                                    kMaxSafetensorsMetadataEntries, humanBytes(kMaxSafetensorsMetadataBytes))};
        return std::unexpected(*m_error);
    }

    bool notObject() {
        m_error = bad("the JSON is not an object").error();
        return false;
    }

    RawField& field() {
        RawTensor& t = m_tensors[m_current];
        return m_field == Field::Dtype ? t.dtype : m_field == Field::Shape ? t.shape : t.offsets;
    }

    // The tensor named m_topKey (a repeated name replaces the earlier one, as a JSON document would).
    RawTensor& tensor(bool object) {
        const auto [it, inserted] = m_index.try_emplace(m_topKey, m_tensors.size());
        if (inserted) m_tensors.emplace_back();
        RawTensor& t = m_tensors[it->second];
        t = RawTensor{m_topKey, object, {}, {}, {}};
        m_current = it->second;
        return t;
    }

    // A value directly under the root: __metadata__'s or a tensor's (neither an object here).
    bool topValue(const char*, const char* type) {
        if (m_topKey == "__metadata__") {
            (void)type;
            m_error = bad("__metadata__ must be an object mapping strings to strings").error();
            return false;
        }
        tensor(false);
        return true;
    }

    bool scalar(const RawNumber& n, const char* type) {
        if (!tick()) return false;
        if (m_skip > 0) return true;
        if (m_depth == 0) return notObject();
        if (m_depth == 1) return topValue(nullptr, type);
        if (m_depth == 2 && m_inMetadata) return metadataNotString(type);
        if (m_depth == 2) {
            if (m_field != Field::Ignored) field() = RawField{RawField::Other, {}, {}, 0};
            return true;
        }
        if (m_depth == 3) return item(n);
        return true;
    }

    bool metadataNotString(const char* type) {
        m_error = bad(fmt::format("__metadata__ entry {} is {}, not a string (safetensors metadata maps strings to "
                                  "strings)",
                                  quotedName(m_metaKey), type))
                      .error();
        return false;
    }

    bool item(const RawNumber& n) {
        RawField& f = field();
        if (f.items.size() <= kMaxDims) f.items.push_back(n);
        ++f.count;
        return true;
    }

    bool open(bool object) {
        if (!tick()) return false;
        if (m_skip > 0) {
            ++m_skip;
            return true;
        }
        if (m_depth == 0) {
            if (!object) return notObject();
            m_depth = 1;
            return true;
        }
        if (m_depth == 1) {
            if (m_topKey == "__metadata__") {
                if (!object) return topValue(nullptr, "array");
                m_inMetadata = true;
                if (m_keepMetadata) m_metadata.clear();
                m_depth = 2;
                return true;
            }
            tensor(object);
            if (!object) {
                m_skip = 1;
                return true;
            }
            m_inMetadata = false;
            m_field = Field::Ignored;
            m_depth = 2;
            return true;
        }
        if (m_depth == 2 && m_inMetadata) return metadataNotString(object ? "object" : "array");
        if (m_depth == 2) {
            if (m_field == Field::Ignored) {
                m_skip = 1;
                return true;
            }
            RawField& f = field();
            if (object || m_field == Field::Dtype) {
                f = RawField{RawField::Other, {}, {}, 0};
                m_skip = 1;
                return true;
            }
            f = RawField{RawField::List, {}, {}, 0};
            m_depth = 3;
            return true;
        }
        // A container inside a shape or offsets list: one element that is not a number.
        item(RawNumber{RawNumber::Other, 0, 0, 0, object ? "an object" : "a list"});
        m_skip = 1;
        return true;
    }

    bool close() {
        if (!tick()) return false;
        if (m_skip > 0) {
            --m_skip;
            return true;
        }
        if (m_depth == 2) m_inMetadata = false;
        --m_depth;
        return true;
    }

    const bool m_keepMetadata;
    std::span<const std::string_view> m_onlyKeys;
    const std::function<bool()>& m_cancelled;
    const ProgressFn& m_parsed;
    const char* const* m_position;
    const char* m_text;
    std::uint64_t m_textBytes;
    std::optional<Error> m_error;
    int m_depth = 0;  // containers open that are followed (root 1, a tensor or the metadata 2, a list 3)
    int m_skip = 0;   // containers open inside a value that is not followed
    std::uint64_t m_events = 0;
    bool m_inMetadata = false;
    std::string m_topKey, m_metaKey;
    Field m_field = Field::Ignored;
    std::vector<RawTensor> m_tensors;
    std::map<std::string, std::size_t> m_index;
    std::size_t m_current = 0;
    std::map<std::string, std::string> m_metadata;
    std::uint64_t m_metadataBytes = 0, m_metadataEntries = 0;
};

Result<ParsedHeader> parseHeader(std::span<const std::byte> header, std::uint64_t fileSize, bool keepMetadata,
                                 const std::function<bool()>& cancelled,
                                 std::span<const std::string_view> onlyKeys = {}, const ProgressFn& parsed = {}) {
    const auto end = safetensorsHeaderEnd(header, fileSize);
    if (!end) return std::unexpected(end.error());
    if (header.size() < *end) return fail(ErrorCode::Internal, "planSafetensors: the header bytes were not all read");
    const std::string_view text(reinterpret_cast<const char*>(header.data()) + 8, static_cast<std::size_t>(*end - 8));
    if (text.empty() || text.front() != '{')
        return bad("it does not start with '{' (the JSON object); the file is damaged or not safetensors");
    if (jsonDepth(text) > kMaxJsonDepth)
        return bad(
            fmt::format("the JSON is nested more than {} levels deep (a valid header has 3); the file is "
                        "damaged",
                        kMaxJsonDepth));

    const char* position = text.data();
    HeaderReader reader(keepMetadata, cancelled, parsed, &position, text.data(), text.size(), onlyKeys);
    bool complete = false;
    try {
        complete = nlohmann::json::sax_parse(CountingChars{text.data(), &position},
                                             CountingChars{text.data() + text.size(), &position}, &reader);
    } catch (const std::bad_alloc&) {
        return fail(ErrorCode::TooLarge,
                    fmt::format("safetensors header: its {} of JSON do not fit in memory", humanBytes(text.size())));
    }
    if (!complete || reader.error()) {
        if (reader.error()) return std::unexpected(*reader.error());
        return bad("invalid JSON");
    }

    // A document's keys are sorted: validate (and report) in that order, as before.
    std::vector<RawTensor>& raw = reader.tensors();
    std::sort(raw.begin(), raw.end(), [](const RawTensor& a, const RawTensor& b) { return a.name < b.name; });

    const std::uint64_t dataSize = fileSize - *end;
    using detail::excerpt;
    std::vector<Entry> entries;
    entries.reserve(raw.size());
    for (RawTensor& t : raw) {
        const std::string name = quotedName(t.name);
        if (!t.object) return bad(fmt::format("tensor {} must be an object with dtype, shape and data_offsets", name));
        Entry e;
        e.name = std::move(t.name);
        if (t.dtype.kind != RawField::String) return bad(fmt::format("tensor {} has no \"dtype\" string", name));
        e.dtype = std::move(t.dtype.text);
        const auto bits = itemBits(e.dtype);
        if (!bits)
            return bad(
                fmt::format("tensor {} has dtype \"{}\", which the safetensors format does not define; the "
                            "file is damaged or from a newer version of the format",
                            name, excerpt(e.dtype)));
        if (t.shape.kind != RawField::List) return bad(fmt::format("tensor {} has no \"shape\" list", name));
        if (t.shape.count > kMaxDims)
            return bad(fmt::format("tensor {} has {} dimensions, above the limit of {}; the file is damaged", name,
                                   t.shape.count, kMaxDims));
        for (const RawNumber& d : t.shape.items) {
            if (d.kind == RawNumber::Negative)
                return bad(fmt::format("tensor {}: \"shape\" has a negative dimension ({})", name, d.i));
            if (d.kind != RawNumber::Unsigned ||
                d.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return bad(fmt::format("tensor {}: \"shape\" must list non-negative integers, got {}", name,
                                       excerpt(d.shown())));
            e.shape.push_back(static_cast<std::int64_t>(d.u));
        }
        const auto& o = t.offsets;
        if (o.kind != RawField::List || o.count != 2 || o.items[0].kind != RawNumber::Unsigned ||
            o.items[1].kind != RawNumber::Unsigned)
            return bad(
                fmt::format("tensor {} needs \"data_offsets\": [begin, end] with two non-negative integers", name));
        e.begin = o.items[0].u;
        e.end = o.items[1].u;
        if (e.begin > e.end)
            return bad(fmt::format("tensor {}: data_offsets [{}, {}] end before they begin; the file is damaged", name,
                                   e.begin, e.end));
        if (e.end > dataSize)
            return bad(
                fmt::format("tensor {}: data_offsets [{}, {}] fall outside the {} bytes of data after the "
                            "header; the file is truncated or damaged",
                            name, e.begin, e.end, dataSize));
        const auto count = elementCount(e.shape);
        if (!count || *count > std::numeric_limits<std::uint64_t>::max() / *bits)
            return fail(ErrorCode::TooLarge, fmt::format("safetensors header: tensor {} declares shape {}, more "
                                                         "elements than can be addressed; the file is damaged",
                                                         name, excerpt(shapeString(e.shape))));
        if (*count * *bits % 8 != 0)
            return bad(
                fmt::format("tensor {}: {} elements of {} do not fill a whole number of bytes", name, *count, e.dtype));
        if (e.end - e.begin != *count * *bits / 8)
            return bad(fmt::format("tensor {}: data_offsets [{}, {}] span {} bytes, but shape {} {} needs {}", name,
                                   e.begin, e.end, e.end - e.begin, excerpt(shapeString(e.shape)), e.dtype,
                                   *count * *bits / 8));
        entries.push_back(std::move(e));
    }
    raw = {};
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
            return bad(fmt::format(
                "{} unexplained bytes lie before tensor {} (data_offsets [{}, {}]; {}): the "
                "tensors must tile the data area exactly; the file is damaged",
                e->begin - covered, quotedName(e->name), e->begin, e->end,
                previous ? fmt::format("the tensor before it, {}, ends at {}", quotedName(previous->name), covered)
                         : std::string("the data area starts at 0")));
        if (e->begin < covered)
            return bad(fmt::format(
                "tensors {} and {} overlap (data_offsets [{}, {}] and [{}, {}]); the file is "
                "damaged",
                quotedName(previous->name), quotedName(e->name), previous->begin, previous->end, e->begin, e->end));
        covered = e->end;
        previous = e;
    }
    if (covered != dataSize)
        return bad(
            fmt::format("{} bytes follow the last tensor's data (the tensors cover {} of the {} bytes after "
                        "the header): the header length or the offsets are wrong; the file is damaged",
                        dataSize - covered, covered, dataSize));

    return ParsedHeader{std::move(entries), std::move(reader.metadata()), *end};
}

}  // namespace

Result<std::vector<TensorPlan>> planSafetensorsAll(std::span<const std::byte> header, std::uint64_t fileSize,
                                                   const std::function<bool()>& cancelled,
                                                   std::map<std::string, std::string>* metadata,
                                                   std::span<const std::string_view> metadataKeys,
                                                   const ProgressFn& parsed) {
    // The metadata is checked (strings only) and only the entries asked for are kept, once, never
    // per plan: each plan holding a copy made a few-MB file take gigabytes (issue 25).
    auto whole = parseHeader(header, fileSize, metadata != nullptr, cancelled, metadataKeys, parsed);
    if (!whole) return std::unexpected(whole.error());
    if (metadata != nullptr) *metadata = std::move(whole->metadata);
    std::vector<TensorPlan> plans;
    for (const Entry& e : whole->entries) {
        const auto dtype = loadableDType(e.dtype);
        if (!dtype)
            return bad(
                fmt::format("tensor {} has dtype \"{}\", which is not supported (supported: F64, F32, F16, "
                            "BF16); convert it, e.g. t.to(torch.float32)",
                            quotedName(e.name), e.dtype));
        TensorPlan plan;
        plan.shape = e.shape;
        plan.dtype = *dtype;
        plan.dataOffset = whole->dataStart + e.begin;
        plan.dataBytes = e.end - e.begin;
        plan.name = e.name;
        plans.push_back(std::move(plan));
    }
    return plans;
}

Result<TensorPlan> planSafetensors(std::span<const std::byte> header, std::uint64_t fileSize, const std::string& name,
                                   std::uint64_t budget, const std::function<bool()>& cancelled,
                                   const ProgressFn& parsedBytes) {
    auto parsed = parseHeader(header, fileSize, true, cancelled, {}, parsedBytes);
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
            return fail(
                ErrorCode::InvalidArgument,
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
        return bad(
            fmt::format("tensor {} has dtype \"{}\", which is not supported (supported: F64, F32, F16, BF16); "
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
