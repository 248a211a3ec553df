// The position schemes of position_schemes.hpp: each formula in double (the T5 bucket in float32,
// as torch takes its logarithm), and the curves with their labels, formulas and sources.
#include <alibi/model/position_schemes.hpp>

#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

namespace alibi {

std::string_view positionSchemeLabel(PositionScheme scheme) {
    switch (scheme) {
        case PositionScheme::ALiBi:
            return "ALiBi";
        case PositionScheme::RoPE:
            return "RoPE";
        case PositionScheme::Sinusoidal:
            return "sinusoidal";
        case PositionScheme::T5:
            return "T5";
        case PositionScheme::KERPLE:
            return "KERPLE";
        case PositionScheme::Sandwich:
            return "Sandwich";
    }
    return "ALiBi";
}

// ---------------------------------------------------------------------------
// Formulas

int t5RelativePositionBucket(std::int64_t relativePosition, bool bidirectional, int numBuckets, int maxDistance) {
    int bucket = 0;
    std::int64_t n = 0;
    if (bidirectional) {
        numBuckets /= 2;
        if (relativePosition > 0) bucket += numBuckets;  // keys ahead of the query: the upper half
        n = relativePosition < 0 ? -relativePosition : relativePosition;
    } else {
        n = relativePosition < 0 ? -relativePosition : 0;  // -min(relative_position, 0): keys ahead -> 0
    }
    const int maxExact = numBuckets / 2;
    if (n < maxExact) return bucket + static_cast<int>(n);
    // torch: relative_position.float() / max_exact, torch.log in float32, divided by the Python
    // double math.log(max_distance / max_exact) and multiplied by an int, both as float32
    // scalars, then .to(torch.long) (truncation).
    const float ratio = static_cast<float>(n) / static_cast<float>(maxExact);
    const float scaled =
        std::log(ratio) /
        static_cast<float>(std::log(static_cast<double>(maxDistance) / static_cast<double>(maxExact))) *
        static_cast<float>(numBuckets - maxExact);
    const std::int64_t large = maxExact + static_cast<std::int64_t>(scaled);
    return bucket + static_cast<int>(std::min<std::int64_t>(large, numBuckets - 1));
}

double t5IllustrativeBucketBias(int bucket) {
    const double b = bucket;
    return -2.5 * std::log1p(b) + 0.3 * std::sin(2.3 * b);
}

double kerpleLogBias(double d, double r1, double r2) {
    return -r1 * std::log1p(r2 * d);
}

double kerplePowerBias(double d, double r1, double r2) {
    return -r1 * std::pow(d, r2);
}

double sinusoidalInnerProduct(double d, int dim) {
    double sum = 0;
    for (int k = 0; k < dim / 2; ++k) sum += std::cos(d / std::pow(10000.0, 2.0 * k / dim));
    return sum;
}

double sandwichInnerProduct(double d, int dbar) {
    double sum = 0;
    for (int k = 1; k <= dbar / 2; ++k) sum += std::cos(d / std::pow(10000.0, 2.0 * k / dbar));
    return sum;
}

double sandwichCompression(int head, int heads) {
    return 8.0 * (head + 1) / heads;
}

double sandwichBias(double d, int dbar, double compression) {
    return (sandwichInnerProduct(d, dbar) - dbar / 2.0) / compression;
}

double ropeExpectedLogit(double d, int dim) {
    double sum = 0;
    for (int k = 0; k < dim / 2; ++k) sum += std::cos(d * std::pow(10000.0, -2.0 * k / dim));
    return 2.0 * sum / std::sqrt(static_cast<double>(dim));
}

double ropeDecayBound(double d, int dim) {
    std::complex<double> partial = 0;
    double sum = 0;
    for (int k = 0; k < dim / 2; ++k) {
        partial += std::polar(1.0, d * std::pow(10000.0, -2.0 * k / dim));  // S_{k+1}
        sum += std::abs(partial);
    }
    return sum / (dim / 2);
}

// ---------------------------------------------------------------------------
// Curves

namespace {

// "1/2" for a slope that is one over a power of two (the common case), else 4 significant digits.
std::string slopeText(double m) {
    if (m > 0) {
        const double inverse = 1.0 / m;
        const double e = std::round(std::log2(inverse));
        if (e >= 0 && e <= 62 && std::exp2(e) == inverse)
            return fmt::format("1/{}", static_cast<std::uint64_t>(inverse));
    }
    return fmt::format("{:.4g}", m);
}

std::string numberText(double v) {
    return fmt::format("{:g}", v);
}

// A Sandwich head's scale 1/(8h/H) = H/(8h): "1", "1/8", "1.5", else 4 significant digits.
std::string scaleText(double scale) {
    if (scale >= 1 || !(scale > 0)) return fmt::format("{:.4g}", scale);
    const double inverse = 1.0 / scale;
    if (inverse == std::round(inverse) && inverse < 1e15)
        return fmt::format("1/{}", static_cast<std::uint64_t>(inverse));
    return fmt::format("{:.4g}", scale);
}

Result<void> validate(const PositionSchemesParams& p) {
    if (p.maxDistance < 1 || p.maxDistance > kMaxSchemeDistance)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the maximum distance D must be 1..{}, got {}: pick a D in that range",
                                kMaxSchemeDistance, p.maxDistance));
    for (const auto& [name, dim] :
         {std::pair{"RoPE dimension", p.ropeDim}, std::pair{"sinusoidal dimension", p.sinusoidalDim},
          std::pair{"Sandwich dimension dbar", p.sandwichDim}})
        if (dim < 2 || dim > 8192 || dim % 2 != 0)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("the {} must be an even number from 2 to 8192, got {}", name, dim));
    if (p.t5Buckets < 4 || p.t5Buckets > 1024 || p.t5MaxDistance <= p.t5Buckets / 2)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("T5 needs 4..1024 buckets and a max_distance above half of them (got {} buckets, "
                                "max_distance {}): T5's defaults are 32 and 128",
                                p.t5Buckets, p.t5MaxDistance));
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (!positive(p.kerpleLogR1) || !positive(p.kerpleLogR2) || !positive(p.kerplePowerR1) ||
        !positive(p.kerplePowerR2) || p.kerplePowerR2 > 2)
        return fail(ErrorCode::InvalidArgument,
                    "KERPLE's r1 and r2 must be positive and finite (the power kernel's r2 at most 2)");
    return {};
}

