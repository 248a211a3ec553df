// Entry point: Google Benchmark's usual flags, plus --alibi_large_export, which adds the
// 16 GiB streaming export (H = 64, T = 8192, f32 to /tmp). That case writes 16 GiB to disk
// and reports the process's peak resident memory, so it never runs by default and should run
// alone (scripts/bench --large): an earlier case's 1 GiB buffers would raise the peak.
// --alibi_scaling adds the README's scaling rows (bench_scaling.cpp), which take minutes.
// --alibi_large_attention adds issue 12's 6 GiB attention-maps rows (bench_attention_maps.cpp).
// --alibi_lm adds the BLOOM-560m-sized forward pass against NumPy (bench_lm.cpp; ~1 GB in $TMPDIR).
// --alibi_heavy_view adds issue 26's heavy view (bench_heavy_view.cpp): tens of seconds.
#include "bench_common.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--alibi_large_export") == 0) {
            alibi::bench::registerLargeExport();
            continue;
        }
        if (std::strcmp(argv[i], "--alibi_large_attention") == 0) {
            alibi::bench::registerLargeAttention();
            continue;
        }
        if (std::strcmp(argv[i], "--alibi_lm") == 0) {
            alibi::bench::registerLm();
            continue;
        }
        if (std::strcmp(argv[i], "--alibi_heavy_view") == 0) {
            alibi::bench::registerHeavyView();
            continue;
        }
        if (std::strcmp(argv[i], "--alibi_scaling") == 0) {
            alibi::bench::registerScaling();
            continue;
        }
        args.push_back(argv[i]);
    }
    int count = static_cast<int>(args.size());
    benchmark::Initialize(&count, args.data());
    if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
