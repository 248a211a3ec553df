// The attention simulation: probabilities of (H, T, T) with content qk, d_k = 64, f32, on
// kThreads threads. The FLOPS counter counts the logits' matrix products, 2 * H * T * T * d_k
// per call (the softmax and the bias are not counted), so it reads as GFLOP/s of the products.
#include "bench_common.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/stats.hpp>

#include "base/parallel.hpp"
#include "model/attention_blas.hpp"
#include "model/attention_detail.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

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

// The attention path of `alibi attention` without the disk: the streaming source read in the
// export's chunks into one reused buffer, as exportTensor reads it.
namespace alibi::bench {
namespace {

void BM_AttentionSource(benchmark::State& state) {
    AttentionParams params;
    params.bias = causalF32(state.range(0), state.range(1));
    params.content.kind = ContentKind::Qk;
    params.content.dk = 64;
    std::vector<std::byte> chunk;
    for (auto _ : state) {
        auto source = attentionSource(params, kThreads);
        if (!source) {
            state.SkipWithError(source.error().message.c_str());
            break;
        }
        const std::uint64_t total = static_cast<std::uint64_t>(params.bias.slopes.heads) * params.bias.queries *
                                    params.bias.queries;
        const std::uint64_t step = (*source)->preferredChunk();
        chunk.resize(step * 4);
        for (std::uint64_t e = 0; e < total; e += step) {
            const std::uint64_t n = std::min(step, total - e);
            if (auto ok = (*source)->read(e, n, chunk.data()); !ok) {
                state.SkipWithError(ok.error().message.c_str());
                return;
            }
        }
        benchmark::DoNotOptimize(chunk.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * tensorBytes(state.range(0), state.range(1))));
}
BENCHMARK(BM_AttentionSource)->Args({16, 2048})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

// The logits product alone: every (256-row block x 2048 keys x d_k 64) product of (16, 2048), as
// the kernel issues them, on kThreads threads. FLOPS reads as GFLOP/s of the product, to
// compare with the machine's FMA peak.
void BM_LogitsProduct(benchmark::State& state) {
    const int H = static_cast<int>(state.range(0)), T = static_cast<int>(state.range(1)), dk = 64, B = 256;
    std::vector<float> q(static_cast<std::size_t>(T) * dk, 0.5f), k(static_cast<std::size_t>(T) * dk, 0.25f);
    for (auto _ : state) {
        detail::parallelFor(static_cast<std::uint64_t>(H) * (T / B), kThreads, 1, [&](std::uint64_t b0, std::uint64_t b1) {
            std::vector<float> c(static_cast<std::size_t>(B) * T);
            for (std::uint64_t b = b0; b < b1; ++b) {
                const auto i0 = static_cast<std::size_t>(b % static_cast<std::uint64_t>(T / B)) * B;
                detail::gemmNT(B, T, dk, q.data() + i0 * dk, k.data(), c.data(), T);
            }
            benchmark::DoNotOptimize(c.data());
        });
    }
    state.counters["FLOPS"] = benchmark::Counter(2.0 * H * T * static_cast<double>(T) * dk * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LogitsProduct)->Args({16, 2048})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

// The Gaussian generator alone, one thread: 2^20 float draws per iteration, by recipe 1 (the C
// library, kernel "libm") and by each kernel of recipe 2 this CPU runs (all give the same bits).
void BM_GaussianDraws(benchmark::State& state) {
    const auto which = state.range(0);
    const auto kernel = static_cast<detail::GeneratorKernel>(which == 3 ? 0 : which);
    const int generator = which == 3 ? kGeneratorLibm : kGeneratorPolynomial;
    if (!detail::generatorKernelRuns(kernel)) {
        state.SkipWithError("kernel not supported by this CPU");
        return;
    }
    state.SetLabel(which == 3 ? "libm (recipe 1)" : detail::generatorKernelName(kernel));
    std::vector<float> out(std::size_t{1} << 20);
    std::uint64_t first = 1;  // odd, as a row of the Gaussian content may start
    for (auto _ : state) {
        detail::fillNormalsWith(kernel, 7, kStreamQueries, first, out.size(), 1.0, out.data(), generator);
        first += out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_GaussianDraws)->DenseRange(0, 3)->ArgName("kernel")->UseRealTime()->Unit(benchmark::kMillisecond);

// Zero-content statistics in closed form: the table `alibi stats` prints (256 sampled rows and
// the last row per head), for the scaling table and the issue-14 target (H = 64, T = 2^20).
void BM_StatsZeroContent(benchmark::State& state) {
    StatsParams params;
    params.attention.bias = causalF32(state.range(0), state.range(1));
    for (auto _ : state) {
        auto stats = computeStats(params, kThreads);
        if (!stats) {
            state.SkipWithError(stats.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(stats->heads.data());
    }
}
BENCHMARK(BM_StatsZeroContent)
    ->ArgsProduct({{8, 64, 256}, {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20}})
    ->ArgNames({"H", "T"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace alibi::bench
