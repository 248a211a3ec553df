// Which keys of an attention-stages row the mode masks, so every front end draws the stages the
// same way: the withBias and masked stages hold the mask value itself there (-1e9 by default),
// which, drawn, stretches the axis to 1e9 and flattens the ALiBi slope; they are left out and
// counted in the plot's note instead.
#pragma once

#include <alibi/model/params.hpp>

#include <cstdint>
#include <string>
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

// The keys every stage panel spans, first..last: for a mode that masks, the keys up to the
// query's position (the rest are masked in every stage, and 0 after softmax), else every key. All
// four panels use this one span, so a key sits at the same x in each.
struct StageKeySpan {
    std::int64_t first = 0, last = 0;
};
[[nodiscard]] StageKeySpan stageKeySpan(const AttentionParams& params, std::int64_t query);

// The line under stage panel `stage` (0..3), whose row of every key is `values`: for stages 2 and
// 3, "keys 41-127: masked (-1e9)" (the keys after stageKeySpan, which hold the mask value and are
// not drawn); "2 keys at -inf"; for zero content's logits "all 0 (zero content)", so an empty
// looking panel says what it is; "" when there is nothing to say.
[[nodiscard]] std::string stageNote(const AttentionParams& params, std::int64_t query, int stage,
                                    const std::vector<double>& values);

}  // namespace alibi::explore
