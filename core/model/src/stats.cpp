// Per-head statistics of the attention distribution: entropy, mean attended distance and the
// distances holding 50% and 90% of the mass, at one query row and averaged over evenly spaced
// rows. Rows come from the double-precision reference path, so the statistics do not depend on
// the output dtype's rounding of the probabilities or on the thread count. Zero content in
// f32/f64 takes the closed form (attention_closed_form.hpp): O(log K) per row instead of O(K),
// so a million-token table costs microseconds per head.
#include <alibi/model/attention.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/model/stats.hpp>

#include <alibi/base/parallel.hpp>
#include <alibi/model/detail/attention_closed_form.hpp>
#include <alibi/model/detail/attention_detail.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace alibi {

namespace {

// The smallest integer d with mass(|pos - j| <= d) >= level * total. The slack of 1e-12 of
// the total absorbs the rounding of a sum that is 1 in exact arithmetic.
double massDistance(std::span<const double> p, std::int64_t pos, double level, double total) {
    const auto K = static_cast<std::int64_t>(p.size());
    const double target = level * total - 1e-12 * total;
    const std::int64_t maxD = std::max(std::llabs(pos), std::llabs(pos - (K - 1)));
    double cum = 0;
    for (std::int64_t d = 0; d <= maxD; ++d) {
        if (const std::int64_t j = pos - d; j >= 0 && j < K) cum += p[static_cast<std::size_t>(j)];
        if (const std::int64_t j = pos + d; d > 0 && j >= 0 && j < K) cum += p[static_cast<std::size_t>(j)];
        if (cum >= target) return static_cast<double>(d);
    }
    return static_cast<double>(maxD);
}

}  // namespace

RowStats meanRowStats(std::span<const RowStats> rows) {
    RowStats mean;
    for (const RowStats& r : rows) {
        mean.entropy += r.entropy;
        mean.meanDistance += r.meanDistance;
        mean.distance50 += r.distance50;
        mean.distance90 += r.distance90;
    }
    if (rows.empty()) return mean;
    const auto n = static_cast<double>(rows.size());
    mean.entropy /= n;
    mean.meanDistance /= n;
    mean.distance50 /= n;
    mean.distance90 /= n;
    return mean;
}

std::int64_t statsRowsToAverage(const StatsParams& params) {
    if (params.maxRows > 0) return params.maxRows;
    // 2^23 cell-costs of rows take well under a second on two cores (q.k: d_k per cell).
    const AttentionParams& a = params.attention;
    const double cellCost = a.content.kind == ContentKind::Qk ? static_cast<double>(std::max(1, a.content.dk)) : 1.0;
    const double rowCost = static_cast<double>(std::max(1, a.bias.slopes.heads)) *
                           static_cast<double>(std::max<std::int64_t>(1, a.bias.keyCount())) * cellCost;
    return static_cast<std::int64_t>(std::clamp(double(1 << 23) / rowCost, 1.0, double(kStatsRowsMax)));
}

std::vector<std::int64_t> evenlySpacedPicks(std::int64_t count, std::int64_t maxRows) {
    const std::int64_t n = std::clamp<std::int64_t>(maxRows, 0, std::max<std::int64_t>(count, 0));
    std::vector<std::int64_t> picks(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k)
        picks[static_cast<std::size_t>(k)] = n == count ? k
                                             : n == 1   ? count - 1
                                                        : (k * (count - 1) + (n - 1) / 2) / (n - 1);
    return picks;
}

RowStats rowStats(std::span<const double> probabilities, std::int64_t queryPos) {
    RowStats s;
    double total = 0;
    for (std::size_t j = 0; j < probabilities.size(); ++j) {
        const double p = probabilities[j];
        if (!(p > 0)) continue;
        total += p;
        s.entropy -= p * std::log(p);
        s.meanDistance += p * static_cast<double>(std::llabs(queryPos - static_cast<std::int64_t>(j)));
    }
    if (total <= 0) return RowStats{};
    s.distance50 = massDistance(probabilities, queryPos, 0.5, total);
    s.distance90 = massDistance(probabilities, queryPos, 0.9, total);
    return s;
}

