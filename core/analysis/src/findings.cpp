// Findings and words of a diagnosis (see findings.hpp).
#include "findings.hpp"

#include "slope_candidates.hpp"

#include <fmt/format.h>

namespace alibi::detail {

std::vector<Finding> formFindings(const Candidate& c, DType dtype) {
    std::vector<Finding> out;
    const Reading& r = c.reading;
    if (r.qkhAsHqk) {
        const std::string what = fmt::format(
            "The shape says (H, Q, K) = ({}, {}, {}), but the data is in (Q, K, H) order: a "
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
    if (c.form.maskOffset) {
        const bool biasTopLeft = c.form.offset == 0;
        out.push_back(
            {kTopLeftAligned,
             fmt::format(
                 "The bias and the causal mask disagree on alignment ({} queries, {} keys): the {} puts query i "
                 "at position i (top-left) while the {} puts it at i + {} (bottom-right), so {}. Slice a cached "
                 "bias with the last Q rows (bias[..., K - Q:, :]), not the first, and build mask and bias from "
                 "the same positions.",
                 r.queries, r.keys, biasTopLeft ? "bias" : "mask", biasTopLeft ? "mask" : "bias", r.keys - r.queries,
                 biasTopLeft ? "keys after a query's own position get a positive bias"
                             : "each query is masked from its most recent keys")});
    } else if (c.form.topLeft)
        out.push_back(
            {kTopLeftAligned,
             fmt::format("Query i sits at position i (top-left alignment) although there are {} queries and {} "
                         "keys. With a KV cache the last query faces the last key: query i is at i + K - Q = "
                         "i + {}, as in FlashAttention, MPT and llama.cpp.",
                         r.queries, r.keys, r.keys - r.queries)});
    if (c.mixedMask)
        out.push_back(
            {kFp16MaskOverflow,
             "Some masked entries of this f16 tensor are -inf and others -65504 (finfo.min): the mask was added to "
             "the bias (bias + finfo(f16).min), and the sum overflowed to -inf wherever |bias| reached 16 (half an "
             "ulp at 65504). Set masked entries to the mask value (masked_fill / torch.where), do not add it; or "
             "use -inf on purpose and handle fully masked rows."});
    else if (dtype == DType::F16 && c.maskSeen && c.mask.kind == MaskValue::Kind::NegInf)
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
    if (c.form.rowOffset) {
        double lo = kInf, hi = -kInf;
        std::uint64_t rows = 0;
        for (const double v : c.rowOffsets) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            rows += v != 0;
        }
        out.push_back(
            {kRowOffset,
             fmt::format("Each query row is correct ALiBi plus a constant: {} of {} rows are shifted, by {:.6g} "
                         "to {:.6g}. A constant per row leaves the softmax unchanged (a decode row whose "
                         "position is off by one, a bias indexed from another origin); fix it only if the "
                         "logits themselves are compared or exported.",
                         rows, c.rowOffsets.size(), lo, hi)});
    }
    if (c.form.positions != DType::F64)
        out.push_back(
            {kPositionsRounded,
             fmt::format("The distances are not integers: the positions were built in {} (torch.arange(K, "
                         "dtype={})), which rounds integers above {} to a multiple of 2 (and above {} to a "
                         "multiple of 4...), so distances of far keys are off by up to {}. Build positions in "
                         "int64 or float32 and cast the bias afterwards.",
                         dtypeName(c.form.positions),
                         c.form.positions == DType::BF16 ? "torch.bfloat16" : "torch.float16",
                         c.form.positions == DType::BF16 ? 256 : 2048, c.form.positions == DType::BF16 ? 512 : 4096,
                         c.reading.keys > (c.form.positions == DType::BF16 ? 512 : 4096) ? "several units" : "1")});
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

namespace alibi {

namespace {

// One line each: what the code means, and what to change. docs/DIAGNOSE.md says the same.
constexpr FindingInfo kFindingInfo[] = {
    {kSlopeOffByOne,
     "The slope exponent is off by one (2^(-B h/n) instead of 2^(-B (h+1)/n)), in every head or in one "
     "block of the interleaved rule.",
     "Compute slopes from h + 1 (range(1, n + 1)), and take the extra heads from press(2c)[0::2].", false},
    {kNaiveSlopesNonPow2, "Geometric slopes 2^(-B (h+1)/H) for a head count that is not a power of two.",
     "Use the interleaved rule: press(c) for the first c = 2^floor(log2 H) heads, then press(2c)[0::2].", false},
    {kSignFlipped, "The bias is +m (i - j): attention grows with distance.", "Negate the bias (or the slopes).", false},
    {kLayoutQkhAsHqk, "(Q, K, H) data was reshaped to (H, Q, K) instead of transposed.",
     "Use permute(2, 0, 1) / transpose, not reshape or view.", false},
    {kSingleSlopeAllHeads, "Every head has the same slope.",
     "Broadcast the per-head slope vector over the head axis (slopes[:, None, None]).", false},
    {kScaledBySqrtDk, "The bias was scaled by 1/sqrt(d_k) together with q.k (the report names d).",
     "Add the bias after scaling the logits (Falcon's 1/sqrt(head_dim) scale is that model's own convention: check "
     "with --preset).",
     false},
    {kFp16MaskOverflow, "Masked entries are -inf in f16: a -1e9 mask overflowed, or finfo.min was added to the bias.",
     "Use a mask the dtype holds (finfo(f16).min) and set masked entries to it instead of adding it.", false},
    {kTopLeftAligned, "Query i sits at position i although Q < K (or the bias and the mask disagree on alignment).",
     "Place query i at i + K - Q: slice a cached bias with its last Q rows, and build mask and bias alike.", false},
    {kLeftPaddingPositions, "Positions count the left padding, so padded rows are shifted.",
     "Take positions from the attention mask: (cumsum(mask) - 1) * mask.", false},
    {kWindowMask, "A sliding window masks keys farther than W.", "None if the model uses a window.", true},
    {kDocumentMask, "Packed documents: keys of another document are masked.", "None if the batch is packed.", true},
    {kPrefixLm, "A prefix-LM: the first P tokens see each other both ways.", "None if the model is a prefix-LM.", true},
    {kNoAlibi, "No distance penalty: the bias is zero, or constant along each query row.",
     "Assign the computed bias (not a copy made out of place), index it by key position j, and build it over the "
     "whole key length (not a one-token window at decode).",
     false},
    {kRowOffset, "Correct ALiBi plus a constant per query row: the softmax is unchanged.",
     "Nothing for attention; use the query's absolute position (i + K - Q) if the logits themselves must match.",
     false},
    {kScaledBias, "Correct ALiBi times a constant c != 1 (c reported).",
     "Add the bias unscaled, after any scale applied to the logits (layer number, temperature).", false},
    {kSlopeRatio, "Geometric slopes with another start or ratio (both reported).",
     "Start and ratio are both 2^(-8/n), n the closest power of two to the head count.", false},
    {kReversedHeads, "The right slopes in reversed head order.", "Index the slope vector by head h, not H - 1 - h.",
     false},
    {kPermutedHeads, "The right slopes in another head order.",
     "Do not sort the slopes (the interleaved rule is unsorted); index them by head.", false},
    {kTensorParallelSlopes,
     "Tensor-parallel slopes: a rank's slopes are another shard's slice, or the rule applied to H / tp (rank and tp "
     "reported).",
     "Compute slopes for all heads, then give rank r the slice [r * H/tp, (r + 1) * H/tp).", false},
    {kPositionsRounded, "Positions were built in bf16/f16, so far distances are not integers.",
     "Build positions in int64/float32 (torch.arange(K)), cast the bias afterwards.", false},
    {kLowPrecisionBias, "Values lie on the f16/bf16 grid although the tensor is wider.",
     "Informational when it is the framework's own half-precision path; compute in float32 if precision matters.",
     false},
    {kStaticKvCache, "The last key slots are masked in every row: unused slots of a static KV cache.",
     "None: informational (the used keys are diagnosed on their own).", true},
    {kNotThisModel, "The tensor is not what the named model's published code computes (what differs is reported).",
     "Follow the model's own computation (scale, max_bias, form, dtype path) as the preset's source lines show.",
     false},
};

}  // namespace

const FindingInfo* findingInfo(std::string_view code) {
    for (const FindingInfo& f : kFindingInfo)
        if (code == f.code) return &f;
    return nullptr;
}

std::span<const FindingInfo> allFindingInfo() {
    return kFindingInfo;
}

}  // namespace alibi
