// CSV and JSON export, written chunk by chunk so memory stays bounded whatever the tensor's
// size. Every value is the stored element converted to double and printed with the shortest
// text that reads back as exactly that double (std::to_chars), so np.loadtxt or json.load
// recover the stored numbers bit for bit. The CSV puts one row per leading index with the
// innermost axis as columns, named after the layout (head,query,k0.. for hqk; query,key,h0..
// for qkh); JSON nests lists following the shape.
#include <alibi/io/json_params.hpp>
#include <alibi/io/tensor_io.hpp>

#include "tensor_io_detail.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace alibi::detail {
namespace {

// Text is gathered locally and handed to the OutputFile in pieces of about this size.
constexpr std::size_t kFlushBytes = std::size_t{256} << 10;

std::optional<std::int64_t> metaInt(const std::map<std::string, std::string>& metadata, const std::string& key) {
    const auto it = metadata.find(key);
    if (it == metadata.end()) return std::nullopt;
    std::int64_t v = 0;
    const auto* first = it->second.data();
    const auto* last = first + it->second.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || v <= 0) return std::nullopt;
    return v;
}

std::string metaString(const std::map<std::string, std::string>& metadata, const std::string& key) {
    const auto it = metadata.find(key);
    return it == metadata.end() ? std::string() : it->second;
}

std::string multiIndex(const Shape& shape, std::uint64_t flat) {
    std::vector<std::uint64_t> idx(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        const auto n = static_cast<std::uint64_t>(shape[d]);
        idx[d] = n ? flat % n : 0;
        flat = n ? flat / n : 0;
    }
    std::string s = "(";
    for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
    return s + (idx.size() == 1 ? ",)" : ")");
}

// ---------------------------------------------------------------------------
// CSV

// How rows and columns are named: leading indices (one column each) then the values of the
// innermost axis, named prefix0.. prefix{n-1}, or one column `singleName` when there is one value.
struct CsvLayout {
    std::vector<std::string> leadNames;
    std::vector<std::uint64_t> leadDims;
    std::uint64_t inner = 1;
    std::string valuePrefix;
    std::string singleName;
};

CsvLayout csvLayout(const Shape& shape, const std::map<std::string, std::string>& metadata) {
    CsvLayout l;
    const std::string layout = metaString(metadata, "layout");
    const auto dim = [&](std::size_t d) { return static_cast<std::uint64_t>(shape[d]); };
    if (shape.empty()) {
        l.singleName = "value";
        return l;
    }
    if (shape.size() == 1) {
        const auto H = metaInt(metadata, "heads"), Q = metaInt(metadata, "queries"), K = metaInt(metadata, "keys");
        if (H && Q && K &&
            static_cast<std::uint64_t>(*H) * static_cast<std::uint64_t>(*Q) * static_cast<std::uint64_t>(*K) ==
                dim(0) &&
            *H <= (std::int64_t{1} << 20) && *Q <= (std::int64_t{1} << 21) && *K <= (std::int64_t{1} << 21)) {
            // flat: the hqk order, flattened; present it as hqk rows.
            l.leadNames = {"head", "query"};
            l.leadDims = {static_cast<std::uint64_t>(*H), static_cast<std::uint64_t>(*Q)};
            l.inner = static_cast<std::uint64_t>(*K);
            l.valuePrefix = "k";
            return l;
        }
        const bool slopes = metaString(metadata, "kind") == "slopes";
        l.leadNames = {slopes ? "head" : "index"};
        l.leadDims = {dim(0)};
        l.singleName = slopes ? "slope" : "value";
        return l;
    }
    if (shape.size() == 3 && layout == "qkh") {
        l.leadNames = {"query", "key"};
        l.leadDims = {dim(0), dim(1)};
        l.inner = dim(2);
        l.valuePrefix = "h";
        return l;
    }
    if (shape.size() == 3 || (shape.size() == 4 && shape[0] == 1 && layout != "qkh")) {
        const std::size_t o = shape.size() - 3;  // drop the leading 1 of 1hqk
        l.leadNames = {"head", "query"};
        l.leadDims = {dim(o), dim(o + 1)};
        l.inner = dim(o + 2);
        l.valuePrefix = "k";
        return l;
    }
    for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
        l.leadNames.push_back(shape.size() == 2 ? std::string("row") : fmt::format("i{}", d));
        l.leadDims.push_back(dim(d));
    }
    l.inner = dim(shape.size() - 1);
    l.valuePrefix = "c";
    return l;
}

