// The effective ALiBi slope of each head of saved attention maps (docs/FIT.md).
//
// Read as soft counts, a row p of a head is explained by the prior softmax(-m d) over the row's
// keys with log-likelihood  sum_j p_j log q_j(m) = -m D - log Z(m),  where D = sum_j p_j d_j is
// the row's mean distance. Summed over rows, the likelihood is concave in m and its derivative
// is  sum_r (E_m[d]_r - D_r): the maximum is where the prior's mean distance, averaged over the
// rows, equals the observed one. Each row's Z, mean and variance are closed-form geometric sums,
// so the fit costs a few exponentials per row and iteration, whatever K is.
#include <alibi/analysis/head_fit.hpp>

#include <alibi/base/parallel.hpp>
#include "row_summary.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>

namespace alibi {
namespace {

// Moments of d = 0 .. n-1 under weights exp(-x d).
PriorMoments baseMoments(double x, double n) {
    PriorMoments m;
    if (std::abs(x) * n < 1e-2) {
        // Series in the cumulants of the uniform distribution on 0..n-1 (k2 = (n^2-1)/12,
        // k4 = -(n^2-1)(n^2+1)/120, odd ones beyond the first vanish): the closed forms below
        // cancel catastrophically for small x n; these are exact to ~1e-10 relative here.
        const double k2 = (n * n - 1) / 12, k4 = -(n * n - 1) * (n * n + 1) / 120;
        m.logZ = std::log(n) - x * (n - 1) / 2 + x * x * k2 / 2 + x * x * x * x * k4 / 24;
        m.mean = (n - 1) / 2 - x * k2 - x * x * x * k4 / 6;
        m.variance = k2 + x * x * k4 / 2;
        return m;
    }
    const double a = std::abs(x);
    // log Z for the decaying direction, then the mirror identity logZ(-a) = a (n-1) + logZ(a).
    const double logZa = std::log(-std::expm1(-n * a)) - std::log(-std::expm1(-a));
    m.logZ = x > 0 ? logZa : logZa + a * (n - 1);
    m.mean = 1 / std::expm1(x) - n / std::expm1(n * x);
    const double s1 = std::sinh(x / 2), sn = std::sinh(n * x / 2);
    m.variance = 1 / (4 * s1 * s1) - (std::isinf(sn) ? 0.0 : n * n / (4 * sn * sn));
    if (m.variance < 0) m.variance = 0;
    return m;
}

}  // namespace

PriorMoments priorMoments(double slope, std::span<const DistanceBlock> blocks) {
    PriorMoments parts[2];
    int used = 0;
    for (const auto& b : blocks) {
        if (b.count <= 0 || used == 2) continue;
        PriorMoments m = baseMoments(slope, static_cast<double>(b.count));
        const double o = static_cast<double>(b.offset);
        m.logZ -= slope * o;
        m.mean += o;
        parts[used++] = m;
    }
    if (used == 0) return {};
    if (used == 1) return parts[0];
    const double top = std::max(parts[0].logZ, parts[1].logZ);
    const double w0 = std::exp(parts[0].logZ - top), w1 = std::exp(parts[1].logZ - top);
    PriorMoments out;
    out.logZ = top + std::log(w0 + w1);
    const double p0 = w0 / (w0 + w1), p1 = w1 / (w0 + w1);
    out.mean = p0 * parts[0].mean + p1 * parts[1].mean;
    const double second = p0 * (parts[0].variance + parts[0].mean * parts[0].mean) +
                          p1 * (parts[1].variance + parts[1].mean * parts[1].mean);
    out.variance = std::max(0.0, second - out.mean * out.mean);
    return out;
}

namespace {

std::span<const DistanceBlock> blocksOf(const RowSummary& r) {
    return {r.blocks, static_cast<std::size_t>(r.blockCount)};
}

// sum_r (E_m[d]_r - D_r) and sum_r Var_m[d]_r.
std::pair<double, double> gradient(std::span<const RowSummary> rows, double slope) {
    double g = 0, h = 0;
    for (const auto& r : rows) {
        const PriorMoments m = priorMoments(slope, blocksOf(r));
        g += m.mean - r.meanDistance;
        h += m.variance;
    }
    return {g, h};
}

}  // namespace

SlopeEstimate fitSlope(std::span<const RowSummary> rows) {
    SlopeEstimate e;
    if (rows.empty()) return e;
    double lo = kFitSlopeMin, hi = kFitSlopeMax;
    // g(m) = sum (E_m[d] - D) falls as m grows: the root is where the prior is as local as the rows.
    const double gLo = gradient(rows, lo).first, gHi = gradient(rows, hi).first;
    double m;
    if (gLo <= 0 && gHi >= 0) {
        // Every row has a single key (g is 0 everywhere): any slope explains them equally well.
        e.low = kFitSlopeMin;
        e.high = kFitSlopeMax;
        return e;
    }
    if (gLo <= 0) {
        m = lo;
        e.atBound = true;
    } else if (gHi >= 0) {
        m = hi;
        e.atBound = true;
    } else {
        m = 0.05;  // a typical ALiBi slope; Newton from here, bisection when it strays
        for (int it = 0; it < 200; ++it) {
            const auto [g, h] = gradient(rows, m);
            if (g > 0)
                lo = m;
            else
                hi = m;
            double next = h > 0 ? m + g / h : (lo + hi) / 2;
            if (!(next > lo && next < hi)) next = (lo + hi) / 2;
            const bool done = std::abs(next - m) <= 1e-13 * std::max(1.0, std::abs(m)) || hi - lo <= 1e-15;
            m = next;
            if (done) break;
        }
    }
    e.slope = m;
    if (e.atBound) {
        // The likelihood is monotone over the whole range: no curvature at the maximum, so no
        // interval; [m*, m*] rather than a range past the search's ends.
        e.low = e.high = m;
        return e;
    }
    // The interval: a sandwich (robust) standard error, sqrt(sum of squared per-row scores) over
    // the information, which measures how far the rows disagree with one slope; floored by the
    // error of observing a single key per row, 1 / sqrt(information).
    double information = 0, scores = 0;
    for (const auto& r : rows) {
        const PriorMoments pm = priorMoments(m, blocksOf(r));
        information += pm.variance;
        scores += (pm.mean - r.meanDistance) * (pm.mean - r.meanDistance);
    }
    if (information <= 0) {
        // Every row has a single key: any slope explains them equally well.
        e.low = kFitSlopeMin;
        e.high = kFitSlopeMax;
        return e;
    }
    const double se = std::max(std::sqrt(scores) / information, 1 / std::sqrt(information));
    e.low = std::max(kFitSlopeMin, m - 1.959963984540054 * se);
    e.high = std::min(kFitSlopeMax, m + 1.959963984540054 * se);
    return e;
}

double meanKl(std::span<const RowSummary> rows, double slope) {
    if (rows.empty()) return 0;
    // KL(p || q) = sum p log p - sum p log q = -H(p) + m D + log Z(m).
    double total = 0;
    for (const auto& r : rows) total += -r.entropy + slope * r.meanDistance + priorMoments(slope, blocksOf(r)).logZ;
    return std::max(0.0, total / static_cast<double>(rows.size()));
}

namespace {

// The prior's support for a query at absolute position i over keys 0 .. K-1.
RowSummary supportOf(std::int64_t i, std::int64_t keys, bool causal) {
    RowSummary r;
    if (causal) {
        const std::int64_t last = std::min(i, keys - 1);  // keys j <= i
        r.blocks[0] = {i - last, last + 1};
        r.blockCount = 1;
    } else if (i >= 0 && i < keys) {
        r.blocks[0] = {0, i + 1};
        r.blocks[1] = {1, keys - 1 - i};
        r.blockCount = keys - 1 - i > 0 ? 2 : 1;
    } else {
        r.blocks[0] = {i < 0 ? -i : i - keys + 1, keys};
        r.blockCount = 1;
    }
    return r;
}

struct HeadAccumulator {
    std::vector<RowSummary> rows;
    double sink = 0, diagonal = 0, entropy = 0, distance = 0, distance90 = 0;
    std::vector<double> profile;
};

// Adds row p of a query at position i; a row without mass (padding, or every key masked) is
// skipped.
void accumulateRow(HeadAccumulator& acc, std::span<const double> p, std::int64_t i, bool causal) {
    const detail::RowTotals totals = detail::summariseRow(p, i, causal, acc.profile);
    if (totals.mass == 0) return;
    RowSummary r = supportOf(i, static_cast<std::int64_t>(p.size()), causal);
    r.meanDistance = totals.distance;
    r.entropy = totals.entropy;
    acc.rows.push_back(r);
    acc.sink += p[0];
    if (i >= 0 && i < static_cast<std::int64_t>(p.size())) acc.diagonal += p[static_cast<std::size_t>(i)];
    acc.entropy += totals.entropy;
    acc.distance += totals.distance;
    acc.distance90 += static_cast<double>(totals.distance90);
}

}  // namespace

std::vector<double> priorProfile(double slope, std::int64_t queries, std::int64_t keys, bool causal,
                                 std::int64_t firstRow, std::int64_t lastRow) {
    std::vector<double> profile(static_cast<std::size_t>(std::max<std::int64_t>(keys, 0)), 0.0);
    const std::int64_t last = lastRow < 0 ? queries : std::min(lastRow, queries);
    for (std::int64_t q = std::max<std::int64_t>(firstRow, 0); q < last; ++q) {
        const std::int64_t i = q + keys - queries;
        if (causal && i < 0) continue;
        const RowSummary r = supportOf(i, keys, causal);
        const double logZ = priorMoments(slope, blocksOf(r)).logZ;
        for (int b = 0; b < r.blockCount; ++b)
            for (std::int64_t d = r.blocks[b].offset; d < r.blocks[b].offset + r.blocks[b].count && d < keys; ++d)
                profile[static_cast<std::size_t>(d)] += std::exp(-slope * static_cast<double>(d) - logZ);
    }
    double total = 0;
    for (const double v : profile) total += v;
    if (total > 0)
        for (double& v : profile) v /= total;
    return profile;
}

Result<std::vector<HeadFit>> fitHeads(const AttentionMaps& maps, const HeadFitOptions& options,
                                      const std::vector<double>& configured) {
    const std::int64_t queries = maps.queries(), keys = maps.keys();
    const std::int64_t first = options.firstRow, last = options.lastRow < 0 ? queries : options.lastRow;
    if (first < 0 || first >= last || last > queries)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("rows {}..{} are not a range of the maps' {} query rows (give 0 <= first < last <= {})",
                                first, last, queries, queries));
    if (!configured.empty() && static_cast<int>(configured.size()) != maps.heads())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the ALiBi parameters give {} slopes but the maps have {} heads; give the model's own "
                                "head count (--heads {} or its preset)",
                                configured.size(), maps.heads(), maps.heads()));
    std::vector<int> layers = options.layers;
    if (layers.empty())
        for (int l = 0; l < maps.layers(); ++l) layers.push_back(l);
    for (const int l : layers)
        if (l < 0 || l >= maps.layers())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("layer index {} does not exist: the maps hold {} layers", l, maps.layers()));

    const std::uint64_t totalRows =
        layers.size() * static_cast<std::uint64_t>(maps.heads()) * static_cast<std::uint64_t>(last - first);
    std::vector<HeadFit> out;
    std::uint64_t doneRows = 0;
    for (const int layer : layers) {
        std::vector<HeadFit> fits(static_cast<std::size_t>(maps.heads()));
        std::mutex errorLock;
        std::optional<Error> error;
        std::atomic<bool> stop{false};
        detail::parallelFor(
            static_cast<std::uint64_t>(maps.heads()), options.threads, 1, [&](std::uint64_t begin, std::uint64_t end) {
                std::vector<double> row(static_cast<std::size_t>(keys));
                for (std::uint64_t h = begin; h < end && !stop.load(); ++h) {
                    HeadAccumulator acc;
                    acc.profile.assign(static_cast<std::size_t>(keys), 0.0);
                    acc.rows.reserve(static_cast<std::size_t>(last - first));
                    for (std::int64_t q = first; q < last; ++q) {
                        if (auto ok = maps.probabilities(layer, static_cast<int>(h), q, row); !ok) {
                            std::lock_guard lock(errorLock);
                            if (!error) error = ok.error();
                            stop = true;
                            return;
                        }
                        const std::int64_t i = q + keys - queries;  // KV-cache alignment
                        if (maps.causal() && i < 0) continue;       // a query before every key
                        accumulateRow(acc, row, i, maps.causal());
                    }
                    maps.release(layer, static_cast<int>(h));  // bounded memory on files larger than RAM
                    HeadFit& fit = fits[h];
                    fit.layerIndex = layer;
                    fit.layer = maps.layerInfo()[static_cast<std::size_t>(layer)].number;
                    fit.head = static_cast<int>(h);
                    fit.rows = static_cast<std::int64_t>(acc.rows.size());
                    if (!configured.empty()) fit.configuredSlope = configured[h];
                    if (acc.rows.empty()) continue;
                    const double n = static_cast<double>(acc.rows.size());
                    const SlopeEstimate e = fitSlope(acc.rows);
                    fit.slope = e.slope;
                    fit.slopeLow = e.low;
                    fit.slopeHigh = e.high;
                    fit.slopeAtBound = e.atBound;
                    fit.kl = meanKl(acc.rows, e.slope);
                    if (fit.configuredSlope) fit.configuredKl = meanKl(acc.rows, *fit.configuredSlope);
                    fit.uniformKl = meanKl(acc.rows, 0.0);
                    fit.sinkMass = acc.sink / n;
                    fit.diagonalMass = acc.diagonal / n;
                    fit.entropy = acc.entropy / n;
                    fit.meanDistance = acc.distance / n;
                    fit.distance90 = acc.distance90 / n;
                    double total = 0;
                    for (const double v : acc.profile) total += v;
                    if (total > 0)
                        for (double& v : acc.profile) v /= total;
                    fit.profile = std::move(acc.profile);
                }
            });
        if (error) return std::unexpected(*error);
        maps.release(layer);
        doneRows += static_cast<std::uint64_t>(maps.heads()) * static_cast<std::uint64_t>(last - first);
        for (auto& f : fits) out.push_back(std::move(f));
        if (options.progress && !options.progress(doneRows, totalRows))
            return fail(ErrorCode::Cancelled, "the fit was cancelled");
    }
    return out;
}

}  // namespace alibi
