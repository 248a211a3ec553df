// The reference path of the attention simulation (ReferenceRows, in double): the formulas
// cell by cell, the framework softmax over whole rows (masked keys at the mask value), and the
// public row functions built on it (attentionRow, attentionStages, contentLogit). Every fast
// path is checked against it; statistics and pictures use it.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <alibi/model/detail/attention_closed_form.hpp>
#include <alibi/model/detail/attention_detail.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {

namespace detail {

double maskLogit(const BiasParams& params) {
    return roundTo(params.dtype, maskDouble(params.mask, params.dtype));
}

std::int64_t allowedKeys(const BiasParams& params, std::int64_t i) {
    const std::int64_t K = params.keyCount();
    if (!modeMasks(params.mode)) return K;
    return std::clamp<std::int64_t>(params.queryPosition(i) + 1, 0, K);
}

void softmaxReference(std::span<double> x) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double max = -inf;
    for (double& v : x) {
        if (std::isnan(v)) v = -inf;  // only from +inf content meeting a -inf bias
        max = std::max(max, v);
    }
    if (max == -inf) {  // every logit -inf: 0/0, as in every framework
        std::fill(x.begin(), x.end(), std::numeric_limits<double>::quiet_NaN());
        return;
    }
    if (max == inf) {
        const auto count = static_cast<double>(std::count(x.begin(), x.end(), inf));
        for (double& v : x) v = v == inf ? 1.0 / count : 0.0;
        return;
    }
    double sum = 0;
    for (double& v : x) {
        v = std::exp(v - max);
        sum += v;
    }
    for (double& v : x) v /= sum;
}

namespace {
// Above this many doubles the reference path draws key vectors on the fly instead of caching.
constexpr std::uint64_t kReferenceKeyCache = std::uint64_t{1} << 22;  // 32 MiB
}  // namespace

ReferenceRows::ReferenceRows(const AttentionParams& params, std::vector<double> slopes)
    : m_params(params), m_slopes(std::move(slopes)) {}

const double* ReferenceRows::keys(std::int64_t head) {
    const std::int64_t K = m_params.bias.keyCount(), dk = m_params.content.dk;
    if (static_cast<std::uint64_t>(K) * dk > kReferenceKeyCache) return nullptr;
    if (m_keysHead != head) {
        m_keys.resize(static_cast<std::size_t>(K * dk));
        fillNormals(m_params.content.seed, kStreamKeys, static_cast<std::uint64_t>(head * K) * dk,
                    static_cast<std::uint64_t>(K * dk), 1.0, m_keys.data(), m_params.content.generator);
        m_keysHead = head;
    }
    return m_keys.data();
}

void ReferenceRows::content(std::int64_t head, std::int64_t query, std::span<double> out) {
    const ContentParams& c = m_params.content;
    const std::int64_t Q = m_params.bias.queries, K = m_params.bias.keyCount();
    switch (c.kind) {
        case ContentKind::Zero:
            std::fill(out.begin(), out.end(), 0.0);
            return;
        case ContentKind::Gaussian:
            fillNormals(c.seed, kStreamGaussian, static_cast<std::uint64_t>(head * Q + query) * K,
                        static_cast<std::uint64_t>(K), c.sigma, out.data(), c.generator);
            return;
        case ContentKind::Qk:
            break;
    }
    const auto dk = static_cast<std::size_t>(c.dk);
    m_q.resize(dk);
    fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(head * Q + query) * dk, dk, 1.0, m_q.data(),
                c.generator);
    const double* cached = keys(head);
    const double scale = std::sqrt(static_cast<double>(c.dk));
    for (std::int64_t j = 0; j < K; ++j) {
        const double* k = cached;
        if (k) {
            k += static_cast<std::size_t>(j) * dk;
        } else {
            m_k.resize(dk);
            fillNormals(c.seed, kStreamKeys, static_cast<std::uint64_t>(head * K + j) * dk, dk, 1.0, m_k.data(),
                        c.generator);
            k = m_k.data();
        }
        double dot = 0;
        for (std::size_t x = 0; x < dk; ++x) dot += m_q[x] * k[x];
        out[static_cast<std::size_t>(j)] = dot / scale;
    }
}

void ReferenceRows::probabilities(std::int64_t head, std::int64_t query, std::span<double> out) {
    const double slope = m_slopes[static_cast<std::size_t>(head)];
    if (closedFormApplies(m_params)) {
        GeometricRow(m_params, slope, query).probabilities(out);
        return;
    }
    logits(head, query, out);
    softmaxReference(out);
}

