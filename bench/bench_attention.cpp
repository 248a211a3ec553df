// The attention simulation: probabilities of (H, T, T) with content qk, d_k = 64, f32, on
// kThreads threads. The FLOPS counter counts the logits' matrix products, 2 * H * T * T * d_k
// per call (the softmax and the bias are not counted), so it reads as GFLOP/s of the products.
#include "bench_common.hpp"

#include <alibi/model/attention.hpp>

#include <benchmark/benchmark.h>

namespace alibi::bench {
namespace {

void BM_Attention(benchmark::State& state) {
    AttentionParams params;
    params.bias = causalF32(state.range(0), state.range(1));
    params.content.kind = ContentKind::Qk;
    params.content.dk = 64;
    for (auto _ : state) {
        auto probs = computeAttention(params, std::uint64_t{4} << 30, kThreads);
        if (!probs) {
            state.SkipWithError(probs.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(probs->bytes());
    }
    const double flops = 2.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.range(1)) *
                         static_cast<double>(state.range(1)) * params.content.dk;
    state.counters["FLOPS"] = benchmark::Counter(flops * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * tensorBytes(state.range(0), state.range(1))));
}
BENCHMARK(BM_Attention)->Args({16, 2048})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace alibi::bench
