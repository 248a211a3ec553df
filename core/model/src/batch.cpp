// Batched ALiBi (see batch.hpp). Every cell is computed from its tokens: whether the key is real,
// which document each token belongs to, and the positions the chosen rule gives them; the value
// goes through the same arithProduct as a single sequence, so profiles and +0.0 carry over.
#include <alibi/model/arith.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <numeric>

namespace alibi {

std::string_view paddingName(Padding padding) {
    return padding == Padding::Left ? "left" : "right";
}

std::optional<Padding> parsePadding(std::string_view name) {
    if (name == "right") return Padding::Right;
    if (name == "left") return Padding::Left;
    return std::nullopt;
}

std::string_view positionRuleName(PositionRule rule) {
    switch (rule) {
        case PositionRule::Mask:
            return "mask";
        case PositionRule::Naive:
            return "naive";
        case PositionRule::Document:
            return "document";
    }
    return "mask";
}

std::optional<PositionRule> parsePositionRule(std::string_view name) {
    if (name == "mask") return PositionRule::Mask;
    if (name == "naive") return PositionRule::Naive;
    if (name == "document") return PositionRule::Document;
    return std::nullopt;
}

Result<std::vector<std::int64_t>> parseLengthList(std::string_view text, std::string_view what) {
    std::vector<std::int64_t> out;
    const auto separator = [](char c) {
        return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    };
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && separator(text[i])) ++i;
        if (i >= text.size()) break;
        std::size_t end = i;
        while (end < text.size() && !separator(text[end])) ++end;
        const std::string_view token = text.substr(i, end - i);
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (ec != std::errc{} || ptr != token.data() + token.size() || value < 1 || value > kMaxLength) {
            const std::string shown = token.size() > 24 ? std::string(token.substr(0, 24)) + "..." : std::string(token);
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{}: '{}' is not a whole number from 1 to {}; give lengths separated by commas, "
                                    "e.g. 16, 12, 9",
                                    what, shown, kMaxLength));
        }
        if (out.size() == 4096) return fail(ErrorCode::InvalidArgument, fmt::format("{}: more than 4096 values", what));
        out.push_back(value);
        i = end;
    }
    return out;
}

std::string lengthListText(const std::vector<std::int64_t>& values) {
    std::string s;
    for (const auto x : values) s += fmt::format("{}{}", s.empty() ? "" : ", ", x);
    return s;
}

std::vector<std::string> fitBatch(BatchParams& batch, std::int64_t& row, std::int64_t length) {
    std::vector<std::string> notes;
    bool capped = false;
    for (auto& l : batch.lengths)
        if (l > length) {
            l = length;
            capped = true;
        }
    if (capped) notes.push_back(fmt::format("batch lengths capped at T = {}", length));
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < batch.documents.size(); ++k) {
        if (sum + batch.documents[k] > length) {
            if (sum < length) {
                batch.documents[k] = length - sum;
                ++k;
            }
            batch.documents.resize(k);
            notes.push_back(fmt::format("packed documents cut at T = {}", length));
            break;
        }
        sum += batch.documents[k];
    }
    if (batch.positions == PositionRule::Document && batch.documents.empty()) batch.positions = PositionRule::Mask;
    if (batch.window > length) {
        batch.window = length;
        notes.push_back(fmt::format("window capped at T = {}", length));
    }
    if (batch.prefix > length) {
        batch.prefix = length;
        notes.push_back(fmt::format("prefix capped at T = {}", length));
    }
    if (row >= batch.batchSize() || row < 0) {
        const std::int64_t to = std::clamp<std::int64_t>(row, 0, batch.batchSize() - 1);
        notes.push_back(fmt::format("batch row {} → {} (B = {})", row, to, batch.batchSize()));
        row = to;
    }
    return notes;
}

