// Which heads are alike: Jensen-Shannon distances between heads (their attention-vs-distance
// profiles, or their full maps), and an order that puts similar heads together (average-linkage
// hierarchical clustering, leaves in dendrogram order).
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/base/error.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace alibi {

// sqrt(JSD(p, q)) with base-2 logarithms: 0 for equal distributions, 1 for disjoint ones.
// Both must sum to 1 (or to 0, which counts as disjoint from anything but another empty one).
[[nodiscard]] double jensenShannonDistance(std::span<const double> p, std::span<const double> q);

// An n x n row-major matrix of distances.
struct DistanceMatrix {
    int n = 0;
    std::vector<double> values;
    [[nodiscard]] double at(int a, int b) const { return values[static_cast<std::size_t>(a * n + b)]; }
};

// Between the heads' mean attention-vs-distance profiles (HeadFit::profile).
[[nodiscard]] DistanceMatrix profileDistances(std::span<const HeadFit> heads);

// Between the heads' full maps of one layer, each read as a distribution over its cells with
// every row weighted equally: the square root of the mean over rows of the rows' JSD.
// All-zero rows (padding) are left out for both heads of a pair.
[[nodiscard]] Result<DistanceMatrix> mapDistances(const AttentionMaps& maps, int layerIndex, std::int64_t firstRow = 0,
                                                  std::int64_t lastRow = -1, unsigned threads = 0);

// Leaves of an average-linkage (UPGMA) clustering in dendrogram order: similar heads end up
// next to each other. Ties merge the pair with the smallest indices first, so the order is
// deterministic.
[[nodiscard]] std::vector<int> clusterOrder(const DistanceMatrix& distances);

}  // namespace alibi
