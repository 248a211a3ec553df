// The bias against the memory limit. BM_MemsetBaseline fills an already-mapped buffer with a
// non-zero byte on kThreads threads (one std::memset per thread over its half, the threads
// started per call exactly as fillBias starts them); BM_FillBias builds the causal f32 bias
// into a pre-touched buffer of the same size; BM_BuildBias allocates a fresh tensor each time
// (page faults included). scripts/bench divides FillBias by MemsetBaseline for each (H, T).
#include "bench_common.hpp"

#include <alibi/base/tensor.hpp>
#include <alibi/model/bias.hpp>

#include <benchmark/benchmark.h>

#include <cstring>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <vector>

namespace alibi::bench {
namespace {

void shapes(benchmark::internal::Benchmark* b) {
    for (auto [h, t] : {std::pair{8, 1024}, {16, 2048}, {32, 2048}, {16, 4096}}) b->Args({h, t});
    b->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

// A buffer whose pages are all mapped (touched once), so no page fault is timed.
Buffer pretouched(std::uint64_t bytes) {
    Buffer buffer(static_cast<std::size_t>(bytes));
    std::memset(buffer.data(), 1, buffer.size());
    return buffer;
}

void parallelMemset(std::byte* data, std::uint64_t bytes, unsigned threads) {
    std::vector<std::jthread> workers;
    auto part = [&](unsigned t) { return bytes * t / threads / 64 * 64; };
    for (unsigned t = 1; t < threads; ++t)
        workers.emplace_back(
            [=] { std::memset(data + part(t), 0x5A, (t + 1 == threads ? bytes : part(t + 1)) - part(t)); });
    std::memset(data, 0x5A, threads > 1 ? part(1) : bytes);
}

void BM_MemsetBaseline(benchmark::State& state) {
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    Buffer buffer = pretouched(bytes);
    for (auto _ : state) {
        parallelMemset(buffer.data(), bytes, kThreads);
        benchmark::DoNotOptimize(buffer.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_MemsetBaseline)->Apply(shapes);

// The write limit of the hardware: the same fill with streaming (non-temporal) 16-byte stores,
// which skip the read-for-ownership of each destination line. Not the baseline (that
// is memset); shown so the ratio to memset can be read against what the memory can take.
void streamFill(std::byte* data, std::uint64_t bytes) {
#if defined(__x86_64__)
    const __m128i v = _mm_set1_epi8(0x5A);
    std::uint64_t k = 0;
    for (; k + 64 <= bytes; k += 64) {
        auto* d = reinterpret_cast<__m128i*>(data + k);
        _mm_stream_si128(d, v);
        _mm_stream_si128(d + 1, v);
        _mm_stream_si128(d + 2, v);
        _mm_stream_si128(d + 3, v);
    }
    std::memset(data + k, 0x5A, bytes - k);
    _mm_sfence();
#else
    std::memset(data, 0x5A, bytes);
#endif
}

void BM_StreamingBaseline(benchmark::State& state) {
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    Buffer buffer = pretouched(bytes);  // 2 MiB aligned: every part below starts on a line
    for (auto _ : state) {
        std::vector<std::jthread> workers;
        auto part = [&](unsigned t) { return bytes * t / kThreads / 64 * 64; };
        for (unsigned t = 1; t < kThreads; ++t)
            workers.emplace_back(
                [&, t] { streamFill(buffer.data() + part(t), (t + 1 == kThreads ? bytes : part(t + 1)) - part(t)); });
        streamFill(buffer.data(), part(1));
        workers.clear();
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_StreamingBaseline)->Apply(shapes);

void BM_FillBias(benchmark::State& state) {
    const BiasParams params = causalF32(state.range(0), state.range(1));
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    Buffer buffer = pretouched(bytes);
    for (auto _ : state) {
        if (auto ok = fillBias(params, {buffer.data(), buffer.size()}, kThreads); !ok) {
            state.SkipWithError(ok.error().message.c_str());
            break;
        }
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_FillBias)->Apply(shapes);

// The fill with each store kind forced, to check where fillBias's automatic switch belongs.
void fillWith(benchmark::State& state, StoreMode stores) {
    const BiasParams params = causalF32(state.range(0), state.range(1));
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    Buffer buffer = pretouched(bytes);
    for (auto _ : state) {
        if (auto ok = fillBias(params, {buffer.data(), buffer.size()}, kThreads, stores); !ok) {
            state.SkipWithError(ok.error().message.c_str());
            break;
        }
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
void BM_FillBiasCachedStores(benchmark::State& state) {
    fillWith(state, StoreMode::Cached);
}
void BM_FillBiasStreamingStores(benchmark::State& state) {
    fillWith(state, StoreMode::Streaming);
}
BENCHMARK(BM_FillBiasCachedStores)->Apply(shapes);
BENCHMARK(BM_FillBiasStreamingStores)->Apply(shapes);

// A new tensor every time, as a GUI rebuilds it on each slider step: Buffer hands back the
// mapping the previous tensor freed, so after the first iteration no page is faulted.
void BM_BuildBias(benchmark::State& state) {
    const BiasParams params = causalF32(state.range(0), state.range(1));
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    for (auto _ : state) {
        auto tensor = buildBias(params, std::uint64_t{4} << 30, kThreads);
        if (!tensor) {
            state.SkipWithError(tensor.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(tensor->bytes());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_BuildBias)->Args({16, 4096})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

// The same with every page faulted in: a buffer of another size, allocated first, empties
// Buffer's cache of freed mappings, so each tensor is a new mmap (huge-page faults, the kernel
// zeroing every page). This is the cost of the first build of a shape.
void BM_BuildBiasFirstTouch(benchmark::State& state) {
    const BiasParams params = causalF32(state.range(0), state.range(1));
    const std::uint64_t bytes = tensorBytes(state.range(0), state.range(1));
    for (auto _ : state) {
        state.PauseTiming();
        { Buffer other(std::size_t{6} << 20); }
        state.ResumeTiming();
        auto tensor = buildBias(params, std::uint64_t{4} << 30, kThreads);
        if (!tensor) {
            state.SkipWithError(tensor.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(tensor->bytes());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_BuildBiasFirstTouch)->Args({16, 4096})->ArgNames({"H", "T"})->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace alibi::bench
