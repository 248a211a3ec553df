// Batch attention and statistics against the single-sequence path: a batch of one full row is
// the plain tensor, and padding only adds masked keys.
#include <alibi/model/attention.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/stats.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace alibi;

namespace {

AttentionParams params(std::int64_t t, ContentKind content = ContentKind::Gaussian) {
    AttentionParams p;
    p.bias.slopes.heads = 4;
    p.bias.queries = t;
    p.bias.dtype = DType::F64;
    p.content.kind = content;
    p.content.seed = 7;
    return p;
}

}  // namespace

TEST(BatchAttention, OneFullRowIsTheSingleSequenceAttention) {
    const AttentionParams p = params(9);
    BatchParams batch;
    batch.lengths = {9};
    auto row = batchRowAttention(p, batch, 0);
    ASSERT_TRUE(row.has_value()) << row.error().message;
    for (int h = 0; h < 4; ++h)
        for (std::int64_t i = 0; i < 9; ++i) {
            auto want = attentionRow(p, h, i);
            ASSERT_TRUE(want.has_value());
            for (std::int64_t j = 0; j < 9; ++j)
                EXPECT_NEAR(row->values[row->index(h, i, j)], (*want)[static_cast<std::size_t>(j)], 1e-15)
                    << h << " " << i << " " << j;
        }
}

TEST(BatchAttention, PaddingKeysGetNothingAndPaddingQueriesAreFullyMasked) {
    AttentionParams p = params(6);
    p.bias.mask.kind = MaskValue::Kind::NegInf;
    BatchParams batch;
    batch.lengths = {6, 2};
    batch.padding = Padding::Left;
    auto tensor = buildBatchAttention(p, batch);
    ASSERT_TRUE(tensor.has_value()) << tensor.error().message;
    ASSERT_EQ(tensor->shape(), (Shape{2, 4, 6, 6}));
    const auto at = [&](std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) {
        return tensor->at(static_cast<std::uint64_t>(((b * 4 + h) * 6 + i) * 6 + j));
    };
    for (std::int64_t h = 0; h < 4; ++h) {
        for (std::int64_t i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(at(1, h, i, 0))) << "padding query " << i;
        for (std::int64_t i = 4; i < 6; ++i) {
            double sum = 0;
            for (std::int64_t j = 0; j < 6; ++j) {
                if (j < 4) {
                    EXPECT_EQ(at(1, h, i, j), 0.0) << "padding key " << j;
                }
                sum += at(1, h, i, j);
            }
            EXPECT_NEAR(sum, 1.0, 1e-12);
        }
    }
}

TEST(BatchAttention, StatsOfAFullRowAreTheSingleSequenceStats) {
    StatsParams s;
    s.attention = params(12, ContentKind::Zero);
    s.queryRow = 8;
    BatchParams batch;
    batch.lengths = {12, 5};
    auto got = computeBatchStats(s, batch, 0);
    auto want = computeStats(s);
    ASSERT_TRUE(got.has_value() && want.has_value());
    EXPECT_EQ(got->rowsAveraged, want->rowsAveraged);
    for (std::size_t h = 0; h < 4; ++h) {
        EXPECT_NEAR(got->heads[h].row.entropy, want->heads[h].row.entropy, 1e-12);
        EXPECT_NEAR(got->heads[h].mean.meanDistance, want->heads[h].mean.meanDistance, 1e-12);
        EXPECT_EQ(got->heads[h].row.distance90, want->heads[h].row.distance90);
    }
    auto bad = computeBatchStats(s, batch, 2);
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("--batch-row"), std::string::npos);
}

TEST(BatchAttention, TheTensorTheRowValuesAndOneRowAreTheSameNumbers) {
    // Padding, packed documents and a window at once: every path reads the one row kernel, so
    // the (B, H, T, T) tensor, batchRowAttention and batchAttentionRow agree bit for bit (f64).
    const AttentionParams p = params(10);
    BatchParams batch;
    batch.lengths = {10, 7};
    batch.padding = Padding::Left;
    batch.documents = {4, 6};
    batch.window = 5;
    auto tensor = buildBatchAttention(p, batch);
    ASSERT_TRUE(tensor.has_value()) << tensor.error().message;
    for (std::int64_t b = 0; b < 2; ++b) {
        auto values = batchRowAttention(p, batch, b);
        ASSERT_TRUE(values.has_value()) << values.error().message;
        auto bias = batchRowBias(p.bias, batch, b);
        ASSERT_TRUE(bias.has_value()) << bias.error().message;
        for (int h = 0; h < 4; ++h)
            for (std::int64_t i = 0; i < 10; ++i) {
                auto row = batchAttentionRow(p, batch, b, h, i);
                ASSERT_TRUE(row.has_value()) << row.error().message;
                bool sees = false;  // a fully masked row (a padding query) is uniform instead
                for (std::int64_t j = 0; j < 10; ++j) sees = sees || bias->masked[bias->index(h, i, j)] == 0;
                for (std::int64_t j = 0; j < 10; ++j) {
                    const std::size_t n = values->index(h, i, j);
                    const double fromTensor = tensor->at(static_cast<std::uint64_t>(b) * 400 + n);
                    const double fromRow = (*row)[static_cast<std::size_t>(j)];
                    const auto where = ::testing::Message() << b << " " << h << " " << i << " " << j;
                    EXPECT_EQ(values->values[n], fromRow) << where;
                    EXPECT_EQ(fromTensor, fromRow) << where;
                    // The attention's masked keys are the bias's, and get nothing in a row that sees a key.
                    EXPECT_EQ(values->masked[n], bias->masked[n]) << where;
                    if (values->masked[n] != 0 && sees) {
                        EXPECT_EQ(fromRow, 0.0) << where;
                    }
                }
            }
    }
}
