// Shared settings of the benchmarks: the thread count every case uses, and a causal f32 bias
// parameter set for (H, T).
#pragma once

#include <alibi/model/params.hpp>

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
    return static_cast<std::uint64_t>(heads) * static_cast<std::uint64_t>(length) *
           static_cast<std::uint64_t>(length) * 4;
}

// Set by bench_main.cpp from --alibi_large_export, --alibi_scaling and --alibi_large_attention.
void registerLargeExport();
void registerScaling();
void registerLargeAttention();

}  // namespace alibi::bench
