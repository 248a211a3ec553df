// Batch attention and statistics: each batch row's bias from buildBatchBias (so the mask rules
// live in one place), the content of the reference path, and the framework softmax.
#include <alibi/model/attention.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/slopes.hpp>

#include "model/attention_detail.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace alibi {

namespace {

// The batch reduced to row `row` alone: every row's tokens depend only on its own length.
BatchParams singleRow(const BatchParams& batch, std::int64_t row) {
    BatchParams one = batch;
    if (!batch.lengths.empty()) one.lengths = {batch.lengths[static_cast<std::size_t>(row)]};
    return one;
}

Result<void> checkRow(const BatchParams& batch, std::int64_t row) {
    if (row < 0 || row >= batch.batchSize())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--batch-row must be between 0 and {} (B - 1: the batch has {} row(s)), got {}",
                                batch.batchSize() - 1, batch.batchSize(), row));
    return {};
}

// Doubles of a batch row's bias with the mask given; masked cells hold it.
Result<std::vector<double>> rowBiasDoubles(const BiasParams& bias, const BatchParams& batch, std::int64_t row,
                                           std::uint64_t budget) {
    auto tensor = buildBatchBias(bias, singleRow(batch, row), budget);
    if (!tensor) return std::unexpected(tensor.error());
    std::vector<double> out(tensor->size());
    for (std::uint64_t n = 0; n < tensor->size(); ++n) out[n] = tensor->at(n);
    return out;
}

}  // namespace

Result<BatchRowValues> batchRowBias(const BiasParams& bias, const BatchParams& batch, std::int64_t row,
                                    std::uint64_t budget) {
    if (auto ok = checkRow(batch, row); !ok) return std::unexpected(ok.error());
    auto values = rowBiasDoubles(bias, batch, row, budget);
    if (!values) return std::unexpected(values.error());
    // The same row under a -inf mask tells masked cells from any stored value.
    BiasParams marker = bias;
    marker.mask = MaskValue{MaskValue::Kind::NegInf, 0};
    auto marked = rowBiasDoubles(marker, batch, row, budget);
    if (!marked) return std::unexpected(marked.error());
    BatchRowValues out;
    out.heads = bias.slopes.heads;
    out.length = bias.queries;
    out.values = std::move(*values);
    out.masked.resize(out.values.size());
    for (std::size_t n = 0; n < out.masked.size(); ++n)
        out.masked[n] = (*marked)[n] == -std::numeric_limits<double>::infinity() ? 1 : 0;
    return out;
}

Result<BatchRowValues> batchRowAttention(const AttentionParams& params, const BatchParams& batch, std::int64_t row,
                                         std::uint64_t budget) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    auto bias = batchRowBias(params.bias, batch, row, budget);
    if (!bias) return std::unexpected(bias.error());
    const std::int64_t H = bias->heads, T = bias->length;
    const double mask = detail::maskLogit(params.bias);
    const double temperature = params.content.temperature;
    detail::ReferenceRows reference(params, std::move(*slopes));
    std::vector<double> logits(static_cast<std::size_t>(T));
    for (std::int64_t h = 0; h < H; ++h) {
        for (std::int64_t i = 0; i < T; ++i) {
            reference.content(h, i, logits);
            for (std::int64_t j = 0; j < T; ++j) {
                const std::size_t n = bias->index(h, i, j);
                double& x = logits[static_cast<std::size_t>(j)];
                const double b = bias->values[n];
                // As the single-sequence path: masked keys hold the mask value itself (masked_fill),
                // and a -inf bias (an f16 overflow) is a mask whatever the content.
                x = bias->masked[n] ? mask : b == -std::numeric_limits<double>::infinity() ? b : (x + b) / temperature;
            }
            detail::softmaxReference(logits);
            std::copy(logits.begin(), logits.end(), bias->values.begin() + static_cast<std::ptrdiff_t>(bias->index(h, i, 0)));
        }
    }
    return bias;
}

