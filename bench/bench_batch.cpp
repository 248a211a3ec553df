// Batches (model/batch_attention.hpp): the (B, H, T, T) probabilities `alibi attention --lengths`
// writes, the statistics of one batch row `alibi stats --lengths` prints, and one query row as
// the explorers' read-outs ask for it. Four rows of T = 512 with left padding, H = 16, f32;
// content zero (the mask and bias path alone) or Gaussian (content = 1).
#include "bench_common.hpp"

#include <alibi/model/batch.hpp>
#include <alibi/model/batch_attention.hpp>

#include <benchmark/benchmark.h>

namespace alibi::bench {
namespace {

constexpr std::int64_t kHeads = 16, kLength = 512;

AttentionParams batchAttention(std::int64_t content) {
    AttentionParams params;
    params.bias = causalF32(kHeads, kLength);
    params.content.kind = content == 0 ? ContentKind::Zero : ContentKind::Gaussian;
    return params;
}

BatchParams paddedBatch() {
    BatchParams batch;
    batch.lengths = {kLength, 384, 256, 128};
    batch.padding = Padding::Left;
    return batch;
}

void BM_BatchAttention(benchmark::State& state) {
    const AttentionParams params = batchAttention(state.range(0));
    const BatchParams batch = paddedBatch();
    for (auto _ : state) {
        auto tensor = buildBatchAttention(params, batch);
        if (!tensor) {
            state.SkipWithError(tensor.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(tensor->bytes());
    }
}
BENCHMARK(BM_BatchAttention)->DenseRange(0, 1)->ArgName("content")->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_BatchStats(benchmark::State& state) {
    StatsParams params;
    params.attention = batchAttention(state.range(0));
    const BatchParams batch = paddedBatch();
    for (auto _ : state) {
        auto stats = computeBatchStats(params, batch, 1);
        if (!stats) {
            state.SkipWithError(stats.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(stats->heads.data());
    }
}
BENCHMARK(BM_BatchStats)->DenseRange(0, 1)->ArgName("content")->UseRealTime()->Unit(benchmark::kMillisecond);

// One query row of one head, as a hover read-out asks for it (the row kernel alone).
void BM_BatchAttentionRow(benchmark::State& state) {
    const AttentionParams params = batchAttention(state.range(0));
    const BatchParams batch = paddedBatch();
    for (auto _ : state) {
        auto row = batchAttentionRow(params, batch, 1, kHeads - 1, kLength - 1);
        if (!row) {
            state.SkipWithError(row.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(row->data());
    }
}
BENCHMARK(BM_BatchAttentionRow)->DenseRange(0, 1)->ArgName("content")->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace alibi::bench
