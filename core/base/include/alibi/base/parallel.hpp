// A minimal fork-join helper: split [0, n) into contiguous blocks, run on persistent threads.
#pragma once

#include <cstdint>
#include <functional>

namespace alibi::detail {

// 0 means "hardware concurrency"; never more than 64.
[[nodiscard]] unsigned resolveThreads(unsigned requested);

// Runs body(begin, end) over contiguous blocks of [0, n) on up to `threads` threads,
// the calling thread taking the first block. Blocks are never smaller than `grain`.
// The other blocks run on persistent pool threads at the calling thread's nice value (see
// parallel.cpp), or on the calling thread when no pool thread has claimed them. A call from
// inside a block runs inline. The first exception a block throws is rethrown here once every
// block has finished.
void parallelFor(std::uint64_t n, unsigned threads, std::uint64_t grain,
                 const std::function<void(std::uint64_t begin, std::uint64_t end)>& body);

}  // namespace alibi::detail