Result<Tensor> buildBatchAttention(const AttentionParams& params, const BatchParams& batch, std::uint64_t budget,
                                   const ProgressFn& progress) {
    if (auto ok = validateBatch(params.bias, batch); !ok) return std::unexpected(ok.error());
    const std::int64_t B = batch.batchSize(), H = params.bias.slopes.heads, T = params.bias.queries;
    auto tensor = Tensor::allocate({B, H, T, T}, params.bias.dtype, budget, "batch attention tensor");
    if (!tensor) return tensor;
    const std::uint64_t perRow = static_cast<std::uint64_t>(H * T * T);
    for (std::int64_t b = 0; b < B; ++b) {
        auto row = batchRowAttention(params, batch, b, budget);
        if (!row) return std::unexpected(row.error());
        const std::uint64_t base = static_cast<std::uint64_t>(b) * perRow;
        for (std::uint64_t n = 0; n < perRow; ++n) tensor->set(base + n, row->values[n]);
        if (progress && !progress(static_cast<std::uint64_t>(b + 1), static_cast<std::uint64_t>(B)))
            return fail(ErrorCode::Cancelled, "batch attention cancelled");
    }
    tensor->metadata = attentionMetadata(params);
    for (auto& [key, value] : batchMetadata(batch)) tensor->metadata[key] = value;
    return tensor;
}

Result<StatsResult> computeBatchStats(const StatsParams& params, const BatchParams& batch, std::int64_t row,
                                      std::uint64_t budget) {
    if (params.maxRows < 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the number of rows to average (maxRows) must be at least 1, got {}", params.maxRows));
    auto values = batchRowAttention(params.attention, batch, row, budget);
    if (!values) return std::unexpected(values.error());
    const std::int64_t H = values->heads, T = values->length;
    const auto tokens = batchTokens(params.attention.bias, batch, row);

    // Query rows that are real tokens with at least one allowed key (head 0's mask is every head's).
    std::vector<std::int64_t> valid;
    for (std::int64_t i = 0; i < T; ++i) {
        if (!tokens[static_cast<std::size_t>(i)].real) continue;
        bool any = false;
        for (std::int64_t j = 0; j < T && !any; ++j) any = values->masked[values->index(0, i, j)] == 0;
        if (any) valid.push_back(i);
    }
    if (valid.empty())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("batch row {} has no real token that sees a key: nothing to measure", row));
    const std::int64_t queryRow = params.queryRow == -1 ? valid.back() : params.queryRow;
    if (queryRow < 0 || queryRow >= T)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query must be between 0 and {} (or -1 for the last real token), got {}", T - 1,
                                params.queryRow));
    const auto count = static_cast<std::int64_t>(valid.size());
    const std::int64_t n = std::min(count, params.maxRows);
    std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k)
        rows[static_cast<std::size_t>(k)] = valid[static_cast<std::size_t>(
            n == count ? k : n == 1 ? count - 1 : (k * (count - 1) + (n - 1) / 2) / (n - 1))];

    auto slopes = computeSlopes(params.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    StatsResult out;
    out.queryRow = queryRow;
    out.rowsAveraged = n;
    out.heads.resize(static_cast<std::size_t>(H));
    const auto probabilities = [&](std::int64_t h, std::int64_t i) {
        return std::span<const double>(values->values).subspan(values->index(h, i, 0), static_cast<std::size_t>(T));
    };
    for (std::int64_t h = 0; h < H; ++h) {
        HeadStats& hs = out.heads[static_cast<std::size_t>(h)];
        hs.head = static_cast<int>(h);
        hs.slope = (*slopes)[static_cast<std::size_t>(h)];
        hs.halfLife = halfLife(hs.slope);
        hs.row = rowStats(probabilities(h, queryRow), queryRow);
        for (const std::int64_t i : rows) {
            const RowStats r = rowStats(probabilities(h, i), i);
            hs.mean.entropy += r.entropy;
            hs.mean.meanDistance += r.meanDistance;
            hs.mean.distance50 += r.distance50;
            hs.mean.distance90 += r.distance90;
        }
        const auto dn = static_cast<double>(n);
        hs.mean.entropy /= dn;
        hs.mean.meanDistance /= dn;
        hs.mean.distance50 /= dn;
        hs.mean.distance90 /= dn;
    }
    return out;
}

}  // namespace alibi
