// Zero-content rows as truncated geometric distributions. For a run of keys at distances
// d = first .. first + n - 1 with logits offset - a d, the weights relative to the row maximum
// are w0 r^k (k = d - first, r = e^-a), so
//   sum      = w0 (1 - r^n) / (1 - r)              = w0 expm1(-a n) / expm1(-a)
//   mean k   = r / (1 - r) - n r^n / (1 - r^n)     = 1 / expm1(a) - n / expm1(a n)
// (expm1 keeps both accurate when a is tiny; the mean switches to its Taylor series when a n is
// small, where the two terms of the difference nearly cancel).
#include <alibi/model/detail/attention_closed_form.hpp>

#include <alibi/model/bias.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace alibi::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// sum_{k=0}^{n-1} e^{-a k}
double geometricSum(double a, std::int64_t n) {
    if (n <= 0) return 0;
    if (a == 0) return static_cast<double>(n);
    return std::expm1(-a * static_cast<double>(n)) / std::expm1(-a);
}

// The mean of k in [0, n) under weights e^{-a k}.
double geometricMean(double a, std::int64_t n) {
    if (n <= 1) return 0;
    const auto dn = static_cast<double>(n);
    const double x = a * dn;
    if (x < 1e-2) {
        // 1/expm1(t) = 1/t - 1/2 + t/12 - t^3/720 + t^5/30240 - ..., at t = a and t = a n.
        const double n2 = dn * dn, a2 = a * a;
        return (dn - 1) / 2 - a * (n2 - 1) / 12 + a * a2 * (n2 * n2 - 1) / 720 -
               a * a2 * a2 * (n2 * n2 * n2 - 1) / 30240;
    }
    return 1 / std::expm1(a) - dn / std::expm1(x);
}

}  // namespace

bool closedFormApplies(const AttentionParams& params) {
    // A framework profile (--arith) rounds the bias its own way, a few ulp from the exact one:
    // those rows come from the bias as the profile stores it.
    return params.content.kind == ContentKind::Zero && params.bias.slopes.arith == Arith::Exact &&
           (params.bias.dtype == DType::F64 || params.bias.dtype == DType::F32);
}

GeometricRow::GeometricRow(const AttentionParams& params, double slope, std::int64_t query) {
    const BiasParams& b = params.bias;
    const std::int64_t K = b.keyCount(), p = b.queryPosition(query);
    m_keys = K;
    m_pos = p;
    m_a = slope / params.content.temperature;
    m_symmetric = b.mode == BiasMode::Symmetric;
    // Keys j <= p (distance p - j) and keys j > p (distance j - p); p may be negative when K < Q.
    const std::int64_t past = std::clamp<std::int64_t>(p + 1, 0, K);
    const std::int64_t futureFirst = std::max<std::int64_t>(1, -p);
    m_visible = modeMasks(b.mode) ? past : K;

    Run& left = m_runs[0];
    left.first = 0;
    left.count = past;
    switch (b.mode) {
        case BiasMode::Bloom:
            left.offset = m_a * static_cast<double>(p);
            break;  // m j / T
        case BiasMode::Mpt:
            left.offset = -m_a * static_cast<double>(K - 1 - p);
            break;  // -m (K-1-j) / T
        default:
            left.offset = 0;
            break;
    }
    if (m_symmetric) m_runs[1] = Run{futureFirst, K - past, 0, 0, 0};
    if (b.mode == BiasMode::Clamped) m_blocks[0] = Block{futureFirst, K - past, 0.0, 0};
    if (modeMasks(b.mode)) m_blocks[1] = Block{futureFirst, K - past, roundTo(b.dtype, maskDouble(b.mask, b.dtype)), 0};

    m_max = -kInf;
    for (const Run& r : m_runs)
        if (r.count > 0) m_max = std::max(m_max, r.offset - m_a * static_cast<double>(r.first));
    for (const Block& k : m_blocks)
        if (k.count > 0) m_max = std::max(m_max, k.logit);
    if (m_max == -kInf) {  // every key masked with -inf
        m_nan = true;
        return;
    }
    m_total = 0;
    for (Run& r : m_runs) {
        if (r.count <= 0) continue;
        r.weight = std::exp(r.offset - m_a * static_cast<double>(r.first) - m_max) * geometricSum(m_a, r.count);
        r.mean = geometricMean(m_a, r.count);
        m_total += r.weight;
    }
    for (Block& k : m_blocks) {
        if (k.count <= 0) continue;
        k.weight = static_cast<double>(k.count) * std::exp(k.logit - m_max);
        m_total += k.weight;
    }
}

