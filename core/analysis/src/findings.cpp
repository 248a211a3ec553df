// Findings and words of a diagnosis (see findings.hpp).
#include "findings.hpp"

#include "slope_candidates.hpp"

#include <fmt/format.h>

namespace alibi::detail {

std::vector<Finding> formFindings(const Candidate& c, DType dtype) {
    std::vector<Finding> out;
    const Reading& r = c.reading;
    if (r.qkhAsHqk) {
        const std::string what =
            fmt::format("The shape says (H, Q, K) = ({}, {}, {}), but the data is in (Q, K, H) order: a "
                        "[seq, seq, heads] tensor was reshaped instead of transposed. Use "
                        "x.permute(2, 0, 1) (or np.transpose(x, (2, 0, 1))) instead of reshape/view, or ",
                        r.heads, r.queries, r.keys);
        out.push_back({kLayoutQkhAsHqk, what + "save it with --layout qkh.",
                       what + "export it with Export layout qkh and read it as (Q, K, H)."});
    }
    if (r.noHeadAxis)
        out.push_back({kSingleSlopeAllHeads,
                       fmt::format("The tensor is 2-D ({} x {}) with no head axis: every head would share one slope. "
                                   "ALiBi gives each head its own slope; build an (H, Q, K) tensor.",
                                   r.queries, r.keys)});
    if (c.form.sign < 0)
        out.push_back({kSignFlipped,
                       "The allowed entries are +m (i - j) instead of -m (i - j): the sign is flipped, so attention "
                       "grows with distance and heads attend to the far past. Negate the bias (or the slopes)."});
    if (c.form.topLeft)
        out.push_back(
            {kTopLeftAligned,
             fmt::format("Query i sits at position i (top-left alignment) although there are {} queries and {} "
                         "keys. With a KV cache the last query faces the last key: query i is at i + K - Q = "
                         "i + {}, as in FlashAttention, MPT and llama.cpp.",
                         r.queries, r.keys, r.keys - r.queries)});
    if (dtype == DType::F16 && c.maskSeen && c.mask.kind == MaskValue::Kind::NegInf)
        out.push_back(
            {kFp16MaskOverflow,
             "The masked entries are -inf in an f16 tensor: a -1e9 mask overflows f16 (largest finite value "
             "65504) and becomes -inf. Use --mask min (-65504) for a finite mask, or --mask -inf deliberately; "
             "with -inf a fully masked row (for example a query before every key, or padding) gives NaN after "
             "softmax unless it is handled.",
             "The masked entries are -inf in an f16 tensor: a -1e9 mask overflows f16 (largest finite value "
             "65504) and becomes -inf. Set Mask to min (-65504) for a finite mask (Open the corrected parameters "
             "does), or to -inf deliberately; with -inf a fully masked row (for example a query before every key, "
             "or padding) gives NaN after softmax unless it is handled."});
    if (c.reading.heads >= 2) {
        bool same = true;
        for (const double s : c.slopes.slopes) same = same && s == c.slopes.slopes[0];
        if (same)
            out.push_back(
                {kSingleSlopeAllHeads,
                 fmt::format("Every one of the {} heads has the same slope {:.6g}: the per-head slopes were not "
                             "broadcast over the head axis (or max_bias is 0). ALiBi needs a different slope "
                             "per head, from steep (local) to flat (global).",
                             c.reading.heads, c.slopes.slopes[0])});
    }
    return out;
}

std::string indexString(const std::vector<std::int64_t>& index) {
    std::string s = "(";
    for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
    return s + (index.size() == 1 ? ",)" : ")");
}

std::vector<std::int64_t> unravel(const Shape& shape, std::uint64_t flat) {
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        index[k] = static_cast<std::int64_t>(flat % static_cast<std::uint64_t>(shape[k]));
        flat /= static_cast<std::uint64_t>(shape[k]);
    }
    return index;
}

std::string describeCandidate(const Candidate& c) {
    std::string s = c.slopes.description.empty() ? fmt::format("custom slopes ({})", slopeList(c.slopes.slopes))
                                                 : c.slopes.description;
    s += fmt::format(", {} mode", modeName(c.form.mode));
    s += c.maskSeen ? fmt::format(", mask {}", maskName(c.mask)) : std::string(", no masked entries");
    return s;
}

}  // namespace alibi::detail
