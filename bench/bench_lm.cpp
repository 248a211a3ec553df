// The forward pass of a BLOOM-560m-sized model (24 layers, 16 heads, d_model 1024, vocabulary
// 250880: bigscience/bloom-560m's shapes) at T = 512, against a NumPy forward pass of the same
// checkpoint (bench/lm_numpy_forward.py, float32 BLAS through NumPy, weights memory-mapped).
// The weights are random, written as float16 to a temporary folder by this program (1.1 GB; no
// weights are shipped); opt-in with --alibi_lm (it takes a minute and writes the folder to
// $TMPDIR). Counters: wall seconds of each, and the peak resident memory of each process
// (this one's includes Google Benchmark's, measured before the model exists as base_rss_mb), and
// the CPU seconds of every thread (on a loaded machine the wall clock mostly measures waiting).
#include "bench_common.hpp"

#include <alibi/base/dtype.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>

#include <benchmark/benchmark.h>

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace alibi::bench {
namespace {

constexpr int kLayers = 24, kHeads = 16, kWidth = 1024, kVocab = 250880, kTokens = 512;

double peakRssMb() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return static_cast<double>(r.ru_maxrss) / 1024.0;
}

// Writes the random checkpoint (float16, N(0, 0.02) weights, layer norms 1 and biases 0 as the
// HF initialisers leave them); returns the folder.
std::string writeModel(const std::string& folder) {
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/config.json") << fmt::format(
        R"({{"architectures": ["BloomForCausalLM"], "model_type": "bloom", "n_layer": {}, "n_head": {},
"hidden_size": {}, "vocab_size": {}, "layer_norm_epsilon": 1e-5}})",
        kLayers, kHeads, kWidth, kVocab);
    const auto config = lm::parseLmConfig(fmt::format(R"({{"model_type": "bloom", "n_layer": {}, "n_head": {},
"hidden_size": {}, "vocab_size": {}}})",
                                                      kLayers, kHeads, kWidth, kVocab));
    const auto specs = lm::expectedWeights(*config);
    // float16, so the header and data are written here directly (SafetensorsWriter writes float32).
    std::string header = R"({"__metadata__": {"format": "pt"})";
    std::uint64_t offset = 0;
    for (const auto& s : specs) {
        const std::uint64_t bytes = *elementCount(s.shape) * 2;
        header += fmt::format(R"(, "{}": {{"dtype": "F16", "shape": [{}], "data_offsets": [{}, {}]}})", s.name,
                              fmt::join(s.shape, ", "), offset, offset + bytes);
        offset += bytes;
    }
    header += "}";
    header.append((8 - header.size() % 8) % 8, ' ');
    std::ofstream out(folder + "/model.safetensors", std::ios::binary);
    const std::uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header;
    std::mt19937_64 rng(29);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    // A table of float16 bits drawn once, cycled with a random stride: fast and irregular enough.
    std::vector<std::uint16_t> table(1 << 16);
    for (auto& b : table) b = toHalfBits(normal(rng));
    // In pieces of 1 Mi elements, so the writer's memory stays far below the forward pass's.
    std::vector<std::uint16_t> buffer(std::size_t{1} << 20);
    std::uint64_t at = 0;
    for (const auto& s : specs) {
        const std::uint64_t count = *elementCount(s.shape);
        const bool norm = s.shape.size() == 1 && s.name.ends_with(".weight");
        const bool bias = s.shape.size() == 1 && s.name.ends_with(".bias");
        for (std::uint64_t done = 0; done < count;) {
            const std::uint64_t n = std::min<std::uint64_t>(buffer.size(), count - done);
            for (std::uint64_t i = 0; i < n; ++i) {
                at = at * 6364136223846793005ULL + 1442695040888963407ULL;
                buffer[i] = norm ? toHalfBits(1.0) : bias ? std::uint16_t{0} : table[at >> 48];
            }
            out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(n * 2));
            done += n;
        }
    }
    return folder;
}

void BM_LmForwardBloom560m(benchmark::State& state) {
    const double baseRss = peakRssMb();
    const char* tmp = std::getenv("TMPDIR");
    const std::string folder = fmt::format("{}/alibi-bench-lm-{}", tmp ? tmp : "/tmp", ::getpid());
    writeModel(folder);
    auto model = lm::Checkpoint::open(folder);
    if (!model) {
        state.SkipWithError(model.error().message.c_str());
        std::filesystem::remove_all(folder);
        return;
    }
    std::vector<std::int64_t> ids(kTokens);
    std::mt19937_64 rng(5);
    for (auto& id : ids) id = static_cast<std::int64_t>(rng() % kVocab);
    { std::ofstream(folder + "/ids.txt") << fmt::format("{}", fmt::join(ids, ",")); }
    double seconds = 0, loss = 0;
    for (auto _ : state) {
        lm::ForwardOptions options;
        options.threads = kThreads;
        options.onAttention = [](int, std::span<const float> p) -> Result<void> {
            benchmark::DoNotOptimize(p.data());
            return {};
        };
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = processCpuSeconds();
        auto run = lm::runForward(*model, ids, options);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.counters["alibi_cpu_s"] = processCpuSeconds() - cpu0;
        if (!run) {
            state.SkipWithError(run.error().message.c_str());
            break;
        }
        loss = run->meanLoss;
        state.counters["working_mb"] = static_cast<double>(run->workingBytes) / (1 << 20);
    }
    state.counters["alibi_s"] = seconds;
    state.counters["alibi_peak_rss_mb"] = peakRssMb();
    state.counters["base_rss_mb"] = baseRss;
    state.counters["mean_loss"] = loss;
    // The NumPy forward pass of the same files, in its own process.
    const std::string script = std::string(ALIBI_SOURCE_DIR) + "/bench/lm_numpy_forward.py";
    const std::string command = fmt::format(
        "OPENBLAS_NUM_THREADS={} {} '{}' '{}' '{}/ids.txt' 2>&1", kThreads,
        std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3", script, folder, folder);
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char line[512];
        while (std::fgets(line, sizeof line, pipe) != nullptr) {
            double s = 0, cpu = 0, rss = 0, l = 0;
            if (std::sscanf(line, "numpy_s=%lf cpu_s=%lf peak_rss_mb=%lf mean_loss=%lf", &s, &cpu, &rss, &l) == 4) {
                state.counters["numpy_s"] = s;
                state.counters["numpy_cpu_s"] = cpu;
                state.counters["numpy_peak_rss_mb"] = rss;
                state.counters["numpy_mean_loss"] = l;
            }
        }
        ::pclose(pipe);
    }
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
}

}  // namespace

void registerLm() {
    benchmark::RegisterBenchmark("BM_LmForwardBloom560m/T:512", BM_LmForwardBloom560m)
        ->Unit(benchmark::kSecond)
        ->Iterations(1)
        ->UseRealTime();
}

}  // namespace alibi::bench