void GeometricRow::probabilities(std::span<double> out) const {
    for (std::int64_t j = 0; j < m_keys; ++j) out[static_cast<std::size_t>(j)] = probability(j);
}

double GeometricRow::sumBetween(std::int64_t first, std::int64_t last) const {
    if (m_nan) return kNaN;
    first = std::max<std::int64_t>(first, 0);
    last = std::min(last, m_keys);
    if (first >= last) return 0;
    double sum = 0;
    // Keys at or before the query: distances (p - b, p - a] for keys [a, b), one geometric run.
    const std::int64_t past = std::clamp<std::int64_t>(m_pos + 1, 0, m_keys);
    if (const std::int64_t a = first, b = std::min(last, past); a < b) {
        const double d0 = static_cast<double>(m_pos - (b - 1));
        sum += expOrZero(m_runs[0].offset - m_a * d0 - m_max) * geometricSum(m_a, b - a);
    }
    // Keys after the query: symmetric's right run, or one block of equal logits.
    if (const std::int64_t a = std::max(first, past), b = last; a < b) {
        if (m_symmetric)
            sum += expOrZero(-m_a * static_cast<double>(a - m_pos) - m_max) * geometricSum(m_a, b - a);
        else
            sum += static_cast<double>(b - a) * probability(a) * m_total;
    }
    return sum / m_total;
}

double GeometricRow::runMass(const Run& r, std::int64_t maxDistance) const {
    const std::int64_t n = std::clamp<std::int64_t>(maxDistance - r.first + 1, 0, r.count);
    if (n == 0) return 0;
    if (n == r.count) return r.weight;
    return std::exp(r.offset - m_a * static_cast<double>(r.first) - m_max) * geometricSum(m_a, n);
}

// The weight of the keys within `distance` of the query, relative to m_total.
double GeometricRow::massWithin(std::int64_t distance) const {
    double mass = 0;
    for (const Run& r : m_runs)
        if (r.count > 0) mass += runMass(r, distance);
    for (const Block& k : m_blocks) {
        if (k.count <= 0 || k.weight == 0) continue;
        const std::int64_t n = std::clamp<std::int64_t>(distance - k.first + 1, 0, k.count);
        mass += k.weight * (static_cast<double>(n) / static_cast<double>(k.count));
    }
    return mass / m_total;
}

// rowStats's rule: the smallest d with mass(|p - j| <= d) >= level (less a slack of 1e-12 for
// a total that is 1 only in exact arithmetic), else the largest distance in the row.
double GeometricRow::distanceHolding(double level) const {
    const std::int64_t maxD = std::max(std::llabs(m_pos), std::llabs(m_pos - (m_keys - 1)));
    const double target = level - 1e-12;
    std::int64_t lo = 0, hi = maxD;  // the answer is in [lo, hi]
    if (massWithin(maxD) < target) return static_cast<double>(maxD);
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (massWithin(mid) >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return static_cast<double>(lo);
}

RowStats GeometricRow::stats() const {
    RowStats s;
    if (m_nan) return s;
    // entropy = log Z - sum_j w_j (x_j - max) / Z, with weights w_j = e^{x_j - max}, Z = sum w_j.
    double weighted = 0, distance = 0;
    for (const Run& r : m_runs) {
        if (r.count <= 0) continue;
        const double meanD = static_cast<double>(r.first) + r.mean;
        weighted += r.weight * (r.offset - m_max - m_a * meanD);
        distance += r.weight * meanD;
    }
    for (const Block& k : m_blocks) {
        if (k.count <= 0 || k.weight == 0) continue;
        weighted += k.weight * (k.logit - m_max);
        distance += k.weight * (static_cast<double>(k.first) + static_cast<double>(k.count - 1) / 2);
    }
    s.entropy = std::log(m_total) - weighted / m_total;
    s.meanDistance = distance / m_total;
    s.distance50 = distanceHolding(0.5);
    s.distance90 = distanceHolding(0.9);
    return s;
}

}  // namespace alibi::detail