Result<void> validateBatch(const BiasParams& bias, const BatchParams& batch) {
    const std::int64_t t = bias.queries;
    if (bias.keyCount() != t)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a batch (--lengths, --documents, --window, --prefix) needs --keys equal to --seq (one "
                                "length T per row), got --seq {} --keys {}",
                                t, bias.keyCount()),
                    Field::Keys);
    if (batch.lengths.size() > 4096)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--lengths lists {} rows; at most 4096", batch.lengths.size()), Field::Lengths);
    for (std::size_t b = 0; b < batch.lengths.size(); ++b)
        if (batch.lengths[b] < 1 || batch.lengths[b] > t)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--lengths: row {} has length {}; every length must be between 1 and --seq {} "
                                    "(the padded length)",
                                    b, batch.lengths[b], t),
                        Field::Lengths);
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < batch.documents.size(); ++k) {
        if (batch.documents[k] < 1)
            return fail(
                ErrorCode::InvalidArgument,
                fmt::format("--documents: document {} has length {}; lengths must be positive", k, batch.documents[k]),
                Field::Documents);
        sum += batch.documents[k];
        if (sum > t)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--documents add up to more than --seq {} (the packed length)", t),
                        Field::Documents);
    }
    if (batch.window < 0 || batch.window > t)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--window must be between 0 (none) and --seq {}, got {}", t, batch.window),
                    Field::Window);
    if (batch.prefix < 0 || batch.prefix > t)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--prefix must be between 0 (none) and --seq {}, got {}", t, batch.prefix),
                    Field::Prefix);
    if (batch.positions == PositionRule::Document && batch.documents.empty())
        return fail(ErrorCode::InvalidArgument,
                    "--positions document restarts positions per packed document: give --documents too",
                    Field::Positions);
    return {};
}

std::vector<TokenInfo> batchTokens(const BiasParams& bias, const BatchParams& batch, std::int64_t row) {
    const std::int64_t t = bias.queries;
    const std::int64_t length = batch.lengths.empty() ? t : batch.lengths[static_cast<std::size_t>(row)];
    const std::int64_t first = batch.padding == Padding::Left ? t - length : 0;
    std::vector<TokenInfo> tokens(static_cast<std::size_t>(t));
    std::int64_t seen = 0, document = 0, documentStart = 0;
    for (std::int64_t x = 0; x < t; ++x) {
        TokenInfo& tok = tokens[static_cast<std::size_t>(x)];
        tok.real = x >= first && x < first + length;
        if (!tok.real) {
            // (cumsum(mask) - 1) * mask: padding sits at position 0 under the mask rule.
            tok.position = batch.positions == PositionRule::Naive ? x : 0;
            tok.document = -1;
            continue;
        }
        // Documents cover the real tokens in order; tokens past the listed ones form one more.
        while (document < static_cast<std::int64_t>(batch.documents.size()) &&
               seen >= documentStart + batch.documents[static_cast<std::size_t>(document)]) {
            documentStart += batch.documents[static_cast<std::size_t>(document)];
            ++document;
        }
        tok.document = batch.documents.empty() ? 0 : document;
        switch (batch.positions) {
            case PositionRule::Mask:
                tok.position = seen;
                break;
            case PositionRule::Naive:
                tok.position = x;
                break;
            case PositionRule::Document:
                tok.position = seen - documentStart;
                break;
        }
        ++seen;
    }
    return tokens;
}

std::string_view maskReasonText(MaskReason reason) {
    switch (reason) {
        case MaskReason::None:
            return "";
        case MaskReason::Padding:
            return "padding key";
        case MaskReason::Document:
            return "another document";
        case MaskReason::Future:
            return "future key (causal)";
        case MaskReason::Window:
            return "outside the window";
    }
    return "";
}

BatchRow batchRow(const BiasParams& bias, const BatchParams& batch, std::int64_t row) {
    BatchRow r;
    r.tokens = batchTokens(bias, batch, row);
    bool seenReal = false;
    for (std::int64_t x = 0; x < static_cast<std::int64_t>(r.tokens.size()); ++x) {
        const TokenInfo& tok = r.tokens[static_cast<std::size_t>(x)];
        if (!tok.real) continue;
        if (!seenReal) r.realFirst = x;
        seenReal = true;
        r.realLast = x;
        r.lastPosition = std::max(r.lastPosition, tok.position);
        const auto d = static_cast<std::size_t>(tok.document);
        if (d >= r.documentFirst.size()) {
            r.documentFirst.resize(d + 1, x);
            r.documentLast.resize(d + 1, x);
        }
        r.documentLast[d] = x;
    }
    return r;
}

MaskReason batchCellMask(const BiasParams& bias, const BatchParams& batch, const BatchRow& row, std::int64_t i,
                         std::int64_t j) {
    const TokenInfo& q = row.tokens[static_cast<std::size_t>(i)];
    const TokenInfo& k = row.tokens[static_cast<std::size_t>(j)];
    if (!k.real) return MaskReason::Padding;
    if (!batch.documents.empty() && q.document != k.document) return MaskReason::Document;
    const bool bothInPrefix = i < batch.prefix && j < batch.prefix;
    if (modeMasks(bias.mode) && j > i && !bothInPrefix) return MaskReason::Future;
    if (batch.window > 0 && (i > j ? i - j : j - i) >= batch.window) return MaskReason::Window;
    return MaskReason::None;
}

