// Issue 12's targets for a trained model's saved attention maps: opening a file, redrawing the
// layer x head grid at 1920x1080 when the layer changes, and the per-head fit's throughput.
//
// By default the maps are a synthetic (L, 16, 2048, 2048) f32 .npy in memory (each head the
// ALiBi prior of its slope), so the rows time the code, not the disk. --alibi_large_attention
// adds the issue's own case: a 6 GiB file (L = 24, H = 16, T = 2048, f32) written once to
// /tmp (or $ALIBI_BENCH_ATTENTION) and reused, opened from disk; those rows report the
// resident memory and the fit's GB/s, to set beside the disk's read speed.
#include "bench_common.hpp"

#include <alibi/analysis/head_fit.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/tensor_io.hpp>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace alibi::bench {
namespace {

constexpr int kHeads = 16;
constexpr std::int64_t kLength = 2048;

double residentMiB(const char* field) {  // "VmRSS:" now, "VmHWM:" the peak
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field, 0) == 0) return std::strtod(line.c_str() + std::strlen(field), nullptr) / 1024.0;
    return 0;
}

// One head's (T, T) causal prior softmax(-m (i - j)) in f32, m = 2^(-8 (h + 1) / H).
std::vector<float> priorHead(int head) {
    const double slope = std::exp2(-8.0 * (head + 1) / kHeads);
    std::vector<float> out(static_cast<std::size_t>(kLength * kLength), 0.0f);
    for (std::int64_t i = 0; i < kLength; ++i) {
        double z = 0;
        for (std::int64_t d = 0; d <= i; ++d) z += std::exp(-slope * static_cast<double>(d));
        for (std::int64_t j = 0; j <= i; ++j)
            out[static_cast<std::size_t>(i * kLength + j)] =
                static_cast<float>(std::exp(-slope * static_cast<double>(i - j)) / z);
    }
    return out;
}

std::string npyFile(int layers) {
    std::string file = npyHeader({layers, kHeads, kLength, kLength}, DType::F32);
    std::vector<std::vector<float>> heads;  // the same 16 heads in every layer
    for (int h = 0; h < kHeads; ++h) heads.push_back(priorHead(h));
    for (int l = 0; l < layers; ++l)
        for (const auto& head : heads)
            file.append(reinterpret_cast<const char*>(head.data()), head.size() * sizeof(float));
    return file;
}

const std::string& inMemoryFile() {
    static const std::string file = npyFile(2);
    return file;
}