// Softmax over the curve's samples, in place (max subtracted first, so large biases stay finite).
void softmaxInPlace(std::vector<double>& y) {
    if (y.empty()) return;
    const double top = *std::max_element(y.begin(), y.end());
    double sum = 0;
    for (double& v : y) sum += (v = std::exp(v - top));
    for (double& v : y) v /= sum;
}

}  // namespace

Result<PositionSchemes> positionSchemeCurves(const PositionSchemesParams& p) {
    if (auto ok = validate(p); !ok) return std::unexpected(ok.error());
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());

    PositionSchemes out;
    out.quantity = p.quantity;
    out.maxDistance = p.maxDistance;
    const bool attention = p.quantity == SchemeQuantity::Attention;
    const std::size_t n = static_cast<std::size_t>(p.maxDistance) + 1;
    auto curve = [&](PositionScheme scheme, std::string name, std::string legend, std::string formula,
                     std::string source, int variant, auto&& f) {
        PositionCurve c;
        c.scheme = scheme;
        c.label = std::string(positionSchemeLabel(scheme));
        c.name = std::move(name);
        c.legend = std::move(legend);
        c.formula = std::move(formula);
        c.source = std::move(source);
        c.variant = variant;
        c.x.resize(n);
        c.y.resize(n);
        for (std::size_t d = 0; d < n; ++d) {
            c.x[d] = static_cast<double>(d);
            c.y[d] = f(static_cast<double>(d));
        }
        if (attention) softmaxInPlace(c.y);
        out.curves.push_back(std::move(c));
        return &out.curves.back();
    };

    const int heads = static_cast<int>(slopes->size());
    const std::string alibiSource = "Press, Smith, Lewis 2022, Train Short, Test Long (ICLR 2022)";
    const std::string alibiLegend = heads == 1
                                        ? fmt::format("ALiBi (m = {})", slopeText(slopes->front()))
                                        : fmt::format("ALiBi, {} heads (m = {} .. {})", heads,
                                                      slopeText(*std::max_element(slopes->begin(), slopes->end())),
                                                      slopeText(*std::min_element(slopes->begin(), slopes->end())));
    for (int h = 0; h < heads; ++h) {
        const double m = (*slopes)[static_cast<std::size_t>(h)];
        PositionCurve* c = curve(PositionScheme::ALiBi, fmt::format("ALiBi h{} (m = {})", h, slopeText(m)), alibiLegend,
                                 "-m_h · d, the session's slopes", alibiSource, 0, [m](double d) { return -m * d; });
        c->head = h;
    }

    if (!attention) {
        const std::string ropeSource = "Su et al. 2021, RoFormer (arXiv 2104.09864), sec. 3.4.3, eq. (35) with q = k";
        const std::string boundSource = "Su et al. 2021, RoFormer (arXiv 2104.09864), sec. 3.4.3, eq. (37) and fig. 2";
        curve(PositionScheme::RoPE, "RoPE E[q·R(d)q]/sqrt(d_k)", fmt::format("RoPE, q = k random, d_k = {}", p.ropeDim),
              fmt::format("(2/sqrt(d_k)) sum_k cos(d·theta_k), theta_k = 10000^(-2k/d_k), d_k = {}; i.i.d. q, k: 0",
                          p.ropeDim),
              ropeSource, 0, [&](double d) { return ropeExpectedLogit(d, p.ropeDim); });
        // The bound is relative (RoFormer plots it so): drawn scaled to the RoPE curve's value at
        // d = 0, sqrt(d_k), so it reads as the envelope of that curve.
        const double boundScale = std::sqrt(static_cast<double>(p.ropeDim)) / ropeDecayBound(0, p.ropeDim);
        curve(PositionScheme::RoPE, "RoPE decay bound", "RoPE long-term decay bound",
              "(1/(d_k/2)) sum_j |S_j|, S_j = sum_{k<j} e^(i·d·theta_k), scaled to sqrt(d_k) at d = 0", boundSource, 1,
              [&](double d) { return boundScale * ropeDecayBound(d, p.ropeDim); });
        // Divided by sqrt(d_model) as attention divides q·k: the logit's positional part.
        const double sinusoidalScale = 1.0 / std::sqrt(static_cast<double>(p.sinusoidalDim));
        curve(PositionScheme::Sinusoidal, "sinusoidal p_i·p_j/sqrt(d)",
              fmt::format("sinusoidal p_i·p_j/sqrt(d), d = {}", p.sinusoidalDim),
              fmt::format("(1/sqrt(d_model)) sum_k cos(d / 10000^(2k/d_model)), d_model = {}: the positional part of "
                          "q·k/sqrt(d) with identity projections",
                          p.sinusoidalDim),
              "Vaswani et al. 2017, Attention Is All You Need, sec. 3.5", 0,
              [&](double d) { return sinusoidalScale * sinusoidalInnerProduct(d, p.sinusoidalDim); });
    } else {
        out.omitted = {PositionScheme::RoPE, PositionScheme::Sinusoidal};
    }

    const std::string t5Source =
        "Raffel et al. 2020, T5 (JMLR); bucket: HF transformers T5Attention._relative_position_bucket";
    const std::string profile = "v(b) = -2.5 ln(1+b) + 0.3 sin(2.3b), illustrative, not learned";
    for (const bool bidirectional : {false, true}) {
        curve(PositionScheme::T5, bidirectional ? "T5 encoder" : "T5 decoder",
              bidirectional ? "T5 encoder (bidirectional)" : "T5 decoder (unidirectional)",
              fmt::format("v(bucket(-d)), bidirectional = {}, {} buckets, max_distance {}; {}",
                          bidirectional ? "true" : "false", p.t5Buckets, p.t5MaxDistance, profile),
              t5Source, bidirectional ? 1 : 0, [&](double d) {
                  return t5IllustrativeBucketBias(t5RelativePositionBucket(-static_cast<std::int64_t>(d), bidirectional,
                                                                           p.t5Buckets, p.t5MaxDistance));
              });
    }
    const std::string kerpleSource = "Chi, Fan, Ramadge, Rudnicky 2022, KERPLE (NeurIPS 2022)";
    curve(PositionScheme::KERPLE, "KERPLE log", "KERPLE log kernel",
          fmt::format("-r1·ln(1 + r2·d), r1 = {}, r2 = {} (illustrative; learned per head, r1, r2 > 0)",
                      numberText(p.kerpleLogR1), numberText(p.kerpleLogR2)),
          kerpleSource, 0, [&](double d) { return kerpleLogBias(d, p.kerpleLogR1, p.kerpleLogR2); });
    curve(PositionScheme::KERPLE, "KERPLE power", "KERPLE power kernel",
          fmt::format("-r1·d^r2, r1 = {}, r2 = {} (illustrative; learned per head, r1 > 0, 0 < r2 <= 2)",
                      numberText(p.kerplePowerR1), numberText(p.kerplePowerR2)),
          kerpleSource, 1, [&](double d) { return kerplePowerBias(d, p.kerplePowerR1, p.kerplePowerR2); });
    // Sandwich: the same bias in every head, divided by that head's compression 8h/H; drawn for the
    // steepest (first) and flattest (last) head, between which the other heads lie.
    std::vector<double> sandwichShifted(n);
    for (std::size_t d = 0; d < n; ++d)
        sandwichShifted[d] = sandwichInnerProduct(static_cast<double>(d), p.sandwichDim) - p.sandwichDim / 2.0;
    const std::string sandwichSource =
        "Chi, Fan, Rudnicky, Ramadge 2023, Dissecting Transformer Length Extrapolation (ACL 2023); frequencies k = "
        "1..dbar/2 "
        "and the per-head 8h/H as in NVIDIA NeMo's SandwichRelativePositionEmbedding (the paper's text not checked)";
    for (const int h : heads == 1 ? std::vector<int>{0} : std::vector<int>{0, heads - 1}) {
        const double compression = sandwichCompression(h, heads);
        const std::string title = fmt::format("Sandwich h{} (scale {})", h, scaleText(1.0 / compression));
        PositionCurve* c = curve(
            PositionScheme::Sandwich, title, title,
            fmt::format(
                "(p_i·p_j - dbar/2) / (8h/H), p_i·p_j = sum_{{k=1}}^{{dbar/2}} cos(d / 10000^(2k/dbar)), dbar = {}, "
                "h = {} of H = {}{}",
                p.sandwichDim, h + 1, heads,
                h == 0 && heads > 1 ? " (the other heads lie between the two curves)" : ""),
            sandwichSource, h == 0 ? 0 : 1,
            [&](double d) { return sandwichShifted[static_cast<std::size_t>(d)] / compression; });
        c->head = h;
    }

    out.note = attention ? fmt::format(
                               "Attention over the keys d = 0..{} behind a query under zero content: softmax of "
                               "the bias alone. RoPE and sinusoidal have none (their position term multiplies "
                               "the content).",
                               p.maxDistance)
                         : "Logit contribution at distance d = i - j. ALiBi, T5, KERPLE, Sandwich: the bias added to "
                           "q·k; RoPE, sinusoidal: the expected positional part of q·k.";
    return out;
}

std::vector<SchemeNote> schemeNotes(const PositionSchemes& schemes) {
    std::vector<SchemeNote> notes;
    for (const PositionCurve& c : schemes.curves) {
        if (!notes.empty() && notes.back().legend == c.legend) continue;  // ALiBi's heads share one line
        notes.push_back(SchemeNote{c.label, c.legend, c.formula, c.source});
    }
    return notes;
}

std::optional<double> curveValueAt(const PositionCurve& curve, double d) {
    if (curve.x.empty() || !std::isfinite(d)) return std::nullopt;
    const double k = std::round(d - curve.x.front());
    if (k < 0 || k >= static_cast<double>(curve.y.size())) return std::nullopt;
    return curve.y[static_cast<std::size_t>(k)];
}

}  // namespace alibi
