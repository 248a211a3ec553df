// Fork-join over std::thread; the work items here are large (rows of a tensor), so starting
// threads per call costs microseconds against milliseconds of work.
#include "base/parallel.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace alibi::detail {

unsigned resolveThreads(unsigned requested) {
    unsigned n = requested == 0 ? std::thread::hardware_concurrency() : requested;
    return std::clamp(n, 1U, 64U);
}

void parallelFor(std::uint64_t n, unsigned threads, std::uint64_t grain,
                 const std::function<void(std::uint64_t, std::uint64_t)>& body) {
    if (n == 0) return;
    grain = std::max<std::uint64_t>(grain, 1);
    const std::uint64_t maxBlocks = (n + grain - 1) / grain;
    const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(resolveThreads(threads), maxBlocks));
    if (blocks <= 1) {
        body(0, n);
        return;
    }
    std::vector<std::jthread> workers;
    workers.reserve(blocks - 1);
    auto blockBegin = [&](unsigned b) { return n * b / blocks; };
    for (unsigned b = 1; b < blocks; ++b) {
        workers.emplace_back([&, b] { body(blockBegin(b), blockBegin(b + 1)); });
    }
    body(0, blockBegin(1));
}

}  // namespace alibi::detail