class CsvWriter final : public ChunkWriter {
public:
    CsvWriter(const Shape& shape, DType dtype, const std::map<std::string, std::string>& metadata)
        : m_layout(csvLayout(shape, metadata)), m_dtype(dtype) {}

    Result<void> begin(OutputFile& out) override {
        // The header line can be long (K = 10^6 keys): hand it over in pieces.
        std::string line;
        bool any = false;
        const auto column = [&](std::string_view name) -> Result<void> {
            if (any) line += ',';
            any = true;
            line += name;
            if (line.size() < kFlushBytes) return {};
            auto ok = out.write(line);
            line.clear();
            return ok;
        };
        for (const auto& name : m_layout.leadNames)
            if (auto ok = column(name); !ok) return ok;
        if (!m_layout.singleName.empty()) {
            if (auto ok = column(m_layout.singleName); !ok) return ok;
        } else {
            for (std::uint64_t j = 0; j < m_layout.inner; ++j)
                if (auto ok = column(m_layout.valuePrefix + std::to_string(j)); !ok) return ok;
        }
        line += '\n';
        return out.write(line);
    }

    Result<void> chunk(OutputFile& out, std::uint64_t first, std::uint64_t count, const std::byte* data) override {
        const std::size_t es = dtypeSize(m_dtype);
        const std::uint64_t inner = m_layout.inner;
        std::string text;
        text.reserve(kFlushBytes + 256);
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::uint64_t e = first + k;
            const std::uint64_t col = inner ? e % inner : 0;
            if (col == 0) {
                // A new row starts with its leading indices.
                std::uint64_t row = inner ? e / inner : e;
                const std::size_t n = m_layout.leadDims.size();
                m_index.assign(n, 0);
                for (std::size_t d = n; d-- > 0;) {
                    const std::uint64_t dimSize = m_layout.leadDims[d];
                    m_index[d] = dimSize ? row % dimSize : 0;
                    row = dimSize ? row / dimSize : 0;
                }
                for (std::size_t d = 0; d < n; ++d) {
                    if (d) text += ',';
                    text += std::to_string(m_index[d]);
                }
            }
            if (col != 0 || !m_layout.leadDims.empty()) text += ',';
            appendNumber(text, loadAs(m_dtype, data + k * es), false);
            if (col + 1 == inner) text += '\n';
            if (text.size() >= kFlushBytes) {
                if (auto ok = out.write(text); !ok) return ok;
                text.clear();
            }
        }
        return out.write(text);
    }

    Result<void> end(OutputFile&) override { return {}; }

private:
    CsvLayout m_layout;
    DType m_dtype;
    std::vector<std::uint64_t> m_index;
};

// ---------------------------------------------------------------------------
// JSON

class JsonWriter final : public ChunkWriter {
public:
    JsonWriter(const Shape& shape, DType dtype, const std::map<std::string, std::string>& metadata, bool allowNonFinite,
               std::string path)
        : m_shape(shape),
          m_dtype(dtype),
          m_metadata(metadata),
          m_allowNonFinite(allowNonFinite),
          m_path(std::move(path)),
          m_index(shape.size(), 0) {}

    Result<void> begin(OutputFile& out) override {
        std::string head = "{\"shape\": [";
        for (std::size_t d = 0; d < m_shape.size(); ++d) head += (d ? ", " : "") + std::to_string(m_shape[d]);
        head += fmt::format("], \"dtype\": \"{}\", \"params\": {}, \"data\": ", dtypeName(m_dtype),
                            typedParamsJson(m_metadata));
        // With no elements there are no chunks: write the empty nesting now ([] or [[], []]).
        if (elementCount(m_shape).value_or(0) == 0) {
            if (m_shape.empty()) return fail(ErrorCode::Internal, "JSON export: a scalar with no element");
            if (!emptyNesting(head, 0))
                return fail(ErrorCode::TooLarge, fmt::format("the empty tensor {} would need more than 64 MiB of "
                                                             "JSON brackets; export it as .npy instead",
                                                             shapeString(m_shape)));
        }
        return out.write(head);
    }

