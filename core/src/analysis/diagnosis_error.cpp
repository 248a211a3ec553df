// The comparisons behind the explorers' Diagnose map and every finding's attention effect (see
// diagnose.hpp): the tensor cell by cell against correct ALiBi, as a bias error and as the change
// of attention probabilities after a softmax over each row (zero content).
#include <alibi/analysis/diagnose.hpp>

#include "analysis/candidate.hpp"
#include "analysis/candidate_check.hpp"

#include <alibi/model/batch.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi {

using detail::absError;
using detail::Form;
using detail::formCell;

namespace {

std::uint64_t cells(std::int64_t a, std::int64_t b, std::int64_t c) {
    return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(c);
}

// The tensor's cells and correct ALiBi's, both as f64 (tiles, Q, K): tiles are heads, or (batch
// row, head) pairs of a batch. Correct ALiBi is exact (`rounded` false) or stored in the
// tensor's dtype (`rounded` true).
struct Pairs {
    Tensor stored, expected;
};

Result<Pairs> correctPairs(const Tensor& tensor, const Diagnosis& diagnosis, bool rounded, std::uint64_t budget) {
    if (!diagnosis.correctParams)
        return fail(ErrorCode::InvalidArgument,
                    diagnosis.slopeVector ? "correctAlibiError: a slope vector has no bias cells to compare"
                                          : "correctAlibiError: the diagnosis read no parameters off the tensor");
    BiasParams p = *diagnosis.correctParams;
    p.slopes.arith = Arith::Exact;
    // Correct ALiBi is rounded to its own dtype: the tensor's, or the half-precision grid a
    // low-precision-bias tensor's values lie on.
    const DType dtype = p.dtype;
    if (diagnosis.correctBatch) {
        BiasParams exact = p;
        if (!rounded) exact.dtype = DType::F64;
        auto expected = buildBatchBias(exact, *diagnosis.correctBatch, budget);
        if (!expected) return std::unexpected(expected.error());
        if (expected->size() != tensor.size())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("correctAlibiError: the tensor has {} elements but the diagnosed batch has {}",
                                    tensor.size(), expected->size()));
        const Shape& shape = expected->shape();  // (B, H, T, T)
        const Shape tiles{shape[0] * shape[1], shape[2], shape[3]};
        auto a = Tensor::allocate(tiles, DType::F64, budget, "diagnosis comparison");
        if (!a) return std::unexpected(a.error());
        auto b = Tensor::allocate(tiles, DType::F64, budget, "diagnosis comparison");
        if (!b) return std::unexpected(b.error());
        for (std::uint64_t n = 0; n < tensor.size(); ++n) {
            a->set(n, tensor.at(n));
            b->set(n, expected->at(n));
        }
        return Pairs{std::move(*a), std::move(*b)};
    }
    const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
    if (tensor.size() != cells(H, Q, K))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("correctAlibiError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                                tensor.size(), H, Q, K));
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto a = Tensor::allocate({H, Q, K}, DType::F64, budget, "diagnosis comparison");
    if (!a) return std::unexpected(a.error());
    auto b = Tensor::allocate({H, Q, K}, DType::F64, budget, "diagnosis comparison");
    if (!b) return std::unexpected(b.error());
    const double maskExact = maskDouble(p.mask, dtype);
    const double mask = rounded ? roundTo(dtype, maskExact) : maskExact;
    // A static KV cache: correct ALiBi over the used keys, the unused slots masked.
    const std::int64_t used = diagnosis.usedKeys > 0 ? diagnosis.usedKeys : K;
    const std::int64_t offset = used - Q;
    for (std::int64_t h = 0; h < H; ++h) {
        const double slope = (*slopes)[static_cast<std::size_t>(h)];
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto v = j < used ? biasCell(p.mode, slope, i + offset, j, used) : std::nullopt;
                const double expected = v ? (rounded ? roundTo(dtype, *v) : *v) : mask;
                // Flat and 1hqk hold hqk order; qkh its own.
                const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
                const auto n = static_cast<std::uint64_t>((h * Q + i) * K + j);
                a->set(n, stored);
                b->set(n, expected);
            }
    }
    return Pairs{std::move(*a), std::move(*b)};
}

// Softmax of one row into `out` (NaN everywhere when every entry is -inf or a NaN is present).
void softmaxRow(std::span<const double> x, std::vector<double>& out) {
    out.assign(x.size(), 0.0);
    double top = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (const double v : x) {
        nan = nan || std::isnan(v);
        top = std::max(top, v);
    }
    if (nan || std::isinf(top)) {
        // All -inf (0/0), a NaN, or +inf: the frameworks' softmax gives NaN.
        out.assign(x.size(), std::numeric_limits<double>::quiet_NaN());
        return;
    }
    double sum = 0;
    for (std::size_t k = 0; k < x.size(); ++k) sum += out[k] = std::exp(x[k] - top);
    for (double& p : out) p /= sum;
}

