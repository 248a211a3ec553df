// Streaming export of the bias to .npy in /tmp, through the same exportTensor and biasSource
// the CLI uses: throughput in bytes per second, and the process's peak resident memory
// (getrusage ru_maxrss) as a counter. The file is deleted after each case.
#include "bench_common.hpp"

#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace alibi::bench {
namespace {

double peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void exportCase(benchmark::State& state) {
    const BiasParams params = causalF32(state.range(0), state.range(1));
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    const std::string path = fmt::format("/tmp/alibi-bench-{}-{}x{}.npy", getpid(), state.range(0), state.range(1));
    std::uint64_t progressCalls = 0;
    for (auto _ : state) {
        auto source = biasSource(params);
        if (!source) {
            state.SkipWithError(source.error().message.c_str());
            break;
        }
        ExportOptions options;
        options.format = FileFormat::Npy;
        options.progress = [&](std::uint64_t, std::uint64_t) {
            ++progressCalls;
            return true;
        };
        if (auto ok = exportTensor(**source, path, options); !ok) {
            state.SkipWithError(ok.error().message.c_str());
            break;
        }
    }
    std::remove(path.c_str());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["peak_rss_MiB"] = peakRssMiB();
    state.counters["progress_calls"] = static_cast<double>(progressCalls);
}

void BM_ExportNpy(benchmark::State& state) {
    exportCase(state);
}
BENCHMARK(BM_ExportNpy)->Args({16, 2048})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_ExportNpyLarge(benchmark::State& state) {
    exportCase(state);
}

}  // namespace

void registerLargeExport() {
    benchmark::RegisterBenchmark("BM_ExportNpyLarge", BM_ExportNpyLarge)
        ->Args({64, 8192})
        ->ArgNames({"H", "T"})
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace alibi::bench
