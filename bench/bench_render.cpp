// Head-grid rendering at 1920x1080: one finished image per iteration, the time the GUIs spend
// per change before drawing. Targets: the bias view under 8 ms at any H <= 256 and T <= 65536
// (every pixel the mean of its cells, in closed form); the attention view with q.k content at
// H = 32, T = 4096, d_k = 64 under 150 ms per change (one exact row per pixel row, the maximum
// over the keys each pixel covers; never the 69 GFLOP of the whole tensor).
#include "bench_common.hpp"

#include <alibi/render/render.hpp>

#include <benchmark/benchmark.h>

namespace alibi::bench {
namespace {

void BM_RenderGrid(benchmark::State& state) {
    HeatmapParams params;
    params.attention.bias = causalF32(state.range(0), state.range(1));
    params.what = RenderWhat::Bias;
    params.head = -1;
    params.width = 1920;
    params.height = 1080;
    for (auto _ : state) {
        auto map = renderHeatmap(params, kThreads);
        if (!map) {
            state.SkipWithError(map.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(map->image.pixels.data());
    }
}
BENCHMARK(BM_RenderGrid)
    ->Args({32, 4096})
    ->Args({256, 65536})
    ->ArgNames({"H", "T"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// A change -> a finished attention grid. warm = 1: the change is one the key vectors survive
// (a new max_bias each iteration, as a slider drag does); warm = 0: the key-vector cache is
// emptied first, as after a change of seed, d_k or T.
void BM_RenderAttentionGrid(benchmark::State& state) {
    HeatmapParams params;
    params.attention.bias = causalF32(state.range(0), state.range(1));
    params.attention.content.kind = ContentKind::Qk;
    params.attention.content.dk = 64;
    params.what = RenderWhat::Attention;
    params.head = -1;
    params.width = 1920;
    params.height = 1080;
    const bool warm = state.range(2) != 0;
    int step = 0;
    for (auto _ : state) {
        params.attention.bias.slopes.maxBias = 8.0 + 0.25 * (step++ % 8);
        if (!warm) clearHeatmapCaches();
        auto map = renderHeatmap(params, kThreads);
        if (!map) {
            state.SkipWithError(map.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(map->image.pixels.data());
    }
}
BENCHMARK(BM_RenderAttentionGrid)
    ->Args({32, 4096, 1})
    ->Args({32, 4096, 0})
    ->ArgNames({"H", "T", "warm"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace alibi::bench