double probabilityChange(double p, double q) {
    if (std::isnan(p) && std::isnan(q)) return 0;  // both rows fully masked
    if (std::isnan(p) || std::isnan(q)) return 1;  // one NaN row: everything changed
    return std::fabs(p - q);
}

// Row by row: calls cell(n, |p - q|) for every cell, p from `a`, q from `b`.
template <class Fn>
void compareSoftmax(const Tensor& a, const Tensor& b, Fn&& cell) {
    const auto K = static_cast<std::size_t>(a.shape()[2]);
    const std::uint64_t rows = a.size() / K;
    std::vector<double> x(K), y(K), p, q;
    for (std::uint64_t r = 0; r < rows; ++r) {
        for (std::size_t k = 0; k < K; ++k) {
            x[k] = a.at(r * K + k);
            y[k] = b.at(r * K + k);
        }
        softmaxRow(x, p);
        softmaxRow(y, q);
        for (std::size_t k = 0; k < K; ++k) cell(r * K + k, probabilityChange(p[k], q[k]));
    }
}

}  // namespace

Result<Tensor> diagnosisError(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    if (!diagnosis.bestParams)
        return fail(ErrorCode::InvalidArgument, "diagnosisError: the diagnosis has no candidate to compare against");
    const BiasParams& p = *diagnosis.bestParams;
    const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
    if (tensor.size() != cells(H, Q, K))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("diagnosisError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                                tensor.size(), H, Q, K));
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto out = Tensor::allocate({H, Q, K}, DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    Form form;
    form.mode = p.mode;
    form.sign = diagnosis.bestSignFlipped ? -1.0 : 1.0;
    form.topLeft = diagnosis.bestTopLeft;
    form.offset = diagnosis.bestTopLeft ? 0 : K - Q;
    form.maskOffset = form.offset;
    const DType dtype = tensor.dtype();
    const double mask = maskDouble(p.mask, dtype);
    auto dst = out->as<float>();
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto v = formCell(form, (*slopes)[static_cast<std::size_t>(h)], i, j, K);
                const double expected = roundTo(dtype, v ? *v : mask);
                const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
                dst[static_cast<std::size_t>((h * Q + i) * K + j)] = static_cast<float>(absError(stored, expected));
            }
    return out;
}

Result<Tensor> correctAlibiError(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    auto pairs = correctPairs(tensor, diagnosis, true, budget);
    if (!pairs) return std::unexpected(pairs.error());
    auto out = Tensor::allocate(pairs->stored.shape(), DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    auto dst = out->as<float>();
    for (std::uint64_t n = 0; n < pairs->stored.size(); ++n)
        dst[static_cast<std::size_t>(n)] = static_cast<float>(absError(pairs->stored.at(n), pairs->expected.at(n)));
    return out;
}

Result<AttentionEffect> attentionEffect(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    auto exact = correctPairs(tensor, diagnosis, false, budget);
    if (!exact) return std::unexpected(exact.error());
    auto rounded = correctPairs(tensor, diagnosis, true, budget);
    if (!rounded) return std::unexpected(rounded.error());
    AttentionEffect e;
    compareSoftmax(exact->stored, exact->expected,
                   [&](std::uint64_t, double d) { e.maxProbabilityChange = std::max(e.maxProbabilityChange, d); });
    compareSoftmax(rounded->expected, exact->expected,
                   [&](std::uint64_t, double d) { e.dtypeProbabilityChange = std::max(e.dtypeProbabilityChange, d); });
    return e;
}

Result<Tensor> probabilityChangeMap(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    auto exact = correctPairs(tensor, diagnosis, false, budget);
    if (!exact) return std::unexpected(exact.error());
    auto out = Tensor::allocate(exact->stored.shape(), DType::F32, budget, "probability change map");
    if (!out) return out;
    auto dst = out->as<float>();
    compareSoftmax(exact->stored, exact->expected,
                   [&](std::uint64_t n, double d) { dst[static_cast<std::size_t>(n)] = static_cast<float>(d); });
    return out;
}

bool paintProbabilityChange(const Diagnosis& diagnosis) {
    if (!diagnosis.match || diagnosis.findings.empty()) return false;
    return std::none_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                        [](const Finding& f) { return f.changesAttention; });
}

}  // namespace alibi
