// The .npy format (NumPy's NEP 1): writing the header exactly as numpy.save does, and reading
// one back with every field validated before anything is allocated. Reading accepts versions
// 1.0, 2.0 and 3.0, C order only, and the float dtypes the core stores ('<f4', '<f8', '<f2',
// big-endian ones byte-swapped) plus '<u2' read as bfloat16 bits, which is how this project
// writes bf16 (NumPy has no bfloat16 dtype).
#include <alibi/io/tensor_io.hpp>

#include "read_limits.hpp"
#include "tensor_io_detail.hpp"

#include <fmt/format.h>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace alibi {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kAlign = 64;             // numpy.lib.format.ARRAY_ALIGN
constexpr std::size_t kGrowthDigits = 21;      // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS (NumPy >= 1.23)
constexpr std::uint64_t kMaxHeader = 1 << 20;  // NumPy itself refuses headers above 10000 bytes by default

std::string_view asText(std::span<const std::byte> bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// ---------------------------------------------------------------------------
// A reader for the one Python literal a .npy header holds: a dict of strings, booleans and
// tuples of integers. Anything else (a structured dtype's list, None) is reported, not guessed.

struct IntTuple {
    std::vector<std::int64_t> values;
};
struct OtherValue {
    std::string text;  // shown in messages
};
using LiteralValue = std::variant<std::string, bool, IntTuple, OtherValue>;

class LiteralParser {
public:
    explicit LiteralParser(std::string_view text) : m_text(text) {}

    Result<std::vector<std::pair<std::string, LiteralValue>>> dict() {
        std::vector<std::pair<std::string, LiteralValue>> items;
        skipSpace();
        if (!eat('{')) return error("the header is not a Python dict (it does not start with '{')");
        for (;;) {
            skipSpace();
            if (eat('}')) break;
            auto key = string();
            if (!key) return std::unexpected(key.error());
            skipSpace();
            if (!eat(':')) return error(fmt::format("expected ':' after the key '{}'", detail::excerpt(*key)));
            auto value = this->value();
            if (!value) return std::unexpected(value.error());
            items.emplace_back(std::move(*key), std::move(*value));
            skipSpace();
            if (eat('}')) break;
            if (!eat(',')) return error("expected ',' or '}' between dict entries");
        }
        skipSpace();
        if (m_pos != m_text.size()) return error("unexpected text after the closing '}'");
        return items;
    }

private:
    Result<LiteralValue> value() {
        skipSpace();
        if (m_pos >= m_text.size()) return error("the dict ends early");
        const char c = m_text[m_pos];
        if (c == '\'' || c == '"') {
            auto s = string();
            if (!s) return std::unexpected(s.error());
            return LiteralValue(std::move(*s));
        }
        if (c == '(') return tuple();
        if (word("True")) return LiteralValue(true);
        if (word("False")) return LiteralValue(false);
        // Something else: skip a balanced bracket group or a bare word, to name it in a message.
        const std::size_t start = m_pos;
        int depth = 0;
        while (m_pos < m_text.size()) {
            const char d = m_text[m_pos];
            if (d == '[' || d == '(' || d == '{') ++depth;
            if (d == ']' || d == ')' || d == '}') {
                if (depth == 0) break;
                --depth;
            }
            if (d == ',' && depth == 0) break;
            ++m_pos;
        }
        if (m_pos == start) return error(fmt::format("unexpected character '{}'", printable(c)));
        return LiteralValue(OtherValue{detail::excerpt(m_text.substr(start, m_pos - start))});
    }

    Result<LiteralValue> tuple() {
        IntTuple t;
        ++m_pos;  // '('
        for (;;) {
            skipSpace();
            if (eat(')')) break;
            bool negative = eat('-');
            if (m_pos >= m_text.size() || m_text[m_pos] < '0' || m_text[m_pos] > '9')
                return error("the shape must be a tuple of integers, like (8, 16, 16)");
            std::uint64_t v = 0;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
                const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
                if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - digit) / 10)
                    return error("a dimension of the shape does not fit in 64 bits");
                v = v * 10 + digit;
                ++m_pos;
            }
            eat('L');  // Python 2 long literals, as old NumPy wrote them
            if (negative) return error(fmt::format("the shape has a negative dimension (-{})", v));
            t.values.push_back(static_cast<std::int64_t>(v));
            if (t.values.size() > detail::kMaxDims)
                return error(fmt::format("the shape has more than {} dimensions", detail::kMaxDims));
            skipSpace();
            if (eat(')')) break;
            if (!eat(',')) return error("expected ',' or ')' in the shape");
        }
        return LiteralValue(std::move(t));
    }

    Result<std::string> string() {
        if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"'))
            return error("expected a quoted key");
        const char quote = m_text[m_pos++];
        std::string s;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            // Python would read an escape such as '<f\4' as '<f' + chr(4); NumPy never writes
            // one, so refuse rather than guess.
            if (m_text[m_pos] == '\\') return error("a string in the header holds a backslash escape");
            s += m_text[m_pos++];
            if (s.size() > 256) return error("a string in the header is implausibly long");
        }
        if (!eat(quote)) return error("a string in the header is not closed");
        return s;
    }

    bool word(std::string_view w) {
        if (m_text.substr(m_pos, w.size()) != w) return false;
        m_pos += w.size();
        return true;
    }
    bool eat(char c) {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    void skipSpace() {
        while (m_pos < m_text.size() &&
               (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    static std::string printable(char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", u);
    }
    std::unexpected<Error> error(std::string what) const {
        return fail(ErrorCode::BadInput,
                    fmt::format(".npy header: {} (at byte {} of the header dict); the file is damaged or not "
                                "written by NumPy",
                                what, m_pos));
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

struct DescrInfo {
    DType dtype;
    bool swap;
    bool bf16;
};

std::optional<DescrInfo> parseDescr(std::string_view descr) {
    if (descr.size() != 3) return std::nullopt;
    const char order = descr[0];
    bool swap;
    if (order == '<' || order == '=')
        swap = false;  // '=' is native, and this reader only runs on little-endian hosts
    else if (order == '>')
        swap = true;
    else
        return std::nullopt;
    const std::string_view kind = descr.substr(1);
    if (kind == "f4") return DescrInfo{DType::F32, swap, false};
    if (kind == "f8") return DescrInfo{DType::F64, swap, false};
    if (kind == "f2") return DescrInfo{DType::F16, swap, false};
    if (kind == "u2") return DescrInfo{DType::BF16, swap, true};
    return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------
// Writing

std::string npyHeader(const Shape& shape, DType dtype) {
    // Built exactly as numpy.lib.format._write_array_header does (NumPy 1.24), so the bytes
    // match np.save: sorted keys, repr() values, spare spaces for growing the first axis, then
    // spaces and '\n' up to a multiple of 64 bytes (at least one space).
    std::string dict =
        fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", numpyDescr(dtype), shapeString(shape));
    if (!shape.empty()) {
        const std::size_t digits = std::to_string(shape.front()).size();
        if (digits < kGrowthDigits) dict.append(kGrowthDigits - digits, ' ');
    }
    const std::size_t hlen = dict.size() + 1;  // + '\n'
    for (const int major : {1, 2}) {
        const std::size_t lengthBytes = major == 1 ? 2 : 4;
        const std::size_t prefix = kMagic.size() + 2 + lengthBytes;
        const std::size_t padding = kAlign - (prefix + hlen) % kAlign;
        const std::uint64_t total = hlen + padding;
        if (major == 1 && total > 0xffff) continue;  // version 2.0 has a 32-bit length
        std::string out(kMagic);
        out += static_cast<char>(major);
        out += '\0';
        for (std::size_t b = 0; b < lengthBytes; ++b) out += static_cast<char>((total >> (8 * b)) & 0xff);
        out += dict;
        out.append(padding, ' ');
        out += '\n';
        return out;
    }
    return {};  // unreachable: a header never exceeds 4 GiB
}

// ---------------------------------------------------------------------------
// Reading

namespace detail {

Result<std::uint64_t> npyHeaderEnd(std::span<const std::byte> prefix, std::uint64_t fileSize) {
    const std::string_view text = asText(prefix);
    if (text.substr(0, kMagic.size()) != kMagic)
        return fail(ErrorCode::BadInput, "not a .npy file: it does not start with the magic bytes \\x93NUMPY");
    if (fileSize < 10 || prefix.size() < 10)
        return fail(ErrorCode::BadInput,
                    fmt::format(".npy file is truncated: {} bytes, shorter than the 10-byte preamble", fileSize));
    const auto major = static_cast<unsigned char>(text[6]), minor = static_cast<unsigned char>(text[7]);
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return fail(ErrorCode::BadInput, fmt::format("unsupported .npy format version {}.{} (this reader knows 1.0, "
                                                     "2.0 and 3.0); re-save the array with np.save",
                                                     major, minor));
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    if (fileSize < 8 + lengthBytes || prefix.size() < 8 + lengthBytes)
        return fail(ErrorCode::BadInput, ".npy file is truncated inside its header length");
    std::uint64_t length = 0;
    for (std::size_t b = 0; b < lengthBytes; ++b)
        length |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[8 + b])) << (8 * b);
    const std::uint64_t end = 8 + lengthBytes + length;
    if (end > fileSize)
        return fail(ErrorCode::BadInput,
                    fmt::format(".npy header length {} goes beyond the end of the file ({} bytes): the file is "
                                "truncated or the header length is wrong",
                                length, fileSize));
    if (length > kMaxHeader)
        return fail(
            ErrorCode::BadInput,
            fmt::format(".npy header length {} is implausibly large (a NumPy header is under 10000 bytes)", length));
    return end;
}

Result<TensorPlan> planNpy(std::span<const std::byte> header, std::uint64_t fileSize, std::uint64_t budget) {
    const auto end = npyHeaderEnd(header, fileSize);
    if (!end) return std::unexpected(end.error());
    if (header.size() < *end) return fail(ErrorCode::Internal, "planNpy: the header bytes were not all read");
    const std::size_t dictStart = static_cast<unsigned char>(header[6]) == 1 ? 10 : 12;
    const std::string_view text = asText(header.subspan(dictStart, static_cast<std::size_t>(*end) - dictStart));

    auto items = LiteralParser(text).dict();
    if (!items) return std::unexpected(items.error());
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<Shape> shape;
    for (auto& [key, value] : *items) {
        if (key == "descr") {
            if (auto* s = std::get_if<std::string>(&value))
                descr = *s;
            else
                return fail(ErrorCode::BadInput,
                            fmt::format(".npy header: 'descr' is {}, not a simple dtype string: structured arrays are "
                                        "not supported; save a plain float array (a.astype(np.float32))",
                                        std::holds_alternative<OtherValue>(value) ? std::get<OtherValue>(value).text
                                                                                  : std::string("not a string")));
        } else if (key == "fortran_order") {
            if (auto* b = std::get_if<bool>(&value))
                fortran = *b;
            else
                return fail(ErrorCode::BadInput, ".npy header: 'fortran_order' must be True or False");
        } else if (key == "shape") {
            if (auto* t = std::get_if<IntTuple>(&value))
                shape = Shape(t->values.begin(), t->values.end());
            else
                return fail(ErrorCode::BadInput, ".npy header: 'shape' must be a tuple of integers, like (8, 16, 16)");
        } else {
            return fail(ErrorCode::BadInput,
                        fmt::format(".npy header: unexpected key '{}' (NumPy writes only descr, fortran_order and "
                                    "shape)",
                                    detail::excerpt(key)));
        }
    }
    if (!descr) return fail(ErrorCode::BadInput, ".npy header: the 'descr' (dtype) key is missing");
    if (!fortran) return fail(ErrorCode::BadInput, ".npy header: the 'fortran_order' key is missing");
    if (!shape) return fail(ErrorCode::BadInput, ".npy header: the 'shape' key is missing");
    if (*fortran)
        return fail(ErrorCode::BadInput,
                    ".npy header: the array is stored in Fortran (column-major) order, which this reader does not "
                    "take; re-save it in C order with np.save(path, np.ascontiguousarray(a))");
    const auto info = parseDescr(*descr);
    if (!info)
        return fail(ErrorCode::BadInput,
                    fmt::format(".npy header: dtype '{}' is not supported (supported: '<f4' float32, '<f8' float64, "
                                "'<f2' float16, '<u2' bfloat16 bits); convert with a.astype(np.float32)",
                                detail::excerpt(*descr)));

    const auto count = elementCount(*shape);
    const std::size_t es = dtypeSize(info->dtype);
    const std::string what = fmt::format("the .npy array {} {}", detail::excerpt(shapeString(*shape)), *descr);
    if (!count || *count > std::numeric_limits<std::uint64_t>::max() / 8)
        return fail(ErrorCode::TooLarge, fmt::format("{} declares more elements than can be addressed; the header "
                                                     "is damaged",
                                                     what));
    const std::uint64_t bytes = *count * es;
    if (auto ok = checkImportBudget(bytes, budget, what); !ok) return std::unexpected(ok.error());
    const std::uint64_t held = fileSize - *end;
    if (held != bytes)
        return fail(ErrorCode::BadInput,
                    fmt::format(".npy data: the file holds {} bytes of data after the header, but shape {} {} needs "
                                "{}; the file is {} or its header is wrong",
                                held, detail::excerpt(shapeString(*shape)), *descr, bytes,
                                held < bytes ? "truncated" : "too long"));
    TensorPlan plan;
    plan.shape = std::move(*shape);
    plan.dtype = info->dtype;
    plan.byteSwap = info->swap;
    plan.bf16FromU2 = info->bf16;
    plan.dataOffset = *end;
    plan.dataBytes = bytes;
    return plan;
}

}  // namespace detail
}  // namespace alibi
