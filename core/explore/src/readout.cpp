// The hover read-out text, built once here for every front end.
#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <cmath>

namespace alibi::explore {

namespace {

// "1/16 = 0.0625" when the slope has a shorter exact spelling, else the number alone.
std::string slopeWithValue(double m) {
    const std::string exact = formatSlope(m), plain = formatValue(m);
    return exact == plain ? plain : exact + " = " + plain;
}

}  // namespace

std::string maskValueText(const BiasParams& bias) {
    const std::string name = maskName(bias.mask);
    const double stored = roundTo(bias.dtype, maskDouble(bias.mask, bias.dtype));
    // A number the dtype holds (to the six digits read-outs show) reads as typed ("-1e9", not
    // "-1e+09"); "min" always says which number it is in this dtype.
    const bool asTyped = bias.mask.kind == MaskValue::Kind::Finite
                             ? stored == bias.mask.value || formatValue(stored) == formatValue(bias.mask.value)
                             : formatValue(stored) == name;
    return asTyped ? name : fmt::format("{} ({} in {})", name, formatValue(stored), dtypeName(bias.dtype));
}

namespace {

std::string formula(const BiasParams& bias, double m, std::int64_t p, std::int64_t key, bool shifted,
                    std::optional<double> exact, double stored) {
    const std::string pi = shifted ? "p_i" : "i";
    if (!exact) return fmt::format("j > {}: masked, bias = mask = {}", pi, maskValueText(bias));
    const std::string mText = formatValue(m);
    const std::int64_t d = p - key;
    std::string text;
    switch (bias.mode) {
        case BiasMode::Causal:
            text = fmt::format("bias = -m·({} - j) = -{} × {} = {}", pi, mText, d, formatValue(*exact));
            break;
        case BiasMode::Symmetric:
            text = fmt::format("bias = -m·|{} - j| = -{} × {} = {}", pi, mText, std::abs(d), formatValue(*exact));
            break;
        case BiasMode::Clamped:
            text = fmt::format("bias = -m·max({} - j, 0) = -{} × {} = {}", pi, mText, std::max<std::int64_t>(d, 0),
                               formatValue(*exact));
            break;
        case BiasMode::Bloom:
            text = fmt::format("bias = +m·j = {} × {} = {}", mText, key, formatValue(*exact));
            break;
        case BiasMode::Mpt:
            text = fmt::format("bias = -m·(K - 1 - j) = -{} × {} = {}", mText, bias.keyCount() - 1 - key,
                               formatValue(*exact));
            break;
    }
    if (stored != *exact) text += fmt::format(" (stored in {}: {})", dtypeName(bias.dtype), formatValue(stored));
    return text;
}

}  // namespace

std::string cellReadout(const AttentionParams& params, RenderWhat what, std::span<const double> slopes, int head,
                        std::int64_t query, std::int64_t key, std::optional<double> probability) {
    const BiasParams& bias = params.bias;
    if (head < 0 || head >= static_cast<int>(slopes.size())) return {};
    if (query < 0 || query >= bias.queries || key < 0 || key >= bias.keyCount()) return {};
    const double m = slopes[static_cast<std::size_t>(head)];
    const std::int64_t p = bias.queryPosition(query);
    const bool shifted = p != query;
    std::string text = fmt::format("head {} · query i = {} · key j = {} · distance {} - j = {} · slope m = {}", head,
                                   query, key, shifted ? "p_i" : "i", p - key, slopeWithValue(m));
    if (shifted) text += fmt::format(", position p_i = i + K - Q = {}", p);
    const auto exact = biasCell(bias.mode, m, p, key, bias.keyCount());
    text += "\n" + formula(bias, m, p, key, shifted, exact, biasValue(bias, m, head, query, key));
    if (const FullyMaskedRows fm = fullyMaskedRows(params); query >= fm.first && query < fm.first + fm.count)
        text += fmt::format(
            "\nfully masked row: query i = {} sits before every key (p_i = {} < 0); the softmax sees "
            "only the mask value, so this row is {}",
            query, p, fm.nan ? "NaN (mask -inf)" : fmt::format("uniform, 1/{} per key", bias.keyCount()));
    if (what == RenderWhat::Attention) {
        if (probability)
            text += "\nattention p = softmax((content + bias) / τ)[j] = " + formatValue(*probability);
        else
            text += "\nattention p: computing...";
    }
    return text;
}

std::string cellReadoutComputed(const AttentionParams& params, RenderWhat what, std::span<const double> slopes,
                                int head, std::int64_t query, std::int64_t key) {
    std::optional<double> probability;
    if (what == RenderWhat::Attention) {
        auto row = attentionRow(params, head, query);
        if (!row) return cellReadout(params, RenderWhat::Bias, slopes, head, query, key) + "\n" + row.error().message;
        if (key >= 0 && key < static_cast<std::int64_t>(row->size()))
            probability = (*row)[static_cast<std::size_t>(key)];
    }
    return cellReadout(params, what, slopes, head, query, key, probability);
}

std::string heatmapReadout(const HeatmapParams& params, std::span<const double> slopes, int head, std::int64_t query,
                           std::int64_t key, std::optional<double> probability) {
    if (params.batch.active()) return batchCellReadout(params, slopes, head, query, key, probability);
    return cellReadout(params.attention, params.what, slopes, head, query, key, probability);
}

std::string heatmapReadoutComputed(const HeatmapParams& params, std::span<const double> slopes, int head,
                                   std::int64_t query, std::int64_t key) {
    if (!params.batch.active()) return cellReadoutComputed(params.attention, params.what, slopes, head, query, key);
    std::optional<double> probability;
    if (params.what == RenderWhat::Attention)
        if (auto row = batchAttentionRow(params.attention, params.batch, params.batchRow, head, query);
            row && key >= 0 && key < static_cast<std::int64_t>(row->size()))
            probability = (*row)[static_cast<std::size_t>(key)];
    return batchCellReadout(params, slopes, head, query, key, probability);
}

}  // namespace alibi::explore