void ReferenceRows::logits(std::int64_t head, std::int64_t query, std::span<double> out) {
    content(head, query, out);
    logitsFromContent(head, query, out);
}

void ReferenceRows::logitsFromContent(std::int64_t head, std::int64_t query, std::span<double> out) {
    const std::int64_t n = allowedKeys(m_params.bias, query), K = m_params.bias.keyCount();
    const double slope = m_slopes[static_cast<std::size_t>(head)];
    for (std::int64_t j = 0; j < n; ++j) {
        const double b = biasValue(m_params.bias, slope, head, query, j);
        auto& x = out[static_cast<std::size_t>(j)];
        // A -inf bias (an f16 overflow) is a mask as the model sees it, whatever the content.
        x = b == -std::numeric_limits<double>::infinity() ? b : (x + b) / m_params.content.temperature;
    }
    // Masked keys hold the mask value itself (as masked_fill leaves it), not content + mask.
    const double mask = maskLogit(m_params.bias);
    for (std::int64_t j = n; j < K; ++j) out[static_cast<std::size_t>(j)] = mask;
}

}  // namespace detail

double contentLogit(const AttentionParams& params, std::int64_t head, std::int64_t query, std::int64_t key) {
    const ContentParams& c = params.content;
    const std::int64_t Q = params.bias.queries, K = params.bias.keyCount();
    switch (c.kind) {
        case ContentKind::Zero:
            return 0.0;
        case ContentKind::Gaussian:
            return c.sigma * standardNormal(c.seed, kStreamGaussian,
                                            static_cast<std::uint64_t>(head * Q + query) * K + key, c.generator);
        case ContentKind::Qk:
            break;
    }
    const auto dk = static_cast<std::size_t>(c.dk);
    std::vector<double> q(dk), k(dk);
    detail::fillNormals(c.seed, kStreamQueries, static_cast<std::uint64_t>(head * Q + query) * dk, dk, 1.0, q.data(),
                        c.generator);
    detail::fillNormals(c.seed, kStreamKeys, static_cast<std::uint64_t>(head * K + key) * dk, dk, 1.0, k.data(),
                        c.generator);
    double dot = 0;
    for (std::size_t x = 0; x < dk; ++x) dot += q[x] * k[x];
    return dot / std::sqrt(static_cast<double>(c.dk));
}

namespace {

Result<void> checkCell(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    if (head < 0 || head >= params.bias.slopes.heads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--head must be between 0 and {}, got {}", params.bias.slopes.heads - 1, head));
    if (query < 0 || query >= params.bias.queries)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query must be between 0 and {}, got {}", params.bias.queries - 1, query));
    return {};
}

}  // namespace

Result<std::vector<double>> attentionRow(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    auto slopes = validateAttention(params);
    if (!slopes) return slopes;
    if (auto ok = checkCell(params, head, query); !ok) return std::unexpected(ok.error());
    detail::ReferenceRows rows(params, std::move(*slopes));
    std::vector<double> out(static_cast<std::size_t>(params.bias.keyCount()));
    rows.probabilities(head, query, out);
    return out;
}

Result<AttentionStages> attentionStages(const AttentionParams& params, std::int64_t head, std::int64_t query) {
    auto slopes = validateAttention(params);
    if (!slopes) return std::unexpected(slopes.error());
    if (auto ok = checkCell(params, head, query); !ok) return std::unexpected(ok.error());
    const auto K = static_cast<std::size_t>(params.bias.keyCount());
    const double slope = (*slopes)[static_cast<std::size_t>(head)];
    detail::ReferenceRows rows(params, std::move(*slopes));
    AttentionStages s;
    s.content.resize(K);
    rows.content(head, query, s.content);
    s.withBias.resize(K);
    for (std::size_t j = 0; j < K; ++j)
        s.withBias[j] = s.content[j] + biasValue(params.bias, slope, head, query, static_cast<std::int64_t>(j));
    // The content is drawn once (q.k rows cost K x d_k normals): the logits and probabilities
    // follow from it as ReferenceRows::logits and ::probabilities would compute them.
    s.masked = s.content;
    rows.logitsFromContent(head, query, s.masked);
    if (detail::closedFormApplies(params)) {
        s.probabilities.resize(K);
        rows.probabilities(head, query, s.probabilities);
    } else {
        s.probabilities = s.masked;
        detail::softmaxReference(s.probabilities);
    }
    return s;
}

}  // namespace alibi