std::span<const std::byte> asBytes(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// The layer switch as the explorers do it: the whole layer's grid at 1920x1080.
void renderLayers(benchmark::State& state, const AttentionMaps& maps) {
    MapsHeatmapParams params;
    params.width = 1920;
    params.height = 1080;
    int layer = 0;
    const double cpuStart = processCpuSeconds();
    for (auto _ : state) {
        params.layerIndex = layer;
        layer = (layer + 1) % maps.layers();
        auto map = renderAttentionMaps(maps, params, kThreads);
        if (!map) {
            state.SkipWithError(map.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(map->image.pixels.data());
    }
    state.counters["cpu_ms_per_frame"] =
        1e3 * (processCpuSeconds() - cpuStart) / static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
    state.counters["rss_MiB"] = residentMiB("VmRSS:");
}

void fitLayers(benchmark::State& state, const AttentionMaps& maps) {
    HeadFitOptions options;
    options.threads = kThreads;
    const double cpuStart = processCpuSeconds();
    for (auto _ : state) {
        auto fits = fitHeads(maps, options);
        if (!fits) {
            state.SkipWithError(fits.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(fits->data());
    }
    const double elements = static_cast<double>(maps.layers()) * maps.heads() * static_cast<double>(maps.queries()) *
                            static_cast<double>(maps.keys());
    state.SetBytesProcessed(
        static_cast<std::int64_t>(static_cast<double>(state.iterations()) * static_cast<double>(maps.mapBytes())));
    const double done = static_cast<double>(state.iterations()) * elements;
    state.counters["ns_per_element"] =
        benchmark::Counter(done * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    // CPU nanoseconds of all threads per element: with T threads the wall clock could reach this / T.
    state.counters["cpu_ns_per_element"] = 1e9 * (processCpuSeconds() - cpuStart) / done;
    state.counters["peak_rss_MiB"] = residentMiB("VmHWM:");
}

void BM_AttentionMapsLayerSwitch(benchmark::State& state) {
    auto maps = AttentionMaps::fromBytes(asBytes(inMemoryFile()), false);
    if (!maps) return state.SkipWithError(maps.error().message.c_str());
    renderLayers(state, *maps);
}
BENCHMARK(BM_AttentionMapsLayerSwitch)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_FitHeads(benchmark::State& state) {
    auto maps = AttentionMaps::fromBytes(asBytes(inMemoryFile()), false);
    if (!maps) return state.SkipWithError(maps.error().message.c_str());
    fitLayers(state, *maps);
}
BENCHMARK(BM_FitHeads)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- the 6 GiB file (--alibi_large_attention) ----

std::string largePath() {
    const char* path = std::getenv("ALIBI_BENCH_ATTENTION");
    return path && *path ? path : "/tmp/alibi-bench-attention-24x16x2048x2048.npy";
}

bool ensureLargeFile(benchmark::State& state) {
    constexpr int kLayers = 24;
    const std::string path = largePath();
    const std::uint64_t size = npyHeader({kLayers, kHeads, kLength, kLength}, DType::F32).size() +
                               std::uint64_t{kLayers} * kHeads * kLength * kLength * 4;
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) == size) return true;
    std::fprintf(stderr, "writing %s (6 GiB, once)...\n", path.c_str());
    const std::string tmp = path + ".partial";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << npyHeader({kLayers, kHeads, kLength, kLength}, DType::F32);
        std::vector<std::vector<float>> heads;
        for (int h = 0; h < kHeads; ++h) heads.push_back(priorHead(h));
        for (int l = 0; l < kLayers; ++l)
            for (const auto& head : heads)
                out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head.size() * 4));
        if (!out) {
            state.SkipWithError(fmt::format("cannot write {}", tmp).c_str());
            std::remove(tmp.c_str());
            return false;
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) state.SkipWithError(fmt::format("cannot rename {}: {}", tmp, ec.message()).c_str());
    return !ec;
}

void BM_AttentionMapsOpenLarge(benchmark::State& state) {
    if (!ensureLargeFile(state)) return;
    const double before = residentMiB("VmRSS:");
    double after = 0;
    for (auto _ : state) {
        auto maps = AttentionMaps::open(largePath());
        if (!maps) return state.SkipWithError(maps.error().message.c_str());
        after = residentMiB("VmRSS:");
        benchmark::DoNotOptimize(maps->layers());
    }
    state.counters["rss_growth_MiB"] = after - before;
    state.counters["rss_MiB"] = after;
}

void BM_AttentionMapsLayerSwitchLarge(benchmark::State& state) {
    if (!ensureLargeFile(state)) return;
    auto maps = AttentionMaps::open(largePath());
    if (!maps) return state.SkipWithError(maps.error().message.c_str());
    renderLayers(state, *maps);
}

void BM_FitHeadsLarge(benchmark::State& state) {
    if (!ensureLargeFile(state)) return;
    auto maps = AttentionMaps::open(largePath());
    if (!maps) return state.SkipWithError(maps.error().message.c_str());
    fitLayers(state, *maps);
}

}  // namespace

void registerLargeAttention() {
    benchmark::RegisterBenchmark("BM_AttentionMapsOpenLarge", BM_AttentionMapsOpenLarge)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_AttentionMapsLayerSwitchLarge", BM_AttentionMapsLayerSwitchLarge)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_FitHeadsLarge", BM_FitHeadsLarge)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace alibi::bench
