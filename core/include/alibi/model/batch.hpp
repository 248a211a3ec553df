// Batches as real models build them: B sequences padded to one length T (left or right), packed
// documents, sliding windows and prefix-LM, composed with any bias form and arithmetic profile.
// The tensor is (B, H, T, T) in bhqk order: batch row b, head h, query i, key j.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace alibi {

enum class Padding { Right, Left };
// Where ALiBi positions come from. Mask: BLOOM's (cumsum(attention_mask) - 1) * mask, so the first
// real token is at 0 whatever the padding; naive: the raw index (the left-padding bug); document:
// from the mask, restarting at 0 in every packed document.
enum class PositionRule { Mask, Naive, Document };

struct BatchParams {
    std::vector<std::int64_t> lengths;    // real tokens of each batch row (B = size); empty: one full row
    Padding padding = Padding::Right;
    std::vector<std::int64_t> documents;  // packed documents' lengths in every row; keys of another
                                          // document are masked (llm-foundry's sequence_id)
    std::int64_t window = 0;              // sliding window: key j allowed when |p_i - p_j| < W (0: none)
    std::int64_t prefix = 0;              // prefix-LM: the first P tokens see each other both ways
    PositionRule positions = PositionRule::Mask;

    friend bool operator==(const BatchParams&, const BatchParams&) = default;
    [[nodiscard]] std::int64_t batchSize() const { return lengths.empty() ? 1 : static_cast<std::int64_t>(lengths.size()); }
    [[nodiscard]] bool active() const {
        return !lengths.empty() || !documents.empty() || window > 0 || prefix > 0;
    }
};

[[nodiscard]] std::string_view paddingName(Padding padding);
[[nodiscard]] std::optional<Padding> parsePadding(std::string_view name);
[[nodiscard]] std::string_view positionRuleName(PositionRule rule);
[[nodiscard]] std::optional<PositionRule> parsePositionRule(std::string_view name);

// Checks the batch against the bias (T = queries = keys; lengths 1..T; documents summing to at
// most T; window and prefix within 0..T) with messages naming the flag.
[[nodiscard]] Result<void> validateBatch(const BiasParams& bias, const BatchParams& batch);

// Whether row b's token t is a real token (not padding), its ALiBi position, and its document.
struct TokenInfo {
    bool real = true;
    std::int64_t position = 0;
    std::int64_t document = 0;
};
[[nodiscard]] std::vector<TokenInfo> batchTokens(const BiasParams& bias, const BatchParams& batch, std::int64_t row);

// The (B, H, T, T) tensor: allowed cells hold slope * n under bias.slopes.arith (n from the
// tokens' positions and bias.mode), masked cells the mask value. Padding keys, other documents'
// keys, keys outside the window and future keys (causal forms, outside the prefix) are masked.
[[nodiscard]] Result<Tensor> buildBatchBias(const BiasParams& bias, const BatchParams& batch,
                                            std::uint64_t budget = kDefaultMemoryBudget);

// Every batch parameter as strings for export metadata (added to biasMetadata's).
[[nodiscard]] std::map<std::string, std::string> batchMetadata(const BatchParams& batch);

}  // namespace alibi
