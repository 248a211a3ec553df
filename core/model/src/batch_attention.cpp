// Batch attention and statistics: every probability from the batch row kernel
// (batch_attention_rows.hpp, also behind batchAttentionRow and the pictures), so the mask rules,
// the content and the framework softmax live in one place; the bias view reads buildBatchBias.
#include <alibi/model/attention.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/slopes.hpp>

#include <alibi/model/detail/attention_detail.hpp>
#include <alibi/model/detail/batch_attention_rows.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
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
    if (auto ok = checkRow(batch, row); !ok) return std::unexpected(ok.error());
    if (auto ok = validateBatch(params.bias, batch); !ok) return std::unexpected(ok.error());
    BatchRowValues out;
    out.heads = params.bias.slopes.heads;
    out.length = params.bias.queries;
    const std::int64_t H = out.heads, T = out.length;
    const auto cells = static_cast<std::uint64_t>(H * T * T);
    if (auto ok = checkBudget(cells * (sizeof(double) + 1), budget,
                              fmt::format("batch row {}'s attention ({} heads x {} x {}, in double)", row, H, T, T));
        !ok)
        return std::unexpected(ok.error());
    out.values.resize(cells);
    out.masked.resize(cells);
    detail::BatchAttentionRows rows(params, batch, std::move(*slopes), row);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < T; ++i) {
            const std::size_t first = out.index(h, i, 0);
            rows.probabilities(h, i, std::span(out.values).subspan(first, static_cast<std::size_t>(T)),
                               std::span(out.masked).subspan(first, static_cast<std::size_t>(T)));
        }
    return out;
}

Result<Tensor> buildBatchAttention(const AttentionParams& params, const BatchParams& batch, std::uint64_t budget,
                                   const ProgressFn& progress) {
    if (auto ok = validateBatch(params.bias, batch); !ok) return std::unexpected(ok.error());
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    const std::int64_t B = batch.batchSize(), H = params.bias.slopes.heads, T = params.bias.queries;
    auto tensor = Tensor::allocate({B, H, T, T}, params.bias.dtype, budget, "batch attention tensor");
    if (!tensor) return tensor;
    const DType dtype = params.bias.dtype;
    const std::size_t es = dtypeSize(dtype);
    std::byte* out = tensor->byteSpan().data();
    std::vector<double> probabilities(static_cast<std::size_t>(T));
    std::uint64_t cell = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        detail::BatchAttentionRows rows(params, batch, *slopes, b);
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t i = 0; i < T; ++i) {
                rows.probabilities(h, i, probabilities);
                for (const double p : probabilities) storeAs(dtype, p, out + (cell++) * es);  // rounded once
            }
        if (progress && !progress(static_cast<std::uint64_t>(b + 1), static_cast<std::uint64_t>(B)))
            return fail(ErrorCode::Cancelled, "batch attention cancelled");
    }
    tensor->metadata = attentionMetadata(params);
    for (auto& [key, value] : batchMetadata(batch)) tensor->metadata[key] = value;
    return tensor;
}

Result<StatsResult> computeBatchStats(const StatsParams& params, const BatchParams& batch, std::int64_t row,
                                      std::uint64_t budget) {
    if (params.maxRows < 0)
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
    std::vector<std::int64_t> rows =
        evenlySpacedPicks(static_cast<std::int64_t>(valid.size()), statsRowsToAverage(params));
    for (std::int64_t& pick : rows) pick = valid[static_cast<std::size_t>(pick)];
    const auto n = static_cast<std::int64_t>(rows.size());

    auto slopes = computeSlopes(params.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    StatsResult out;
    out.queryRow = queryRow;
    out.rowsAveraged = n;
    out.heads.resize(static_cast<std::size_t>(H));
    std::vector<RowStats> sampled(rows.size());
    const auto probabilities = [&](std::int64_t h, std::int64_t i) {
        return std::span<const double>(values->values).subspan(values->index(h, i, 0), static_cast<std::size_t>(T));
    };
    for (std::int64_t h = 0; h < H; ++h) {
        HeadStats& hs = out.heads[static_cast<std::size_t>(h)];
        hs.head = static_cast<int>(h);
        hs.slope = (*slopes)[static_cast<std::size_t>(h)];
        hs.halfLife = halfLife(hs.slope);
        hs.row = rowStats(probabilities(h, queryRow), queryRow);
        for (std::size_t k = 0; k < rows.size(); ++k) sampled[k] = rowStats(probabilities(h, rows[k]), rows[k]);
        hs.mean = meanRowStats(sampled);
    }
    return out;
}

}  // namespace alibi
