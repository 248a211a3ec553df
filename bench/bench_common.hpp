// Shared settings of the benchmarks: the thread count every case uses, a causal f32 bias
// parameter set for (H, T), and the head-grid frame loop that bench_render.cpp and
// bench_scaling.cpp both time.
#pragma once

#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdint>

namespace alibi::bench {

// The targets are for 2 threads, on 2-core machines; the baseline uses the same.
inline constexpr unsigned kThreads = 2;

[[nodiscard]] inline BiasParams causalF32(std::int64_t heads, std::int64_t length) {
    BiasParams p;
    p.slopes.heads = static_cast<int>(heads);
    p.queries = length;
    p.mode = BiasMode::Causal;
    p.dtype = DType::F32;
    p.layout = Layout::Hqk;
    return p;
}

// Bytes of an (H, T, T) f32 tensor.
[[nodiscard]] inline std::uint64_t tensorBytes(std::int64_t heads, std::int64_t length) {
    return static_cast<std::uint64_t>(heads) * static_cast<std::uint64_t>(length) * static_cast<std::uint64_t>(length) *
           4;
}

// User + system time of every thread of this process, in seconds.
[[nodiscard]] inline double processCpuSeconds() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

// A 1920x1080 grid of every head of a causal f32 (H, T): the bias, or attention with zero or
// q.k (d_k = 64) content.
[[nodiscard]] inline HeatmapParams gridParams(std::int64_t heads, std::int64_t length, RenderWhat what,
                                              ContentKind content = ContentKind::Zero) {
    HeatmapParams params;
    params.attention.bias = causalF32(heads, length);
    params.attention.content.kind = content;
    if (content == ContentKind::Qk) params.attention.content.dk = 64;
    params.what = what;
    params.head = -1;
    params.width = 1920;
    params.height = 1080;
    return params;
}

// One finished image per iteration. `change` runs before each frame, inside the timed loop:
// it is part of what a change costs (a new max_bias, emptied caches). process_cpu_ms: CPU time
// of every thread per frame; on a shared machine, where the wall clock mostly measures waiting
// for a core, half of it is what a frame would take on 2 idle cores with the work split evenly.
template <typename Change>
void renderFrames(benchmark::State& state, HeatmapParams& params, Change change) {
    const double cpu0 = processCpuSeconds();
    for (auto _ : state) {
        change(params);
        auto map = renderHeatmap(params, kThreads);
        if (!map) {
            state.SkipWithError(map.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(map->image.pixels.data());
    }
    if (state.iterations() > 0)
        state.counters["process_cpu_ms"] = 1e3 * (processCpuSeconds() - cpu0) / static_cast<double>(state.iterations());
}

inline void renderFrames(benchmark::State& state, HeatmapParams& params) {
    renderFrames(state, params, [](HeatmapParams&) {});
}

// Set by bench_main.cpp from --alibi_large_export, --alibi_scaling and --alibi_large_attention.
void registerLargeExport();
void registerScaling();
void registerLargeAttention();
// --alibi_lm: the BLOOM-560m-sized forward pass against NumPy (bench_lm.cpp).
void registerLm();
void registerHeavyView();

}  // namespace alibi::bench