Result<StatsResult> computeStats(const StatsParams& params, unsigned threads, const ProgressFn& progress) {
    auto slopes = validateAttention(params.attention);
    if (!slopes) return std::unexpected(slopes.error());
    const BiasParams& b = params.attention.bias;
    const std::int64_t H = b.slopes.heads, Q = b.queries, K = b.keyCount();
    const std::int64_t queryRow = params.queryRow == -1 ? Q - 1 : params.queryRow;
    if (queryRow < 0 || queryRow >= Q)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("--query must be between 0 and {} (or -1 for the last row), got {}", Q - 1, params.queryRow));
    if (params.maxRows < 0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the number of rows to average (maxRows) must be at least 1, got {}", params.maxRows));

    // Rows with at least one unmasked key (with K < Q and a causal mode the first Q - K rows
    // have none), sampled evenly from first to last.
    std::int64_t firstRow = 0;
    while (firstRow < Q && detail::allowedKeys(b, firstRow) == 0) ++firstRow;
    std::vector<std::int64_t> rows = evenlySpacedPicks(Q - firstRow, statsRowsToAverage(params));
    for (std::int64_t& pick : rows) pick += firstRow;
    const auto n = static_cast<std::int64_t>(rows.size());

    // Item (h, k): k < n is sampled row k, k == n the chosen query row. Results are stored per
    // item and reduced in order, so the numbers do not depend on the thread count. When the
    // query row is one of the sampled rows (the last row, with one sampled row) it is computed
    // once: a q.k row costs K x d_k normals.
    const std::uint64_t perHead = static_cast<std::uint64_t>(n) + 1;
    const auto sampledQuery = std::find(rows.begin(), rows.end(), queryRow);
    const std::int64_t same = sampledQuery == rows.end() ? -1 : sampledQuery - rows.begin();
    const std::uint64_t items = static_cast<std::uint64_t>(H) * perHead;
    std::vector<RowStats> results(items);
    std::atomic<bool> cancelled{false};
    std::atomic<std::uint64_t> done{0};
    std::mutex errorMutex;
    std::optional<Error> error;
    detail::parallelFor(items, threads, 1, [&](std::uint64_t begin, std::uint64_t end) {
        try {
            const bool closedForm = detail::closedFormApplies(params.attention);
            detail::ReferenceRows reference(params.attention, *slopes);
            std::vector<double> row(closedForm ? 0 : static_cast<std::size_t>(K));
            for (std::uint64_t it = begin; it < end && !cancelled; ++it) {
                const auto h = static_cast<std::int64_t>(it / perHead);
                const auto k = static_cast<std::int64_t>(it % perHead);
                const std::int64_t i = k == n ? queryRow : rows[static_cast<std::size_t>(k)];
                if (k == n && same >= 0) {
                    // copied from its sampled item below
                } else if (closedForm) {
                    results[it] = detail::GeometricRow(params.attention, reference.slope(h), i).stats();
                } else {
                    reference.probabilities(h, i, row);
                    results[it] = rowStats(row, b.queryPosition(i));
                }
                const std::uint64_t d = ++done;
                if (begin == 0 && progress && !progress(d, items)) cancelled = true;
            }
        } catch (const std::bad_alloc&) {
            std::lock_guard lock(errorMutex);
            if (!error) error = Error{ErrorCode::TooLarge, "out of memory for the statistics' working rows"};
            cancelled = true;
        }
    });
    if (error) return std::unexpected(*error);
    if (cancelled) return fail(ErrorCode::Cancelled, "statistics cancelled");
    if (progress) (void)progress(items, items);
    if (same >= 0)
        for (std::int64_t h = 0; h < H; ++h)
            results[static_cast<std::uint64_t>(h) * perHead + static_cast<std::uint64_t>(n)] =
                results[static_cast<std::uint64_t>(h) * perHead + static_cast<std::uint64_t>(same)];

    StatsResult out;
    out.queryRow = queryRow;
    out.rowsAveraged = n;
    out.heads.resize(static_cast<std::size_t>(H));
    for (std::int64_t h = 0; h < H; ++h) {
        HeadStats& hs = out.heads[static_cast<std::size_t>(h)];
        hs.head = static_cast<int>(h);
        hs.slope = (*slopes)[static_cast<std::size_t>(h)];
        hs.halfLife = halfLife(hs.slope);
        const std::uint64_t base = static_cast<std::uint64_t>(h) * perHead;
        hs.row = results[base + static_cast<std::uint64_t>(n)];
        hs.mean = meanRowStats(std::span(results).subspan(base, static_cast<std::size_t>(n)));
    }
    return out;
}

}  // namespace alibi
