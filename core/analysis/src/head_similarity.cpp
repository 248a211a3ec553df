// Head similarity (Jensen-Shannon) and the clustering order that groups similar heads.
#include <alibi/analysis/head_similarity.hpp>

#include <alibi/base/parallel.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>

namespace alibi {
namespace {

// JSD(p, q) in bits: half the KL of each from their mixture.
double jensenShannonDivergence(std::span<const double> p, std::span<const double> q) {
    double sum = 0;
    for (std::size_t k = 0; k < p.size(); ++k) {
        const double a = p[k], b = q[k], m = (a + b) / 2;
        if (a > 0) sum += a * std::log2(a / m);
        if (b > 0) sum += b * std::log2(b / m);
    }
    return std::clamp(sum / 2, 0.0, 1.0);
}

}  // namespace

double jensenShannonDistance(std::span<const double> p, std::span<const double> q) {
    double pm = 0, qm = 0;
    for (const double v : p) pm += v;
    for (const double v : q) qm += v;
    if (pm == 0 || qm == 0) return pm == qm ? 0.0 : 1.0;
    return std::sqrt(jensenShannonDivergence(p, q));
}

DistanceMatrix profileDistances(std::span<const HeadFit> heads) {
    DistanceMatrix d;
    d.n = static_cast<int>(heads.size());
    d.values.assign(heads.size() * heads.size(), 0.0);
    for (int a = 0; a < d.n; ++a)
        for (int b = a + 1; b < d.n; ++b) {
            const double v = jensenShannonDistance(heads[static_cast<std::size_t>(a)].profile,
                                                   heads[static_cast<std::size_t>(b)].profile);
            d.values[static_cast<std::size_t>(a * d.n + b)] = d.values[static_cast<std::size_t>(b * d.n + a)] = v;
        }
    return d;
}

Result<DistanceMatrix> mapDistances(const AttentionMaps& maps, int layerIndex, std::int64_t firstRow,
                                    std::int64_t lastRow, unsigned threads) {
    const int heads = maps.heads();
    const std::int64_t last = lastRow < 0 ? maps.queries() : lastRow;
    if (layerIndex < 0 || layerIndex >= maps.layers())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("layer index {} does not exist: the maps hold {} layers", layerIndex, maps.layers()));
    if (firstRow < 0 || firstRow >= last || last > maps.queries())
        return fail(ErrorCode::InvalidArgument, fmt::format("rows {}..{} are not a range of the maps' {} query rows",
                                                            firstRow, last, maps.queries()));
    const auto pairs = static_cast<std::size_t>(heads) * static_cast<std::size_t>(heads);
    std::vector<double> sums(pairs, 0.0);
    std::vector<double> counts(pairs, 0.0);
    std::mutex lock;
    std::optional<Error> error;
    const auto keys = static_cast<std::size_t>(maps.keys());
    detail::parallelFor(
        static_cast<std::uint64_t>(last - firstRow), threads, 16, [&](std::uint64_t begin, std::uint64_t end) {
            std::vector<double> rows(static_cast<std::size_t>(heads) * keys);
            std::vector<double> localSums(pairs, 0.0), localCounts(pairs, 0.0);
            std::vector<bool> empty(static_cast<std::size_t>(heads));
            for (std::uint64_t r = begin; r < end; ++r) {
                const std::int64_t q = firstRow + static_cast<std::int64_t>(r);
                for (int h = 0; h < heads; ++h) {
                    std::span<double> row(rows.data() + static_cast<std::size_t>(h) * keys, keys);
                    if (auto ok = maps.probabilities(layerIndex, h, q, row); !ok) {
                        std::lock_guard guard(lock);
                        if (!error) error = ok.error();
                        return;
                    }
                    double mass = 0;
                    for (const double v : row) mass += v;
                    empty[static_cast<std::size_t>(h)] = mass == 0;
                }
                for (int a = 0; a < heads; ++a)
                    for (int b = a + 1; b < heads; ++b) {
                        if (empty[static_cast<std::size_t>(a)] || empty[static_cast<std::size_t>(b)]) continue;
                        const std::span<const double> pa(rows.data() + static_cast<std::size_t>(a) * keys, keys);
                        const std::span<const double> pb(rows.data() + static_cast<std::size_t>(b) * keys, keys);
                        localSums[static_cast<std::size_t>(a * heads + b)] += jensenShannonDivergence(pa, pb);
                        localCounts[static_cast<std::size_t>(a * heads + b)] += 1;
                    }
            }
            std::lock_guard guard(lock);
            for (std::size_t i = 0; i < pairs; ++i) {
                sums[i] += localSums[i];
                counts[i] += localCounts[i];
            }
        });
    if (error) return std::unexpected(*error);
    DistanceMatrix d;
    d.n = heads;
    d.values.assign(pairs, 0.0);
    for (int a = 0; a < heads; ++a)
        for (int b = a + 1; b < heads; ++b) {
            const auto i = static_cast<std::size_t>(a * heads + b);
            const double v = counts[i] > 0 ? std::sqrt(sums[i] / counts[i]) : 1.0;
            d.values[i] = d.values[static_cast<std::size_t>(b * heads + a)] = v;
        }
    return d;
}

std::vector<int> clusterOrder(const DistanceMatrix& distances) {
    const int n = distances.n;
    // Each cluster keeps its leaves in order; merging concatenates the two lists, which is the
    // dendrogram's left-to-right leaf order.
    std::vector<std::vector<int>> members(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) members[static_cast<std::size_t>(i)] = {i};
    std::vector<bool> alive(static_cast<std::size_t>(n), true);
    std::vector<double> d = distances.values;  // average linkage, updated in place
    const auto at = [&](int a, int b) -> double& { return d[static_cast<std::size_t>(a * n + b)]; };
    for (int merges = 0; merges + 1 < n; ++merges) {
        int bestA = -1, bestB = -1;
        double best = std::numeric_limits<double>::infinity();
        for (int a = 0; a < n; ++a) {
            if (!alive[static_cast<std::size_t>(a)]) continue;
            for (int b = a + 1; b < n; ++b)
                if (alive[static_cast<std::size_t>(b)] && at(a, b) < best) {
                    best = at(a, b);
                    bestA = a;
                    bestB = b;
                }
        }
        if (bestA < 0) break;
        const double sa = static_cast<double>(members[static_cast<std::size_t>(bestA)].size());
        const double sb = static_cast<double>(members[static_cast<std::size_t>(bestB)].size());
        for (int c = 0; c < n; ++c) {
            if (!alive[static_cast<std::size_t>(c)] || c == bestA || c == bestB) continue;
            at(bestA, c) = at(c, bestA) = (sa * at(bestA, c) + sb * at(bestB, c)) / (sa + sb);
        }
        auto& into = members[static_cast<std::size_t>(bestA)];
        auto& from = members[static_cast<std::size_t>(bestB)];
        into.insert(into.end(), from.begin(), from.end());
        from.clear();
        alive[static_cast<std::size_t>(bestB)] = false;
    }
    for (int i = 0; i < n; ++i)
        if (alive[static_cast<std::size_t>(i)]) return members[static_cast<std::size_t>(i)];
    return {};
}

}  // namespace alibi
