// Head-grid rendering of the bias view at 1920x1080: one frame per iteration, the time the
// GUIs spend per slider step before drawing. The target is under 8 ms at any H <= 256 and
// T <= 65536, because the work is per pixel, not per cell.
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

}  // namespace
}  // namespace alibi::bench
