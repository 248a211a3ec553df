// Issue 26's heavy view, as the explorers compute it: q.k attention, H = 8, T = 65536,
// d_k = 4096, a 1920x1080 head grid (explore::computeGrid with a preview callback), then the
// details (explore::computeDetails: head detail, statistics, stages). Opt-in
// (--alibi_heavy_view; scripts/bench --heavy): the exact grid takes tens of seconds.
//
//   BM_HeavyFirstPicture   time to the first preview (then cancelled): the "first picture in
//                          about a second" of the issue
//   BM_HeavyGrid           the whole progressive grid: first_ms, second_ms (the next preview,
//                          if any) and the total (the iteration's time); passes
//   BM_HeavyDetails        computeDetails after the grid (progress reported: progress_calls)
#include "bench_common.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/model/slopes.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>

namespace alibi::bench {
namespace {

using Clock = std::chrono::steady_clock;

explore::Request heavyRequest() {
    explore::Request r;
    Session& s = r.session;
    s.attention.bias = causalF32(8, 65536);
    s.attention.content.kind = ContentKind::Qk;
    s.attention.content.dk = 4096;
    s.what = RenderWhat::Attention;
    r.gridWidth = 1920;
    r.gridHeight = 1080;
    return r;
}

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void BM_HeavyFirstPicture(benchmark::State& state) {
    const explore::Request r = heavyRequest();
    const double cpu0 = processCpuSeconds();
    double first = 0, firstCpu = 0;
    int keyStep = 0, rowStep = 0;
    for (auto _ : state) {
        const auto start = Clock::now();
        std::atomic<bool> stop{false};
        auto g = explore::computeGrid(
            r, [&] { return stop.load(); }, {},
            [&](explore::GridSnapshot preview) {
                if (stop.exchange(true)) return;
                first = msSince(start);
                firstCpu = 1e3 * (processCpuSeconds() - cpu0);
                rowStep = preview.grid.rowStep;
                keyStep = preview.grid.keyStep;
            });
        if (!stop) {
            state.SkipWithError("no preview: the heavy view went straight to the exact grid");
            break;
        }
    }
    state.counters["first_ms"] = first;
    state.counters["first_cpu_ms"] = firstCpu;
    state.counters["process_cpu_ms"] = 1e3 * (processCpuSeconds() - cpu0);
    state.counters["row_step"] = rowStep;
    state.counters["key_step"] = keyStep;
}

void BM_HeavyGrid(benchmark::State& state) {
    const explore::Request r = heavyRequest();
    const double cpu0 = processCpuSeconds();
    std::vector<double> at;
    std::uint64_t progressCalls = 0;
    for (auto _ : state) {
        at.clear();
        const auto start = Clock::now();
        auto g = explore::computeGrid(
            r, {},
            [&](std::uint64_t, std::uint64_t) {
                ++progressCalls;
                return true;
            },
            [&](explore::GridSnapshot) { at.push_back(msSince(start)); });
        if (!g) {
            state.SkipWithError(g.error().message.c_str());
            break;
        }
    }
    state.counters["first_ms"] = at.empty() ? 0.0 : at[0];
    state.counters["second_ms"] = at.size() < 2 ? 0.0 : at[1];
    state.counters["passes"] = static_cast<double>(at.size() + 1);
    state.counters["process_cpu_ms"] = 1e3 * (processCpuSeconds() - cpu0);
    state.counters["progress_calls"] = static_cast<double>(progressCalls);
}

void BM_HeavyDetails(benchmark::State& state) {
    const explore::Request r = heavyRequest();
    // The grid snapshot the details start from (its pixels do not matter, only its parameters).
    auto grid = std::make_shared<explore::GridSnapshot>();
    grid->session = r.session;
    grid->slopes = *computeSlopes(r.session.attention.bias.slopes);
    HeatmapParams& p = grid->gridParams;
    p.attention = r.session.attention;
    p.what = RenderWhat::Attention;
    p.width = r.gridWidth;
    p.height = r.gridHeight;
    const double cpu0 = processCpuSeconds();
    std::uint64_t progressCalls = 0;
    for (auto _ : state) {
        const auto snapshot = explore::computeDetails(r, grid, {}, [&](std::uint64_t, std::uint64_t) {
            ++progressCalls;
            return true;
        });
        if (!snapshot.stats || !snapshot.stages) {
            state.SkipWithError(snapshot.error.c_str());
            break;
        }
    }
    state.counters["progress_calls"] = static_cast<double>(progressCalls);
    state.counters["process_cpu_ms"] = 1e3 * (processCpuSeconds() - cpu0);
}

}  // namespace

void registerHeavyView() {
    benchmark::RegisterBenchmark("BM_HeavyFirstPicture", BM_HeavyFirstPicture)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    benchmark::RegisterBenchmark("BM_HeavyGrid", BM_HeavyGrid)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    benchmark::RegisterBenchmark("BM_HeavyDetails", BM_HeavyDetails)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
}

}  // namespace alibi::bench
