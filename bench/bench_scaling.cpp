// The README's scaling table (issue 14): how the cost grows with T = 2^10 ... 2^20 at H = 8, 64
// and 256, for a head-grid frame (bias view, 1920x1080), a q.k attention grid (same size,
// d_k = 64, key vectors drawn anew each time), and a streamed export, timed per GB over the
// first 256 MiB of the tensor (bias, zero-content attention and q.k attention, read in the
// export's chunks as exportTensor reads them, without the disk). Zero-content statistics are
// BM_StatsZeroContent (bench_attention.cpp), in the default run. These rows take minutes, so
// they run only with --alibi_scaling (scripts/bench --scaling), one repetition each.
#include "bench_common.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/render.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

namespace alibi::bench {
namespace {

constexpr std::int64_t kHeads[] = {8, 64, 256};

void BM_ScaleHeadGrid(benchmark::State& state) {
    auto params = gridParams(state.range(0), state.range(1), RenderWhat::Bias);
    renderFrames(state, params);
}

void BM_ScaleQkGrid(benchmark::State& state) {
    auto params = gridParams(state.range(0), state.range(1), RenderWhat::Attention, ContentKind::Qk);
    renderFrames(state, params, [](HeatmapParams&) { clearHeatmapCaches(); });
}

// range(2): 0 bias, 1 zero-content attention, 2 q.k attention; bytes_per_second gives the
// time per GB.
void BM_ScaleExportPerGB(benchmark::State& state) {
    AttentionParams params;
    params.bias = causalF32(state.range(0), state.range(1));
    const auto what = state.range(2);
    params.content.kind = what == 2 ? ContentKind::Qk : ContentKind::Zero;
    const std::uint64_t total = tensorBytes(state.range(0), state.range(1)) / 4;
    const std::uint64_t elements = std::min<std::uint64_t>(total, (std::uint64_t{256} << 20) / 4);
    std::vector<std::byte> chunk;
    for (auto _ : state) {
        auto source = what == 0 ? biasSource(params.bias) : attentionSource(params, kThreads);
        if (!source) {
            state.SkipWithError(source.error().message.c_str());
            break;
        }
        const std::uint64_t step =
            std::max<std::uint64_t>(1, (std::uint64_t{8} << 20) / 4 / (*source)->preferredChunk()) *
            (*source)->preferredChunk();
        chunk.resize(std::min(step, elements) * 4);
        for (std::uint64_t e = 0; e < elements; e += step) {
            const std::uint64_t n = std::min(step, elements - e);
            if (auto ok = (*source)->read(e, n, chunk.data()); !ok) {
                state.SkipWithError(ok.error().message.c_str());
                return;
            }
        }
        benchmark::DoNotOptimize(chunk.data());
    }
    state.SetLabel(what == 0 ? "bias" : what == 1 ? "attention zero" : "attention qk");
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * elements * 4));
}

}  // namespace

void registerScaling() {
    for (const auto h : kHeads)
        for (int e = 10; e <= 20; e += 2) {
            benchmark::RegisterBenchmark("BM_ScaleHeadGrid", BM_ScaleHeadGrid)
                ->Args({h, std::int64_t{1} << e})
                ->ArgNames({"H", "T"})
                ->Iterations(3)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    // q.k grid: one exact row per pixel row over all T keys, so it grows with T; 2^20 would
    // take minutes per frame on 2 cores and is left out.
    for (const auto h : kHeads)
        for (int e = 10; e <= 16; e += 2) {
            benchmark::RegisterBenchmark("BM_ScaleQkGrid", BM_ScaleQkGrid)
                ->Args({h, std::int64_t{1} << e})
                ->ArgNames({"H", "T"})
                ->Iterations(1)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    for (const std::int64_t what : {0, 1, 2})
        for (const auto h : kHeads)
            for (int e = 10; e <= 20; e += 2) {
                benchmark::RegisterBenchmark("BM_ScaleExportPerGB", BM_ScaleExportPerGB)
                    ->Args({h, std::int64_t{1} << e, what})
                    ->ArgNames({"H", "T", "what"})
                    ->Iterations(1)
                    ->UseRealTime()
                    ->Unit(benchmark::kMillisecond);
            }
}

}  // namespace alibi::bench
