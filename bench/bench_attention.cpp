// The attention simulation: probabilities of (H, T, T) with content qk, d_k = 64, f32, on
// kThreads threads. The FLOPS counter counts the logits' matrix products, 2 * H * T * T * d_k
// per call (the softmax and the bias are not counted), so it reads as GFLOP/s of the products.
#include "bench_common.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/stats.hpp>

#include <alibi/base/parallel.hpp>
#include <alibi/model/detail/attention_blas.hpp>
#include <alibi/model/detail/attention_detail.hpp>
#include "attention_product.hpp"

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <time.h>

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics trip -Wuninitialized inside the header (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
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
    state.counters["FLOPS"] =
        benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * tensorBytes(state.range(0), state.range(1))));
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
        const std::uint64_t total =
            static_cast<std::uint64_t>(params.bias.slopes.heads) * params.bias.queries * params.bias.queries;
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
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * tensorBytes(state.range(0), state.range(1))));
}
BENCHMARK(BM_AttentionSource)->Args({16, 2048})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

// The machine's fp32 FMA peak on `threads` cores: cores x GHz (the first "cpu MHz" of
// /proc/cpuinfo) x 16 AVX-512 lanes x 2 FMA units x 2 FLOP per FMA. Two 512-bit FMA units is
// what Xeon Scalable parts from Skylake-SP Gold on have; the figure is an upper bound where
// the clock runs below the nominal one under AVX-512 load. 0 when the clock is unknown.
double fmaPeak(unsigned threads) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("cpu MHz", 0) == 0) {
            const auto colon = line.find(':');
            if (colon == std::string::npos) break;
            const double mhz = std::strtod(line.c_str() + colon + 1, nullptr);
            return threads * mhz * 1e6 * 16 * 2 * 2;
        }
    return 0;
}

// CPU time of the calling thread, in seconds.
double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

#if defined(__x86_64__)
// n steps of 24 independent AVX-512 FMA chains (enough to cover 2 units x 4 cycles of latency
// with room to spare): the most FLOP a core can do per cycle, whatever its clock or FMA units.
__attribute__((target("avx512f"), noinline)) float fmaLoop(std::int64_t n, float seed) {
    // Unrolled, so the accumulators live in registers (a loop over the array kept it in memory).
    __m512 acc[24];
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(seed + static_cast<float>(i));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (std::int64_t s = 0; s < n; ++s) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    __m512 sum = acc[0];
#pragma GCC unroll 24
    for (int i = 1; i < 24; ++i) sum = _mm512_add_ps(sum, acc[i]);
    return _mm512_reduce_add_ps(sum);
}
#endif

// FLOP per CPU-second of the FMA loop on one thread: the measured peak of one core (the best of
// a few runs of about 20 ms of CPU time; CPU time, so a loaded machine's waiting does not count,
// though a hyperthread sibling's work would). 0 without AVX-512.
double measuredCorePeak() {
#if defined(__x86_64__)
    static const double peak = [] {
        if (!detail::packedProductRuns()) return 0.0;
        constexpr std::int64_t kSteps = 1 << 20;  // 24 * 16 * 2 * 2^20 = 0.8 GFLOP per run
        double best = 0;
        for (int run = 0; run < 5; ++run) {
            const double t0 = threadCpuSeconds();
            benchmark::DoNotOptimize(fmaLoop(kSteps, static_cast<float>(run)));
            const double t = threadCpuSeconds() - t0;
            if (t > 0) best = std::max(best, 24.0 * 16 * 2 * static_cast<double>(kSteps) / t);
        }
        return best;
    }();
    return peak;
#else
    return 0;
#endif
}

