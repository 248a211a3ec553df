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
    std::vector<std::int64_t> lengths;  // real tokens of each batch row (B = size); empty: one full row
    Padding padding = Padding::Right;
    std::vector<std::int64_t> documents;  // packed documents' lengths in every row; keys of another
                                          // document are masked (llm-foundry's sequence_id)
    std::int64_t window = 0;              // sliding window: key j allowed when |p_i - p_j| < W (0: none)
    std::int64_t prefix = 0;              // prefix-LM: the first P tokens see each other both ways
    PositionRule positions = PositionRule::Mask;

    friend bool operator==(const BatchParams&, const BatchParams&) = default;
    [[nodiscard]] std::int64_t batchSize() const {
        return lengths.empty() ? 1 : static_cast<std::int64_t>(lengths.size());
    }
    [[nodiscard]] bool active() const { return !lengths.empty() || !documents.empty() || window > 0 || prefix > 0; }
};

[[nodiscard]] std::string_view paddingName(Padding padding);
[[nodiscard]] std::optional<Padding> parsePadding(std::string_view name);
[[nodiscard]] std::string_view positionRuleName(PositionRule rule);
[[nodiscard]] std::optional<PositionRule> parsePositionRule(std::string_view name);

// Checks the batch against the bias (T = queries = keys; lengths 1..T; documents summing to at
// most T; window and prefix within 0..T) with messages naming the flag.
[[nodiscard]] Result<void> validateBatch(const BiasParams& bias, const BatchParams& batch);

// "16, 12 9": whole numbers separated by commas, spaces or semicolons, as the explorers' batch
// fields take them (an empty text is an empty list). `what` names the field in the message.
[[nodiscard]] Result<std::vector<std::int64_t>> parseLengthList(std::string_view text, std::string_view what);
// "16, 12, 9"
[[nodiscard]] std::string lengthListText(const std::vector<std::int64_t>& values);

// Keeps a batch valid for a new length T (queries = keys = T): lengths above T become T, documents
// past T are cut, window and prefix capped at T, `row` kept inside the batch. Returns a note per
// change ("batch lengths capped at T = 8"), empty when nothing moved.
[[nodiscard]] std::vector<std::string> fitBatch(BatchParams& batch, std::int64_t& row, std::int64_t length);

// Whether row b's token t is a real token (not padding), its ALiBi position, and its document.
struct TokenInfo {
    bool real = true;
    std::int64_t position = 0;
    std::int64_t document = 0;
};
[[nodiscard]] std::vector<TokenInfo> batchTokens(const BiasParams& bias, const BatchParams& batch, std::int64_t row);

// Why a cell of a batch row is masked, in the order the checks apply: a padding key, a key of
// another packed document (or a padding query when documents are given), a future key (causal
// forms, outside the prefix), a key outside the sliding window.
enum class MaskReason { None, Padding, Document, Future, Window };
// "padding key", "another document", "future key (causal)", "outside the window"; "" for None.
[[nodiscard]] std::string_view maskReasonText(MaskReason reason);

// One batch row's tokens, with what makes a cell's mask and a query's allowed keys O(1): the
// token range of every document and the last real position (mpt's reference point).
struct BatchRow {
    std::vector<TokenInfo> tokens;
    std::vector<std::int64_t> documentFirst, documentLast;  // token index range of document d
    std::int64_t realFirst = 0, realLast = -1;              // the real tokens' index range
    std::int64_t lastPosition = 0;
};
[[nodiscard]] BatchRow batchRow(const BiasParams& bias, const BatchParams& batch, std::int64_t row);

[[nodiscard]] MaskReason batchCellMask(const BiasParams& bias, const BatchParams& batch, const BatchRow& row,
                                       std::int64_t query, std::int64_t key);
// The integer n of an allowed cell (its value is slope * n under the arithmetic profile): -|d|,
// -max(d, 0), p_j or -(last - p_j) from the tokens' positions and bias.mode.
[[nodiscard]] std::int64_t batchCellMultiplier(const BiasParams& bias, const BatchRow& row, std::int64_t query,
                                               std::int64_t key);
// The keys query `query` may see form one contiguous range [first, last] (empty when first >
// last: the row is fully masked, and a softmax over it sees only the mask value).
struct KeyRange {
    std::int64_t first = 0, last = -1;
    [[nodiscard]] bool empty() const { return first > last; }
};
[[nodiscard]] KeyRange batchAllowedKeys(const BiasParams& bias, const BatchParams& batch, const BatchRow& row,
                                        std::int64_t query);

// The (B, H, T, T) tensor: allowed cells hold slope * n under bias.slopes.arith (n from the
// tokens' positions and bias.mode), masked cells the mask value. Padding keys, other documents'
// keys, keys outside the window and future keys (causal forms, outside the prefix) are masked.
[[nodiscard]] Result<Tensor> buildBatchBias(const BiasParams& bias, const BatchParams& batch,
                                            std::uint64_t budget = kDefaultMemoryBudget);

// One attention row of batch row `row`: softmax((content + bias) / temperature) over every key,
// with the batch row's masked keys at the mask value (so a fully masked row is uniform under a
// finite mask and NaN under -inf, as a framework's softmax gives).
[[nodiscard]] Result<std::vector<double>> batchAttentionRow(const AttentionParams& params, const BatchParams& batch,
                                                            std::int64_t row, std::int64_t head, std::int64_t query);

// Every batch parameter as strings for export metadata (added to biasMetadata's).
[[nodiscard]] std::map<std::string, std::string> batchMetadata(const BatchParams& batch);

}  // namespace alibi
