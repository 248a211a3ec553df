// Masked keys of an attention-stages row (see the header).
#include <alibi/explore/stages.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::explore {

std::vector<bool> stageMaskedKeys(const AttentionParams& params, std::int64_t query) {
    const BiasParams& b = params.bias;
    const std::int64_t keys = b.keyCount();
    std::vector<bool> masked(static_cast<std::size_t>(keys > 0 ? keys : 0), false);
    if (!modeMasks(b.mode)) return masked;
    const std::int64_t position = b.queryPosition(query);
    for (std::int64_t j = 0; j < keys; ++j) masked[static_cast<std::size_t>(j)] = j > position;
    return masked;
}

StageKeySpan stageKeySpan(const AttentionParams& params, std::int64_t query) {
    const std::int64_t keys = params.bias.keyCount();
    StageKeySpan span{0, std::max<std::int64_t>(keys - 1, 0)};
    if (modeMasks(params.bias.mode))
        span.last = std::clamp<std::int64_t>(params.bias.queryPosition(query), 0, span.last);
    return span;
}

std::string stageNote(const AttentionParams& params, std::int64_t query, int stage, const std::vector<double>& values) {
    const StageKeySpan span = stageKeySpan(params, query);
    const std::vector<bool> masked = stageMaskedKeys(params, query);
    const auto keys = static_cast<std::int64_t>(values.size());
    std::vector<std::string> parts;
    // The keys after the span hold the mask value in stages 2 and 3: not drawn, said here (the
    // caption says every panel leaves them out).
    if (stageHoldsMaskValue(stage) && span.last + 1 < keys)
        parts.push_back(fmt::format("keys {}-{}: masked ({})", span.last + 1, keys - 1, maskName(params.bias.mask)));
    std::int64_t infinite = 0;
    for (std::int64_t j = span.first; j <= span.last && j < keys; ++j)
        if (std::isinf(values[static_cast<std::size_t>(j)]) && !masked[static_cast<std::size_t>(j)]) ++infinite;
    if (infinite > 0) parts.push_back(fmt::format("{} key{} at -inf", infinite, infinite == 1 ? "" : "s"));
    if (stage == 0 && params.content.kind == ContentKind::Zero) parts.push_back("all 0 (zero content)");
    std::string note;
    for (const std::string& part : parts) note += (note.empty() ? "" : " · ") + part;
    return note;
}

}  // namespace alibi::explore
