// Batch-row words and numbers for the explorers (see batch_view.hpp).
#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/model/arith.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <limits>

namespace alibi::explore {

namespace {

std::string listText(const std::vector<std::int64_t>& v) {
    std::string s;
    for (const auto x : v) s += fmt::format("{}{}", s.empty() ? "" : ", ", x);
    return s;
}

std::string tokenText(const TokenInfo& t, const BatchParams& batch, const char* p) {
    if (!t.real) return fmt::format("padding (position {})", t.position);
    std::string s = fmt::format("real token, position {} = {}", p, t.position);
    if (!batch.documents.empty()) s += fmt::format(", document {}", t.document);
    return s;
}

std::string formulaText(BiasMode mode, double m, const BatchRow& row, const TokenInfo& k, std::int64_t n) {
    const std::string mText = formatValue(m);
    switch (mode) {
        case BiasMode::Causal:
        case BiasMode::Symmetric:
            return fmt::format("bias = -m·|p_i - p_j| = -{} × {}", mText, -n);
        case BiasMode::Clamped:
            return fmt::format("bias = -m·max(p_i - p_j, 0) = -{} × {}", mText, -n);
        case BiasMode::Bloom:
            return fmt::format("bias = +m·p_j = {} × {}", mText, k.position);
        case BiasMode::Mpt:
            return fmt::format("bias = -m·(p_last - p_j) = -{} × ({} - {})", mText, row.lastPosition, k.position);
    }
    return {};
}

}  // namespace

std::string batchRowTitle(const BatchParams& batch, std::int64_t row, std::int64_t length) {
    const std::int64_t real = batch.lengths.empty() ? length : batch.lengths[static_cast<std::size_t>(row)];
    std::string s =
        fmt::format("batch row {} of {}: {} real token{}", row, batch.batchSize(), real, real == 1 ? "" : "s");
    if (real < length) s += fmt::format(", {} padding", paddingName(batch.padding));
    if (!batch.documents.empty()) s += " · documents " + listText(batch.documents);
    if (batch.window > 0) s += fmt::format(" · window {}", batch.window);
    if (batch.prefix > 0) s += fmt::format(" · prefix {}", batch.prefix);
    s += fmt::format(" · positions {}", positionRuleName(batch.positions));
    return s;
}

std::string batchCellReadout(const HeatmapParams& params, std::span<const double> slopes, int head, std::int64_t query,
                             std::int64_t key, std::optional<double> probability) {
    const BiasParams& bias = params.attention.bias;
    const BatchParams& batch = params.batch;
    if (head < 0 || head >= static_cast<int>(slopes.size())) return {};
    if (query < 0 || query >= bias.queries || key < 0 || key >= bias.keyCount()) return {};
    if (!validateBatch(bias, batch) || params.batchRow < 0 || params.batchRow >= batch.batchSize()) return {};
    const BatchRow row = batchRow(bias, batch, params.batchRow);
    const TokenInfo& q = row.tokens[static_cast<std::size_t>(query)];
    const TokenInfo& k = row.tokens[static_cast<std::size_t>(key)];
    const double m = slopes[static_cast<std::size_t>(head)];
    std::string text = fmt::format("batch row {} · head {} · query i = {} · key j = {} · slope m = {}", params.batchRow,
                                   head, query, key, formatValue(m));
    text += fmt::format("\nquery: {} · key: {}", tokenText(q, batch, "p_i"), tokenText(k, batch, "p_j"));
    const MaskReason reason = batchCellMask(bias, batch, row, query, key);
    const double mask = roundTo(bias.dtype, maskDouble(bias.mask, bias.dtype));
    if (reason != MaskReason::None) {
        text += fmt::format("\nmasked ({}): bias = mask = {}", maskReasonText(reason), maskValueText(bias));
    } else {
        const std::int64_t n = batchCellMultiplier(bias, row, query, key);
        const double tail = exactSlopeTails(bias.slopes)[static_cast<std::size_t>(head)];
        const double stored = arithProduct(bias.slopes.arith, bias.dtype, m, tail, n);
        text += "\n" + formulaText(bias.mode, m, row, k, n) + " = " + formatValue(stored);
        if (bias.slopes.arith != Arith::Exact)
            text += fmt::format(" ({} arithmetic, {})", arithName(bias.slopes.arith), dtypeName(bias.dtype));
    }
    if (batchAllowedKeys(bias, batch, row, query).empty()) {
        const bool nan = mask == -std::numeric_limits<double>::infinity();
        text += fmt::format(
            "\nfully masked row: query i = {} has no key to attend to; the softmax sees only the mask "
            "value, so this row is {}",
            query, nan ? "NaN (mask -inf)" : fmt::format("uniform, 1/{} per key", bias.keyCount()));
    }
    if (params.what == RenderWhat::Attention) {
        if (probability)
            text += "\nattention p = softmax((content + bias) / τ)[j] = " + formatValue(*probability);
        else
            text += "\nattention p: computing...";
    }
    return text;
}

std::string batchScopeNote(const BatchParams& batch, std::int64_t row, bool brief) {
    if (!batch.active()) return {};
    if (brief) return fmt::format("unpadded sequence, not batch row {}", row);
    return fmt::format(
        "One unpadded sequence of T tokens: the batch (row {} of {}) is drawn in the head grid and "
        "detail views only.",
        row, batch.batchSize());
}

std::vector<double> batchCellValues(const HeatmapParams& params, std::span<const double> slopes, int head) {
    const BiasParams& bias = params.attention.bias;
    const BatchParams& batch = params.batch;
    if (!validateBatch(bias, batch) || params.batchRow < 0 || params.batchRow >= batch.batchSize()) return {};
    if (head < 0 || head >= static_cast<int>(slopes.size())) return {};
    const std::int64_t T = bias.queries;
    const BatchRow row = batchRow(bias, batch, params.batchRow);
    const double m = slopes[static_cast<std::size_t>(head)];
    const double tail = exactSlopeTails(bias.slopes)[static_cast<std::size_t>(head)];
    std::vector<double> out(static_cast<std::size_t>(T * T), std::numeric_limits<double>::quiet_NaN());
    for (std::int64_t i = 0; i < T; ++i) {
        std::vector<double> probabilities;
        if (params.what == RenderWhat::Attention) {
            auto p = batchAttentionRow(params.attention, batch, params.batchRow, head, i);
            if (!p) return {};
            probabilities = std::move(*p);
        }
        for (std::int64_t j = 0; j < T; ++j) {
            if (batchCellMask(bias, batch, row, i, j) != MaskReason::None) continue;
            out[static_cast<std::size_t>(i * T + j)] =
                params.what == RenderWhat::Attention
                    ? probabilities[static_cast<std::size_t>(j)]
                    : arithProduct(bias.slopes.arith, bias.dtype, m, tail, batchCellMultiplier(bias, row, i, j));
        }
    }
    return out;
}

}  // namespace alibi::explore
