// Head-grid rendering at 1920x1080: one finished image per iteration, the time the GUIs spend
// per change before drawing. Targets: the bias view and the zero-content attention view under
// 8 ms at any H <= 256 and T <= 1,048,576 (every pixel the mean, or the maximum, of its cells,
// in closed form); the attention view with q.k content at H = 32, T = 4096, d_k = 64 under
// 150 ms per change (one exact row per pixel row, the maximum over the keys each pixel
// covers; never the 69 GFLOP of the whole tensor).
#include "bench_common.hpp"

#include <alibi/render/render.hpp>

#include <benchmark/benchmark.h>

namespace alibi::bench {
namespace {

void BM_RenderGrid(benchmark::State& state) {
    auto params = gridParams(state.range(0), state.range(1), RenderWhat::Bias);
    renderFrames(state, params);
}
BENCHMARK(BM_RenderGrid)
    ->Args({32, 4096})
    ->Args({256, 65536})
    ->Args({256, 1048576})
    ->ArgNames({"H", "T"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Attention without content: each row a truncated geometric distribution, each pixel the
// maximum of its keys in closed form.
void BM_RenderZeroAttentionGrid(benchmark::State& state) {
    auto params = gridParams(state.range(0), state.range(1), RenderWhat::Attention);
    renderFrames(state, params);
}
BENCHMARK(BM_RenderZeroAttentionGrid)
    ->Args({32, 4096})
    ->Args({256, 1048576})
    ->ArgNames({"H", "T"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// A change -> a finished attention grid. warm = 1: the change is one the key vectors survive
// (a new max_bias each iteration, as a slider drag does); warm = 0: the key-vector cache is
// emptied first, as after a change of seed, d_k or T.
void BM_RenderAttentionGrid(benchmark::State& state) {
    auto params = gridParams(state.range(0), state.range(1), RenderWhat::Attention, ContentKind::Qk);
    const bool warm = state.range(2) != 0;
    int step = 0;
    renderFrames(state, params, [&](HeatmapParams& p) {
        p.attention.bias.slopes.maxBias = 8.0 + 0.25 * (step++ % 8);
        if (!warm) clearHeatmapCaches();
    });
}
BENCHMARK(BM_RenderAttentionGrid)
    ->Args({32, 4096, 1})
    ->Args({32, 4096, 0})
    ->ArgNames({"H", "T", "warm"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace alibi::bench
