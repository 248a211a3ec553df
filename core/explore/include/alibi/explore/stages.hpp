// Which keys of an attention-stages row the mode masks, so every front end draws the stages the
// same way: the withBias and masked stages hold the mask value itself there (-1e9 by default),
// which, drawn, stretches the axis to 1e9 and flattens the ALiBi slope; they are left out and
// counted in the plot's note instead.
#pragma once

#include <alibi/model/params.hpp>

#include <cstdint>
#include <vector>

namespace alibi::explore {

// One flag per key of query row `query`: true where the bias mode masks the key (a future key
// of a causal, BLOOM or MPT row at the KV-cache-aligned position).
[[nodiscard]] std::vector<bool> stageMaskedKeys(const AttentionParams& params, std::int64_t query);

// Stages 2 (+ ALiBi bias) and 3 (masked), indices 1 and 2 of content, withBias, masked,
// probabilities, hold the mask value at masked keys; the content and the probabilities do not.
[[nodiscard]] constexpr bool stageHoldsMaskValue(int stage) {
    return stage == 1 || stage == 2;
}

}  // namespace alibi::explore