    Result<void> chunk(OutputFile& out, std::uint64_t first, std::uint64_t count, const std::byte* data) override {
        if (!m_allowNonFinite) {
            if (auto ok = checkFinite(m_shape, m_dtype, first, count, data, m_path); !ok) return ok;
        }
        const std::size_t es = dtypeSize(m_dtype);
        const std::size_t rank = m_shape.size();
        std::string text;
        text.reserve(kFlushBytes + 256);
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::uint64_t e = first + k;
            // Lists that start here: the innermost axes whose index is 0.
            std::size_t opens = 0;
            while (opens < rank && m_index[rank - 1 - opens] == 0) ++opens;
            if (e > 0) text += opens > 0 ? ",\n" : ", ";
            text.append(opens, '[');
            appendNumber(text, loadAs(m_dtype, data + k * es), true);
            // Lists that end here, and the multi-index of the next element.
            std::size_t closes = 0;
            while (closes < rank &&
                   m_index[rank - 1 - closes] + 1 == static_cast<std::uint64_t>(m_shape[rank - 1 - closes]))
                ++closes;
            text.append(closes, ']');
            for (std::size_t d = rank; d-- > 0;) {
                if (++m_index[d] < static_cast<std::uint64_t>(m_shape[d])) break;
                m_index[d] = 0;
            }
            if (text.size() >= kFlushBytes) {
                if (auto ok = out.write(text); !ok) return ok;
                text.clear();
            }
        }
        return out.write(text);
    }

    Result<void> end(OutputFile& out) override { return out.write("}\n"); }

private:
    // [] or [[], []] and so on; false when absurd shapes such as (10^9, 0) would not stay small.
    bool emptyNesting(std::string& out, std::size_t d) const {
        out += '[';
        if (d + 1 < m_shape.size()) {
            for (std::int64_t i = 0; i < m_shape[d]; ++i) {
                if (i) out += ", ";
                if (!emptyNesting(out, d + 1) || out.size() > (std::size_t{64} << 20)) return false;
            }
        }
        out += ']';
        return true;
    }

    Shape m_shape;
    DType m_dtype;
    std::map<std::string, std::string> m_metadata;
    bool m_allowNonFinite;
    std::string m_path;
    std::vector<std::uint64_t> m_index;
};

}  // namespace

void appendNumber(std::string& out, double value, bool jsonSpelling) {
    if (std::isnan(value)) {
        out += jsonSpelling ? "NaN" : "nan";
        return;
    }
    if (std::isinf(value)) {
        out += value < 0 ? (jsonSpelling ? "-Infinity" : "-inf") : (jsonSpelling ? "Infinity" : "inf");
        return;
    }
    if (value == 0) {
        // "-0" would read back as the integer 0 in Python's json module and lose the sign that
        // the causal diagonal (-(m * 0)) really has; "-0.0" keeps it in every reader.
        out += std::signbit(value) ? "-0.0" : "0";
        return;
    }
    char buffer[32];
    const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, ec == std::errc() ? ptr : buffer);
}

Result<void> checkFinite(const Shape& shape, DType dtype, std::uint64_t first, std::uint64_t count,
                         const std::byte* data, const std::string& path) {
    const std::size_t es = dtypeSize(dtype);
    for (std::uint64_t k = 0; k < count; ++k) {
        const double v = loadAs(dtype, data + k * es);
        if (std::isfinite(v)) continue;
        const char* what = std::isnan(v) ? "NaN" : (v < 0 ? "-inf" : "inf");
        std::string cause;
        if (std::isnan(v))
            cause = "NaN usually comes from a NaN input or an invalid operation upstream";
        else if (v > 0)
            cause = "It comes from a value beyond the dtype's range; export a wider dtype (f32 or f64)";
        else if (dtype == DType::F16)
            cause =
                "In f16 the mask -1e9 overflows to -inf (f16's largest value is 65504), as `--mask -inf` does; use "
                "`--mask min` (f16's lowest finite value)";
        else
            cause = "It comes from `--mask -inf`; use `--mask -1e9` (or `--mask min`) for a finite mask";
        return fail(ErrorCode::BadInput,
                    fmt::format("cannot write {} as JSON: the tensor holds {} at index {}, and JSON has no infinity or "
                                "NaN. {}, or pass --allow-nonfinite to write -Infinity/Infinity/NaN as Python's json "
                                "module does",
                                path == "-" ? std::string("standard output") : path, what, multiIndex(shape, first + k),
                                cause));
    }
    return {};
}

std::unique_ptr<ChunkWriter> makeCsvWriter(const Shape& shape, DType dtype,
                                           const std::map<std::string, std::string>& metadata) {
    return std::make_unique<CsvWriter>(shape, dtype, metadata);
}

std::unique_ptr<ChunkWriter> makeJsonWriter(const Shape& shape, DType dtype,
                                            const std::map<std::string, std::string>& metadata, bool allowNonFinite,
                                            const std::string& path) {
    return std::make_unique<JsonWriter>(shape, dtype, metadata, allowNonFinite, path);
}

}  // namespace alibi::detail