std::int64_t batchCellMultiplier(const BiasParams& bias, const BatchRow& row, std::int64_t i, std::int64_t j) {
    const TokenInfo& q = row.tokens[static_cast<std::size_t>(i)];
    const TokenInfo& k = row.tokens[static_cast<std::size_t>(j)];
    const std::int64_t d = q.position - k.position;
    switch (bias.mode) {
        case BiasMode::Causal:
            return -(d < 0 ? -d : d);  // -|d|: d < 0 only in a prefix
        case BiasMode::Symmetric:
            return -(d < 0 ? -d : d);
        case BiasMode::Clamped:
            return -std::max<std::int64_t>(d, 0);
        case BiasMode::Bloom:
            return k.position;
        case BiasMode::Mpt:
            return -(row.lastPosition - k.position);
    }
    return 0;
}

KeyRange batchAllowedKeys(const BiasParams& bias, const BatchParams& batch, const BatchRow& row, std::int64_t i) {
    const TokenInfo& q = row.tokens[static_cast<std::size_t>(i)];
    // Real keys of the query's document (every real key without documents; none for a padding
    // query when documents are given, since its document matches no key's).
    KeyRange r{row.realFirst, row.realLast};
    if (!batch.documents.empty()) {
        if (!q.real) return {};
        r = {row.documentFirst[static_cast<std::size_t>(q.document)],
             row.documentLast[static_cast<std::size_t>(q.document)]};
    }
    if (modeMasks(bias.mode)) r.last = std::min(r.last, i < batch.prefix ? batch.prefix - 1 : i);
    if (batch.window > 0) {
        r.first = std::max(r.first, i - batch.window + 1);
        r.last = std::min(r.last, i + batch.window - 1);
    }
    return r;
}

Result<Tensor> buildBatchBias(const BiasParams& bias, const BatchParams& batch, std::uint64_t budget) {
    auto slopes = validateBias(bias);
    if (!slopes) return std::unexpected(slopes.error());
    if (auto ok = validateBatch(bias, batch); !ok) return std::unexpected(ok.error());
    const std::int64_t B = batch.batchSize(), H = bias.slopes.heads, T = bias.queries;
    auto tensor = Tensor::allocate({B, H, T, T}, bias.dtype, budget, "batch bias tensor");
    if (!tensor) return tensor;
    const std::vector<double> tails = exactSlopeTails(bias.slopes);
    const double mask = roundTo(bias.dtype, maskDouble(bias.mask, bias.dtype));
    const std::size_t es = dtypeSize(bias.dtype);
    std::byte* out = tensor->byteSpan().data();
    std::uint64_t cell = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        const BatchRow row = batchRow(bias, batch, b);
        for (std::int64_t h = 0; h < H; ++h) {
            const double slope = (*slopes)[static_cast<std::size_t>(h)];
            const double tail = tails[static_cast<std::size_t>(h)];
            for (std::int64_t i = 0; i < T; ++i)
                for (std::int64_t j = 0; j < T; ++j, ++cell) {
                    const double v = batchCellMask(bias, batch, row, i, j) != MaskReason::None
                                         ? mask
                                         : arithProduct(bias.slopes.arith, bias.dtype, slope, tail,
                                                        batchCellMultiplier(bias, row, i, j));
                    storeAs(bias.dtype, v, out + cell * es);
                }
        }
    }
    tensor->metadata = biasMetadata(bias);
    for (auto& [key, value] : batchMetadata(batch)) tensor->metadata[key] = value;
    return tensor;
}

std::map<std::string, std::string> batchMetadata(const BatchParams& batch) {
    const auto list = [](const std::vector<std::int64_t>& v) {
        std::string s;
        for (const auto x : v) s += fmt::format("{}{}", s.empty() ? "" : ",", x);
        return s;
    };
    std::map<std::string, std::string> m;
    m["layout"] = "bhqk";
    m["batch"] = std::to_string(batch.batchSize());
    if (!batch.lengths.empty()) m["lengths"] = list(batch.lengths);
    m["padding"] = std::string(paddingName(batch.padding));
    if (!batch.documents.empty()) m["documents"] = list(batch.documents);
    if (batch.window > 0) m["window"] = std::to_string(batch.window);
    if (batch.prefix > 0) m["prefix"] = std::to_string(batch.prefix);
    m["positions"] = std::string(positionRuleName(batch.positions));
    return m;
}

}  // namespace alibi
