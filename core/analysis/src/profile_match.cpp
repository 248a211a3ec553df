// Profile matching for diagnose: rebuilds the diagnosed bias (or slope vector) under every
// --arith profile and counts ulp distances, so a report can say whose float arithmetic made a
// tensor ("bit-identical to llm-foundry's build_alibi_bias") and how far the others are.
#include "profile_match.hpp"

#include <alibi/model/arith.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace alibi::detail {
namespace {

// Beyond this many cells a strided sample is compared: enough to tell profiles apart (they
// differ in most heads), small enough to stay interactive on a large tensor.
constexpr std::uint64_t kMaxCompared = std::uint64_t{1} << 20;

// Position on the number line of the dtype's values: consecutive values differ by 1.
std::int64_t orderedBits(DType dtype, double v) {
    switch (dtype) {
        case DType::F64: {
            const auto b = std::bit_cast<std::int64_t>(v);
            return b >= 0 ? b : -(b & std::numeric_limits<std::int64_t>::max());
        }
        case DType::F32: {
            const auto b = std::bit_cast<std::int32_t>(static_cast<float>(v));
            return b >= 0 ? b : -static_cast<std::int64_t>(b & 0x7fffffff);
        }
        case DType::F16:
        case DType::BF16: {
            const std::uint16_t b = dtype == DType::F16 ? toHalfBits(v) : toBFloat16Bits(v);
            const std::int64_t mag = b & 0x7fff;
            return (b & 0x8000) ? -mag : mag;
        }
    }
    return 0;
}

bool sameBits(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

std::string_view profileLabel(Arith arith) {
    switch (arith) {
        case Arith::Exact:
            return "the exact formula (--arith exact)";
        case Arith::HfBloom:
            return "HF BLOOM's build_alibi_tensor (--arith hf-bloom)";
        case Arith::HfFalcon:
            return "HF Falcon's build_alibi_tensor (--arith hf-falcon)";
        case Arith::LlmFoundry:
            return "llm-foundry's build_alibi_bias (--arith llm-foundry)";
        case Arith::Fairseq:
            return "Press's fairseq get_slopes and alibi buffer (--arith fairseq)";
        case Arith::Ggml:
            return "ggml's soft_max with max_bias (--arith ggml)";
    }
    return "";
}

}  // namespace

std::uint64_t ulpDistance(DType dtype, double a, double b) {
    if (a == b) return 0;
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<std::uint64_t>::max();
    const std::int64_t x = orderedBits(dtype, a), y = orderedBits(dtype, b);
    // Opposite signs: add the magnitudes (no signed overflow).
    if ((x < 0) != (y < 0))
        return static_cast<std::uint64_t>(x < 0 ? -x : x) + static_cast<std::uint64_t>(y < 0 ? -y : y);
    return static_cast<std::uint64_t>(x > y ? x - y : y - x);
}

std::vector<ArithDistance> compareProfiles(const Tensor& tensor, const BiasParams& params) {
    std::vector<ArithDistance> out;
    const std::int64_t H = params.slopes.heads, Q = params.queries, K = params.keyCount();
    const std::uint64_t n =
        static_cast<std::uint64_t>(H) * static_cast<std::uint64_t>(Q) * static_cast<std::uint64_t>(K);
    if (n != tensor.size() || n == 0) return out;
    const std::uint64_t stride = std::max<std::uint64_t>(1, n / kMaxCompared);
    const DType dtype = tensor.dtype();
    for (const Arith arith : allAriths()) {
        BiasParams p = params;
        p.slopes.arith = arith;
        p.dtype = dtype;
        const auto slopes = computeSlopes(p.slopes);
        if (!slopes) continue;  // this profile cannot build these parameters
        ArithDistance d{arith, true, 0, 0, 0, 0};
        for (std::uint64_t k = 0; k < n; k += stride) {
            const auto h = static_cast<std::int64_t>(k / static_cast<std::uint64_t>(Q * K));
            const auto i = static_cast<std::int64_t>(k / static_cast<std::uint64_t>(K) % static_cast<std::uint64_t>(Q));
            const auto j = static_cast<std::int64_t>(k % static_cast<std::uint64_t>(K));
            const double expected = biasValue(p, (*slopes)[static_cast<std::size_t>(h)], h, i, j);
            const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
            ++d.cellsCompared;
            if (sameBits(stored, expected)) continue;
            d.identical = false;
            if (stored == expected) {
                ++d.zeroSignCells;  // +0.0 against -0.0: the same value
                continue;
            }
            ++d.cellsDiffering;
            d.maxUlp = std::max(d.maxUlp, ulpDistance(dtype, stored, expected));
        }
        out.push_back(d);
    }
    return out;
}

std::string profileName(Arith arith, bool flags) {
    const std::string_view label = profileLabel(arith);
    return std::string(flags ? label : label.substr(0, label.find(" (--arith")));
}

std::string describeProfiles(const std::vector<ArithDistance>& distances, bool flags) {
    if (distances.empty()) return {};
    std::string out;
    const auto same =
        std::find_if(distances.begin(), distances.end(), [](const ArithDistance& d) { return d.identical; });
    // Equal values whose bits differ only in the sign of zero.
    const auto signOnly = std::find_if(distances.begin(), distances.end(), [](const ArithDistance& d) {
        return !d.identical && d.cellsDiffering == 0 && d.zeroSignCells > 0;
    });
    if (same != distances.end())
        out = fmt::format("Bit-identical to {}", profileName(same->arith, flags));
    else if (signOnly != distances.end())
        out = fmt::format(
            "The same values as {}, whose bits differ only in the sign of zero in {} of {} cells (-0.0 "
            "against +0.0, as NumPy's -m * (i - j) stores the diagonal; no value differs)",
            profileName(signOnly->arith, flags), signOnly->zeroSignCells, signOnly->cellsCompared);
    else
        out = flags ? "Bit-identical to no --arith profile" : "Bit-identical to no framework's arithmetic";
    std::string alsoSame, others;
    for (const ArithDistance& d : distances) {
        if (same != distances.end() && d.arith == same->arith) continue;
        if (same == distances.end() && signOnly != distances.end() && d.arith == signOnly->arith) continue;
        if (d.identical)
            alsoSame += fmt::format("{}{}", alsoSame.empty() ? "" : ", ", arithName(d.arith));
        else if (d.cellsDiffering == 0)
            others += fmt::format("{}{} 0 (sign of zero only)", others.empty() ? "" : ", ", arithName(d.arith));
        else
            others += fmt::format("{}{} {}", others.empty() ? "" : ", ", arithName(d.arith), d.maxUlp);
    }
    if (!alsoSame.empty()) out += fmt::format(", and to {}", alsoSame);
    if (!others.empty()) out += fmt::format("; max ulp distance to {}", others);
    return out + ".";
}

std::optional<Diagnosis> diagnoseSlopeVector(const Tensor& tensor) {
    if (tensor.shape().size() != 1 || tensor.size() == 0 || tensor.size() > static_cast<std::uint64_t>(kMaxHeads))
        return std::nullopt;
    std::vector<double> values;
    for (std::uint64_t k = 0; k < tensor.size(); ++k) {
        const double v = tensor.at(k);
        if (!std::isfinite(v) || !(v > 0)) return std::nullopt;  // a bias always holds a zero or a negative
        values.push_back(v);
    }
    const DType dtype = tensor.dtype();
    const int heads = static_cast<int>(values.size());
    Diagnosis d;
    d.layout = Layout::Flat;
    d.heads = heads;
    d.dtype = dtype;
    d.slopeVector = true;
    d.inferredSlopes = values;

    // Compare with one parameter set under every profile; the distances of the best set win.
    struct Tried {
        SlopeParams params;
        std::vector<ArithDistance> distances;
        std::uint64_t bestUlp = std::numeric_limits<std::uint64_t>::max();
    };
    std::optional<Tried> best;
    const auto tryParams = [&](SlopeScheme scheme, double maxBias) {
        Tried t{SlopeParams{heads, scheme, maxBias, {}, Arith::Exact}, {}, std::numeric_limits<std::uint64_t>::max()};
        for (const Arith arith : allAriths()) {
            SlopeParams p = t.params;
            p.arith = arith;
            const auto slopes = computeSlopes(p);
            if (!slopes) continue;
            ArithDistance a{arith, true, 0, 0, static_cast<std::uint64_t>(heads), 0};
            for (int h = 0; h < heads; ++h) {
                const double expected = roundTo(dtype, (*slopes)[static_cast<std::size_t>(h)]);
                if (sameBits(values[static_cast<std::size_t>(h)], expected)) continue;
                a.identical = false;
                ++a.cellsDiffering;
                a.maxUlp = std::max(a.maxUlp, ulpDistance(dtype, values[static_cast<std::size_t>(h)], expected));
            }
            t.bestUlp = std::min(t.bestUlp, a.maxUlp);
            t.distances.push_back(a);
        }
        if (!best || t.bestUlp < best->bestUlp) best = std::move(t);
    };
    for (const double b : {8.0, 16.0, 4.0, 12.0, 6.0}) {
        tryParams(SlopeScheme::Press, b);
        if (heads > 1 && !std::has_single_bit(static_cast<unsigned>(heads))) tryParams(SlopeScheme::Geometric, b);
    }
    tryParams(SlopeScheme::Linear, 8.0);

    const std::string head = fmt::format("A slope vector of {} head{} ({}), {}.", heads, heads == 1 ? "" : "s",
                                         shapeString(tensor.shape()), dtypeName(dtype));
    // A few ulp of float32 arithmetic still name the scheme (the frameworks disagree by up to 32).
    const std::uint64_t allowed = dtype == DType::F32 || dtype == DType::F64 ? 64 : 1;
    if (!best || best->bestUlp > allowed) {
        d.summary =
            fmt::format("{} No press, geometric or linear slopes (max_bias 4, 6, 8, 12 or 16) reproduce it.", head);
        return d;
    }
    DiagnosisMatch m;
    m.scheme = best->params.scheme;
    m.maxBias = best->params.maxBias;
    m.masked = false;
    m.slopes = values;
    d.match = m;
    d.arithDistances = best->distances;
    for (const ArithDistance& a : d.arithDistances)
        if (a.identical) {
            d.arith = a.arith;
            break;
        }
    d.summary = fmt::format("{} Matches {} slopes{}. {}", head, schemeName(m.scheme),
                            m.scheme == SlopeScheme::Linear ? std::string() : fmt::format(" (max_bias {})", m.maxBias),
                            describeProfiles(d.arithDistances));
    d.explorerSummary =
        fmt::format("{} Matches {} slopes{}. {}", head, schemeName(m.scheme),
                    m.scheme == SlopeScheme::Linear ? std::string() : fmt::format(" (max_bias {})", m.maxBias),
                    describeProfiles(d.arithDistances, false));
    return d;
}

}  // namespace alibi::detail
