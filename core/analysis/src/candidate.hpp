// The candidates diagnose tries: a reading of the tensor's shape and memory, a form of the bias
// (mode, sign, query alignment), a slope vector and a mask; and the exact value each candidate
// gives a cell.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/params.hpp>

#include <algorithm>
#include <cmath>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alibi::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// Cells a candidate is first checked on (strided over the tensor) before a full scan.
inline constexpr std::uint64_t kSampleCells = 4096;

// One way to read the tensor's shape and memory.
struct Reading {
    Layout declared = Layout::Hqk;  // what the shape says (reported)
    Layout memory = Layout::Hqk;    // the order the data is in (Hqk or Qkh)
    std::int64_t heads = 1, queries = 1, keys = 1;
    bool qkhAsHqk = false;
    bool noHeadAxis = false;  // a 2-D (Q, K) tensor
};

// Everything about a candidate but its slopes and mask.
struct Form {
    Form() = default;
    Form(BiasMode mode_, double sign_, std::int64_t offset_, bool topLeft_,
         std::optional<std::int64_t> maskOffset_ = std::nullopt)
        : mode(mode_), sign(sign_), offset(offset_), topLeft(topLeft_), maskOffset(maskOffset_) {}

    BiasMode mode = BiasMode::Causal;
    double sign = 1;          // -1: the sign-flipped bug
    std::int64_t offset = 0;  // query i sits at p_i = i + offset (K - Q is right; 0 is top-left)
    bool topLeft = false;
    // The causal mask's own query offset when it disagrees with the bias's (a cached bias sliced
    // top-left under a bottom-right mask, or the reverse); nullopt: the same as `offset`.
    std::optional<std::int64_t> maskOffset;
    // Positions rounded to this dtype before the distances are taken (a bf16 or f16 arange);
    // F64: exact integer positions.
    DType positions = DType::F64;
    // Correct ALiBi plus a constant per query row (read off the row's last allowed key).
    bool rowOffset = false;
};

struct SlopeCandidate {
    SlopeCandidate() = default;
    SlopeCandidate(SlopeScheme scheme_, double maxBias_, std::vector<double> slopes_, std::vector<Finding> findings_,
                   std::string description_, bool roundedFirst_ = false,
                   SlopeScheme correctScheme_ = SlopeScheme::Press)
        : scheme(scheme_),
          maxBias(maxBias_),
          slopes(std::move(slopes_)),
          findings(std::move(findings_)),
          description(std::move(description_)),
          roundedFirst(roundedFirst_),
          correctScheme(correctScheme_) {}

    SlopeScheme scheme = SlopeScheme::Custom;
    double maxBias = 8;
    std::vector<double> slopes;
    std::vector<Finding> findings;
    std::string description;  // for the summary
    // The slopes were rounded to the tensor's dtype before multiplying (PyTorch arithmetic in
    // f16/bf16): the scheme is right, but buildBias (which multiplies in double) differs by an ulp.
    bool roundedFirst = false;
    // The scheme correct ALiBi has here (with maxBias): press unless the slopes are linear, whose
    // only possible bug is the 1/sqrt(d_k) scaling. Diagnosis::correctParams takes it.
    SlopeScheme correctScheme = SlopeScheme::Press;
    // With correctScheme custom: the slopes correct ALiBi has (one tensor-parallel rank's slice).
    std::vector<double> correctSlopes;
};

struct Candidate {
    Reading reading;
    Form form;
    SlopeCandidate slopes;
    MaskValue mask;
    bool maskSeen = false;  // false: the tensor has no masked entry, so any mask reproduces it
    std::vector<double> inferred;
    std::uint64_t sampleMismatches = 0;
    // With form.rowOffset: the constant of each (h, i), at h * Q + i.
    std::vector<double> rowOffsets;
    // f16 only: masked cells hold the lowest value or -inf (finfo.min added to a bias, so only
    // some cells overflowed); either agrees with the mask.
    bool mixedMask = false;
};

// Reads the tensor under one Reading.
class View {
public:
    View(const Tensor& tensor, const Reading& r) : m_t(tensor), m_r(r) {}

    [[nodiscard]] std::uint64_t index(std::int64_t h, std::int64_t i, std::int64_t j) const {
        return layoutIndex(m_r.memory, m_r.heads, m_r.queries, m_r.keys, h, i, j);
    }
    [[nodiscard]] double at(std::int64_t h, std::int64_t i, std::int64_t j) const { return m_t.at(index(h, i, j)); }
    void decode(std::uint64_t n, std::int64_t& h, std::int64_t& i, std::int64_t& j) const {
        const auto H = static_cast<std::uint64_t>(m_r.heads), Q = static_cast<std::uint64_t>(m_r.queries),
                   K = static_cast<std::uint64_t>(m_r.keys);
        if (m_r.memory == Layout::Qkh) {
            h = static_cast<std::int64_t>(n % H);
            const std::uint64_t r = n / H;
            j = static_cast<std::int64_t>(r % K);
            i = static_cast<std::int64_t>(r / K);
        } else {
            j = static_cast<std::int64_t>(n % K);
            const std::uint64_t r = n / K;
            i = static_cast<std::int64_t>(r % Q);
            h = static_cast<std::int64_t>(r / Q);
        }
    }
    [[nodiscard]] const Tensor& tensor() const { return m_t; }
    [[nodiscard]] const Reading& reading() const { return m_r; }

private:
    const Tensor& m_t;
    Reading m_r;
};

// The exact (unrounded) value a form gives cell (i, j) for slope m; nullopt when masked.
inline std::optional<double> formCell(const Form& f, double m, std::int64_t i, std::int64_t j, std::int64_t keys) {
    if (!f.maskOffset && f.positions == DType::F64) {
        const auto v = biasCell(f.mode, m, i + f.offset, j, keys);
        if (!v) return std::nullopt;
        return f.sign * *v;
    }
    const std::int64_t maskAt = i + f.maskOffset.value_or(f.offset);
    if (modeMasks(f.mode) && j > maskAt) return std::nullopt;
    const auto pos = [&](std::int64_t x) {
        return f.positions == DType::F64 ? static_cast<double>(x) : roundTo(f.positions, static_cast<double>(x));
    };
    const double d = pos(i + f.offset) - pos(j);
    double n = 0;
    switch (f.mode) {
        case BiasMode::Causal:
            n = -d;
            break;
        case BiasMode::Symmetric:
            n = -std::fabs(d);
            break;
        case BiasMode::Clamped:
            n = -std::max(d, 0.0);
            break;
        case BiasMode::Bloom:
            n = pos(j);
            break;
        case BiasMode::Mpt:
            n = -(pos(keys - 1) - pos(j));
            break;
    }
    return f.sign * m * n + 0.0;
}

inline double expectedExact(const Candidate& c, DType dtype, std::int64_t h, std::int64_t i, std::int64_t j) {
    const auto v = formCell(c.form, c.slopes.slopes[static_cast<std::size_t>(h)], i, j, c.reading.keys);
    if (!v) return maskDouble(c.mask, dtype);
    if (c.form.rowOffset) return *v + c.rowOffsets[static_cast<std::size_t>(h * c.reading.queries + i)];
    return *v;
}

}  // namespace alibi::detail
