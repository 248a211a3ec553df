// Masked keys of an attention-stages row (see the header).
#include <alibi/explore/stages.hpp>

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

}  // namespace alibi::explore