// The FMA loop alone on kThreads threads: FLOPS (wall clock) and FLOPS_cpu (per CPU-second of
// all threads), the ceiling BM_LogitsProduct is measured against.
void BM_FmaPeak(benchmark::State& state) {
#if defined(__x86_64__)
    if (!detail::packedProductRuns()) {
        state.SkipWithError("no AVX-512");
        return;
    }
    constexpr std::int64_t kSteps = 1 << 18;
    const double cpu0 = processCpuSeconds();
    for (auto _ : state)
        detail::parallelFor(kThreads, kThreads, 1, [&](std::uint64_t b, std::uint64_t) {
            benchmark::DoNotOptimize(fmaLoop(kSteps, static_cast<float>(b)));
        });
    const double cpu = processCpuSeconds() - cpu0;
    const double flops =
        24.0 * 16 * 2 * static_cast<double>(kSteps) * kThreads * static_cast<double>(state.iterations());
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
    if (cpu > 0) state.counters["FLOPS_cpu"] = flops / cpu;
    state.counters["peak_FLOPS"] = fmaPeak(kThreads);
#else
    state.SkipWithError("not x86-64");
#endif
}
BENCHMARK(BM_FmaPeak)->UseRealTime()->Unit(benchmark::kMillisecond);

// The logits product alone: every (256-row block x 2048 keys x d_k 64) product of (16, 2048), as
// the kernel issues them, on kThreads threads; kernel 0 is what attention uses on this CPU (the
// packed AVX-512 kernel where there is AVX-512), 1 is OpenBLAS (gemmNT) for comparison. FLOPS
// reads as FLOP/s of the product; of_peak divides it by fmaPeak(kThreads), of_peak_cpu divides
// FLOP per CPU-second by one core's nominal peak, of_fma_loop_cpu by the FMA loop's measured
// FLOP per CPU-second on one core (measuredCorePeak: the real clock and FMA units). Each
// thread's C block is allocated once, outside the timed loop: the product alone is timed, not
// page faults and zeroing of a fresh 2 MB buffer per block.
void BM_LogitsProduct(benchmark::State& state) {
    const int H = static_cast<int>(state.range(0)), T = static_cast<int>(state.range(1)), dk = 64, B = 256;
    const bool packed = state.range(2) == 0 && detail::packedProductRuns();
    std::vector<float> q(static_cast<std::size_t>(T) * dk), k(static_cast<std::size_t>(T) * dk);
    for (std::size_t x = 0; x < q.size(); ++x) {
        q[x] = static_cast<float>(standardNormal(1, kStreamQueries, x));
        k[x] = static_cast<float>(standardNormal(1, kStreamKeys, x));
    }
    std::vector<float> kp(detail::packedKeysSize(T, dk));
    detail::packKeys(k.data(), T, dk, kp.data());
    state.SetLabel(packed ? "packed avx512 kernel" : detail::blasDescription());
    const double corePeak = measuredCorePeak();
    const auto items = static_cast<std::uint64_t>(H) * (T / B);
    std::vector<std::vector<float>> blocks(kThreads, std::vector<float>(static_cast<std::size_t>(B) * T));
    double seconds = 0;
    const double cpu0 = processCpuSeconds();
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        detail::parallelFor(items, kThreads, 1, [&](std::uint64_t b0, std::uint64_t b1) {
            std::vector<float>& c = blocks[b0 * kThreads / items];  // one C per block of the split
            for (std::uint64_t b = b0; b < b1; ++b) {
                const auto i0 = static_cast<std::size_t>(b % static_cast<std::uint64_t>(T / B)) * B;
                if (packed)
                    detail::packedProduct(B, T, dk, q.data() + i0 * dk, kp.data(), c.data(), T);
                else
                    detail::gemmNT(B, T, dk, q.data() + i0 * dk, k.data(), c.data(), T);
            }
            benchmark::DoNotOptimize(c.data());
        });
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const double cpu = processCpuSeconds() - cpu0;
    const double flops = 2.0 * H * T * static_cast<double>(T) * dk * static_cast<double>(state.iterations());
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
    const double peak = fmaPeak(kThreads);
    if (peak > 0 && seconds > 0) {
        state.counters["peak_FLOPS"] = peak;
        state.counters["of_peak"] = flops / seconds / peak;
        // Per CPU-second of every thread against one core's peak: what the kernel makes of the
        // core time it gets, which a shared machine's load does not change.
        if (cpu > 0) state.counters["of_peak_cpu"] = flops / cpu / (peak / kThreads);
    }
    if (cpu > 0 && corePeak > 0) state.counters["of_fma_loop_cpu"] = flops / cpu / corePeak;
}
BENCHMARK(BM_LogitsProduct)
    ->Args({16, 2048, 0})
    ->Args({16, 2048, 1})
    ->ArgNames({"H", "T", "blas"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

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
