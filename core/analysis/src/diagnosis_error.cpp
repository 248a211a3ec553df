// The comparisons behind the explorers' Diagnose map and every finding's attention effect (see
// diagnose.hpp): the tensor cell by cell against correct ALiBi, as a bias error and as the change
// of attention probabilities after a softmax over each row (zero content).
#include <alibi/analysis/diagnose.hpp>

#include "batch_match.hpp"
#include "candidate.hpp"
#include "candidate_check.hpp"

#include <alibi/model/batch.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

namespace alibi {

using detail::absError;
using detail::Form;
using detail::formCell;

namespace {

std::uint64_t cells(std::int64_t a, std::int64_t b, std::int64_t c) {
    return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(c);
}

// The tensor's rows beside correct ALiBi's, one (tile, query) row at a time: tiles are heads, or
// (batch row, head) pairs of a batch. Correct ALiBi is exact (`rounded` false) or stored in its
// dtype (`rounded` true). Nothing the size of the tensor is kept but a batch's built bias.
class CorrectRows {
public:
    static Result<CorrectRows> make(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
        if (!diagnosis.correctParams)
            return fail(ErrorCode::InvalidArgument,
                        diagnosis.slopeVector ? "correctAlibiError: a slope vector has no bias cells to compare"
                                              : "correctAlibiError: the diagnosis read no parameters off the tensor");
        CorrectRows r(tensor, diagnosis);
        r.m_p.slopes.arith = Arith::Exact;
        if (diagnosis.correctBatch) {
            // A batch of decode rows compares with the last Q query rows of the square batch.
            const std::int64_t queries =
                diagnosis.queries > 0 && diagnosis.queries < r.m_p.queries ? diagnosis.queries : r.m_p.queries;
            for (const bool rounded : {false, true}) {
                BiasParams built = r.m_p;
                if (!rounded) built.dtype = DType::F64;
                auto expected =
                    detail::buildRowsBias(built, *diagnosis.correctBatch, queries, diagnosis.paddingZeros, budget);
                if (!expected) return std::unexpected(expected.error());
                if (expected->size() != tensor.size())
                    return fail(
                        ErrorCode::InvalidArgument,
                        fmt::format("correctAlibiError: the tensor has {} elements but the diagnosed batch has {}",
                                    tensor.size(), expected->size()));
                const Shape& shape = expected->shape();  // (B, H, Q, T)
                r.m_batchMask = roundTo(r.m_p.dtype, maskDouble(r.m_p.mask, r.m_p.dtype));
                r.m_shape = {shape[0] * shape[1], shape[2], shape[3]};
                (rounded ? r.m_batchRounded : r.m_batchExact) = std::make_shared<Tensor>(std::move(*expected));
            }
            return r;
        }
        const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
        if (tensor.size() != cells(H, Q, K))
            return fail(
                ErrorCode::InvalidArgument,
                fmt::format("correctAlibiError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                            tensor.size(), H, Q, K));
        auto slopes = computeSlopes(r.m_p.slopes);
        if (!slopes) return std::unexpected(slopes.error());
        if (static_cast<std::int64_t>(slopes->size()) != H)
            return fail(ErrorCode::InvalidArgument, "correctAlibiError: correct ALiBi has another head count");
        r.m_slopes = std::move(*slopes);
        r.m_shape = {H, Q, K};
        return r;
    }

    [[nodiscard]] const Shape& shape() const { return m_shape; }
    [[nodiscard]] std::uint64_t rows() const { return static_cast<std::uint64_t>(m_shape[0] * m_shape[1]); }
    // Rows (tile, query) of one batch row: its heads' query rows (all rows for one sequence).
    [[nodiscard]] std::uint64_t rowsPerBatchRow() const {
        return m_batchExact ? static_cast<std::uint64_t>(m_d.heads * m_shape[1]) : rows();
    }

    // Row `row` (tile * Q + query) of the tensor and of correct ALiBi; `masked`, when given, says
    // which keys correct ALiBi masks (causal or padding mask, an unused cache slot).
    void row(std::uint64_t row, bool rounded, std::vector<double>& stored, std::vector<double>& expected,
             std::vector<bool>* masked = nullptr) const {
        const std::int64_t K = m_shape[2];
        stored.resize(static_cast<std::size_t>(K));
        expected.resize(static_cast<std::size_t>(K));
        if (masked) masked->assign(static_cast<std::size_t>(K), false);
        if (m_batchExact) {
            const Tensor& e = rounded ? *m_batchRounded : *m_batchExact;
            // BLOOM's zeros on the padding keys: its separate mask hides them from the softmax.
            std::int64_t hidden = 0;
            if (m_d.paddingZeros && m_d.correctBatch && m_d.correctBatch->padding == Padding::Left) {
                const std::uint64_t perBatchRow = rowsPerBatchRow();
                const auto b = static_cast<std::size_t>(row / perBatchRow);
                if (b < m_d.correctBatch->lengths.size()) hidden = K - m_d.correctBatch->lengths[b];
            }
            for (std::int64_t j = 0; j < K; ++j) {
                const std::uint64_t n = row * static_cast<std::uint64_t>(K) + static_cast<std::uint64_t>(j);
                const bool padding = j < hidden;
                stored[static_cast<std::size_t>(j)] =
                    padding ? -std::numeric_limits<double>::infinity() : m_tensor.at(n);
                expected[static_cast<std::size_t>(j)] = padding ? -std::numeric_limits<double>::infinity() : e.at(n);
                // The built batch holds the rounded mask value in every masked cell, and no
                // bias comes near it.
                if (masked)
                    (*masked)[static_cast<std::size_t>(j)] =
                        padding || m_batchRounded->at(n) == m_batchMask || std::isinf(m_batchRounded->at(n));
            }
            return;
        }
        const std::int64_t H = m_shape[0], Q = m_shape[1];
        const auto h = static_cast<std::int64_t>(row / static_cast<std::uint64_t>(Q));
        const auto i = static_cast<std::int64_t>(row % static_cast<std::uint64_t>(Q));
        // Correct ALiBi is rounded to its own dtype: the tensor's, or the half-precision grid a
        // low-precision-bias tensor's values lie on.
        const DType dtype = m_p.dtype;
        const double maskExact = maskDouble(m_p.mask, dtype);
        const double mask = rounded ? roundTo(dtype, maskExact) : maskExact;
        // A static KV cache: correct ALiBi over the used keys, the unused slots masked.
        const std::int64_t used = m_d.usedKeys > 0 ? m_d.usedKeys : K;
        const double slope = m_slopes[static_cast<std::size_t>(h)];
        for (std::int64_t j = 0; j < K; ++j) {
            const auto v = j < used ? biasCell(m_p.mode, slope, i + used - Q, j, used) : std::nullopt;
            expected[static_cast<std::size_t>(j)] = v ? (rounded ? roundTo(dtype, *v) : *v) : mask;
            if (masked) (*masked)[static_cast<std::size_t>(j)] = !v.has_value();
            // Flat and 1hqk hold hqk order; qkh its own.
            stored[static_cast<std::size_t>(j)] = m_tensor.at(layoutIndex(m_p.layout, H, Q, K, h, i, j));
        }
    }

private:
    CorrectRows(const Tensor& tensor, const Diagnosis& d) : m_tensor(tensor), m_d(d), m_p(*d.correctParams) {}

    const Tensor& m_tensor;
    const Diagnosis& m_d;
    BiasParams m_p;
    std::vector<double> m_slopes;
    Shape m_shape;
    std::shared_ptr<Tensor> m_batchExact, m_batchRounded;
    double m_batchMask = 0;  // the value the built batch holds in its masked cells
};

// A cell correct ALiBi masks and the tensor masks alike: NaN when `masked` asks for it (the
// Diagnose map paints it masked grey), else the computed value (0).
float markMasked(double value, bool bothMasked, MaskedCells masked) {
    return bothMasked && masked == MaskedCells::NaN ? std::numeric_limits<float>::quiet_NaN()
                                                    : static_cast<float>(value);
}

// Rows the attention effect reads: every row of a tensor up to this many cells, else a strided
// sample of rows (plus the last), enough to find the largest change of a regular bias.
constexpr std::uint64_t kEffectCells = std::uint64_t{1} << 22;

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

// |softmax(p row) - softmax(q row)| per key into `out`.
void softmaxChange(std::span<const double> a, std::span<const double> b, std::vector<double>& out) {
    std::vector<double> p, q;
    softmaxRow(a, p);
    softmaxRow(b, q);
    out.resize(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) out[k] = probabilityChange(p[k], q[k]);
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

Result<Tensor> correctAlibiError(const Tensor& tensor, const Diagnosis& diagnosis, MaskedCells masked,
                                 std::uint64_t budget) {
    auto rows = CorrectRows::make(tensor, diagnosis, budget);
    if (!rows) return std::unexpected(rows.error());
    auto out = Tensor::allocate(rows->shape(), DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    auto dst = out->as<float>();
    const auto K = static_cast<std::size_t>(rows->shape()[2]);
    std::vector<double> stored, expected;
    std::vector<bool> maskedKeys;
    for (std::uint64_t r = 0; r < rows->rows(); ++r) {
        rows->row(r, true, stored, expected, &maskedKeys);
        for (std::size_t k = 0; k < K; ++k) {
            const double error = absError(stored[k], expected[k]);
            dst[r * K + k] = markMasked(error, maskedKeys[k] && error == 0, masked);
        }
    }
    return out;
}

namespace {

// The effect over rows [first, first + n) of `rows`, sampled as attentionEffect says.
AttentionEffect effectOfRows(const CorrectRows& rows, std::uint64_t first, std::uint64_t n) {
    const auto K = static_cast<std::uint64_t>(rows.shape()[2]);
    const std::uint64_t sampled = std::max<std::uint64_t>(1, std::min(n, kEffectCells / std::max<std::uint64_t>(K, 1)));
    AttentionEffect e;
    std::vector<double> stored, exact, rounded, unused, change;
    for (std::uint64_t s = 0; s < sampled; ++s) {
        const std::uint64_t r = first + (s + 1 == sampled ? n - 1 : s * n / sampled);
        rows.row(r, false, stored, exact);
        rows.row(r, true, unused, rounded);
        softmaxChange(stored, exact, change);
        for (const double d : change) e.maxProbabilityChange = std::max(e.maxProbabilityChange, d);
        softmaxChange(rounded, exact, change);
        for (const double d : change) e.dtypeProbabilityChange = std::max(e.dtypeProbabilityChange, d);
    }
    return e;
}

}  // namespace

Result<AttentionEffect> attentionEffect(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    auto rows = CorrectRows::make(tensor, diagnosis, budget);
    if (!rows) return std::unexpected(rows.error());
    return effectOfRows(*rows, 0, rows->rows());
}

namespace detail {

Result<std::vector<AttentionEffect>> attentionEffectPerBatchRow(const Tensor& tensor, const Diagnosis& diagnosis,
                                                                std::uint64_t budget) {
    auto rows = CorrectRows::make(tensor, diagnosis, budget);
    if (!rows) return std::unexpected(rows.error());
    const std::uint64_t per = rows->rowsPerBatchRow();
    std::vector<AttentionEffect> out;
    for (std::uint64_t first = 0; first < rows->rows(); first += per) out.push_back(effectOfRows(*rows, first, per));
    return out;
}

}  // namespace detail

Result<Tensor> probabilityChangeMap(const Tensor& tensor, const Diagnosis& diagnosis, MaskedCells masked,
                                    std::uint64_t budget) {
    auto rows = CorrectRows::make(tensor, diagnosis, budget);
    if (!rows) return std::unexpected(rows.error());
    auto out = Tensor::allocate(rows->shape(), DType::F32, budget, "probability change map");
    if (!out) return out;
    auto dst = out->as<float>();
    const auto K = static_cast<std::size_t>(rows->shape()[2]);
    std::vector<double> stored, exact, rounded, change;
    std::vector<bool> maskedKeys;
    for (std::uint64_t r = 0; r < rows->rows(); ++r) {
        rows->row(r, false, stored, exact);
        softmaxChange(stored, exact, change);
        // Masked alike: the tensor holds correct ALiBi's mask in its dtype.
        if (masked == MaskedCells::NaN) rows->row(r, true, stored, rounded, &maskedKeys);
        for (std::size_t k = 0; k < K; ++k)
            dst[r * K + k] = markMasked(
                change[k], masked == MaskedCells::NaN && maskedKeys[k] && absError(stored[k], rounded[k]) == 0, masked);
    }
    return out;
}

bool paintProbabilityChange(const Diagnosis& diagnosis) {
    if (!diagnosis.match || diagnosis.findings.empty()) return false;
    return std::none_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                        [](const Finding& f) { return f.changesAttention; });
}

}  // namespace alibi
