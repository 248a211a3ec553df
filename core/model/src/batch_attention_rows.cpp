// Attention of a batch row: the reference softmax (ReferenceRows' content, softmaxReference)
// over the batch row's bias, so padding, documents, windows and prefixes mask keys the way a
// framework's attention mask does (masked keys hold the mask value, a fully masked row is
// uniform under a finite mask and NaN under -inf).
#include <alibi/model/detail/batch_attention_rows.hpp>

#include <alibi/model/arith.hpp>
#include <alibi/model/attention.hpp>

#include <fmt/format.h>

#include <limits>

namespace alibi {

namespace detail {

BatchAttentionRows::BatchAttentionRows(const AttentionParams& params, const BatchParams& batch,
                                       std::vector<double> slopes, std::int64_t row)
    : m_batch(batch),
      m_row(batchRow(params.bias, batch, row)),
      m_reference(params, std::move(slopes)),
      m_tails(exactSlopeTails(params.bias.slopes)) {}

void BatchAttentionRows::probabilities(std::int64_t head, std::int64_t query, std::span<double> out,
                                       std::span<std::uint8_t> masked) {
    const AttentionParams& p = m_reference.params();
    const BiasParams& bias = p.bias;
    m_reference.content(head, query, out);
    const double slope = m_reference.slope(head), tail = m_tails[static_cast<std::size_t>(head)];
    const double mask = maskLogit(bias);
    for (std::size_t j = 0; j < out.size(); ++j) {
        const auto key = static_cast<std::int64_t>(j);
        if (batchCellMask(bias, m_batch, m_row, query, key) != MaskReason::None) {
            out[j] = mask;
            if (!masked.empty()) masked[j] = 1;
            continue;
        }
        const double b =
            arithProduct(bias.slopes.arith, bias.dtype, slope, tail, batchCellMultiplier(bias, m_row, query, key));
        // A -inf bias (an f16 overflow) is a mask as the model sees it, whatever the content.
        const bool overflow = b == -std::numeric_limits<double>::infinity();
        out[j] = overflow ? b : (out[j] + b) / p.content.temperature;
        if (!masked.empty()) masked[j] = overflow ? 1 : 0;
    }
    softmaxReference(out);
}

}  // namespace detail

Result<std::vector<double>> batchAttentionRow(const AttentionParams& params, const BatchParams& batch, std::int64_t row,
                                              std::int64_t head, std::int64_t query) {
    auto slopes = validateAttention(params);
    if (!slopes) return slopes;
    if (auto ok = validateBatch(params.bias, batch); !ok) return std::unexpected(ok.error());
    if (row < 0 || row >= batch.batchSize())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("batch row {} does not exist: rows are 0..{}", row, batch.batchSize() - 1));
    if (head < 0 || head >= params.bias.slopes.heads || query < 0 || query >= params.bias.queries)
        return fail(ErrorCode::InvalidArgument, fmt::format("no cell at head {}, query {}", head, query));
    detail::BatchAttentionRows rows(params, batch, std::move(*slopes), row);
    std::vector<double> out(static_cast<std::size_t>(params.bias.keyCount()));
    rows.probabilities(head, query, out);
    return out;
}

}  // namespace alibi
