// Batch diagnosis (see batch_match.hpp). The structure comes from the masked cells alone: a real
// key always sees itself (the diagonal), so row b's real tokens are its unmasked diagonal cells;
// the first key a real query sees marks document starts and the window. The numbers then decide
// between the candidates, bit for bit, so a wrong guess can only lead to "no match".
#include "batch_match.hpp"
#include "profile_match.hpp"

#include <alibi/model/arith.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::detail {
namespace {

struct Shape4 {
    std::int64_t b, h, t;
};

double cell(const Tensor& x, const Shape4& s, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) {
    return x.at(static_cast<std::uint64_t>(((b * s.h + h) * s.t + i) * s.t + j));
}

std::string list(const std::vector<std::int64_t>& v) {
    std::string out;
    for (const auto x : v) out += fmt::format("{}{}", out.empty() ? "" : ",", x);
    return out;
}

}  // namespace

std::optional<Diagnosis> diagnoseBatch(const Tensor& tensor) {
    const Shape& shape = tensor.shape();
    if (shape.size() != 4 || shape[0] < 1 || shape[2] != shape[3] || shape[1] < 1 || shape[1] > kMaxHeads ||
        shape[2] < 1 || shape[2] > kMaxLength)
        return std::nullopt;
    const Shape4 s{shape[0], shape[1], shape[2]};
    const DType dtype = tensor.dtype();

    // The mask value: the smallest value in the tensor (masked cells hold it).
    double maskValue = std::numeric_limits<double>::infinity();
    bool hasLowest = false;
    for (std::uint64_t k = 0; k < tensor.size(); ++k) {
        maskValue = std::min(maskValue, tensor.at(k));
        hasLowest = hasLowest || tensor.at(k) == dtypeLowest(dtype);
    }
    // f16 finfo.min added to a bias: some masked cells overflowed to -inf, the rest hold the
    // lowest finite value; both are the mask.
    const bool mixed = dtype == DType::F16 && std::isinf(maskValue) && hasLowest;
    const auto masked = [&](double v) { return v == maskValue || (mixed && v == dtypeLowest(dtype)); };
    // One row (1, H, T, T) is usually a plain 1hqk bias, read by the single-sequence diagnosis;
    // it is a batch only when its smallest value is a mask (not the far end of a symmetric bias)
    // and the mask pattern shows padding, documents, a window or a prefix (checked below).
    const bool oneRow = s.b == 1;
    if (oneRow && !(std::isinf(maskValue) || maskValue == dtypeLowest(dtype) || maskValue == roundTo(dtype, -1e9) ||
                    maskValue == roundTo(dtype, -10000.0)))
        return std::nullopt;

    // Lengths and padding side from the diagonals.
    BatchParams batch;
    bool left = false, right = false;
    for (std::int64_t b = 0; b < s.b; ++b) {
        std::int64_t first = -1, last = -1, count = 0;
        for (std::int64_t j = 0; j < s.t; ++j)
            if (!masked(cell(tensor, s, b, 0, j, j))) {
                if (first < 0) first = j;
                last = j;
                ++count;
            }
        if (count == 0 || last - first + 1 != count) return std::nullopt;  // not one contiguous run
        batch.lengths.push_back(count);
        if (count < s.t) (first == 0 ? right : left) = true;
    }
    if (left && right) return std::nullopt;
    batch.padding = left ? Padding::Left : Padding::Right;

    // Documents and window from the longest row: the first key each real query sees.
    const auto longest =
        static_cast<std::int64_t>(std::max_element(batch.lengths.begin(), batch.lengths.end()) - batch.lengths.begin());
    const std::int64_t length = batch.lengths[static_cast<std::size_t>(longest)];
    const std::int64_t start = batch.padding == Padding::Left ? s.t - length : 0;
    std::vector<std::int64_t> starts{0};
    std::int64_t widest = 0;
    for (std::int64_t i = start; i < start + length; ++i) {
        std::int64_t firstSeen = i;
        for (std::int64_t j = start; j <= i; ++j)
            if (!masked(cell(tensor, s, longest, 0, i, j))) {
                firstSeen = j;
                break;
            }
        widest = std::max(widest, i - firstSeen + 1);
        if (firstSeen == i && i > start && !masked(cell(tensor, s, longest, 0, i - 1, i - 1)) &&
            masked(cell(tensor, s, longest, 0, i, i - 1)))
            starts.push_back(i - start);
    }
    // A window of 1 would make every token a document of its own: read that as a window.
    if (starts.size() > 1 && static_cast<std::int64_t>(starts.size()) < length) {
        for (std::size_t k = 0; k + 1 < starts.size(); ++k) batch.documents.push_back(starts[k + 1] - starts[k]);
        batch.documents.push_back(length - starts.back());
    }
    const std::int64_t longestDocument =
        batch.documents.empty() ? length : *std::max_element(batch.documents.begin(), batch.documents.end());
    if (widest < longestDocument) batch.window = widest;

    // Prefix-LM: the first P tokens (by index) see each other both ways, so a key after its query
    // is allowed only inside the prefix, and the last such key gives P. A prefix of 1 changes
    // nothing and reads as none; the candidates below also try none, so a symmetric bias (which
    // allows every later key) is not mistaken for a causal one with a prefix of T.
    std::int64_t prefix = 0;
    for (std::int64_t b = 0; b < s.b; ++b)
        for (std::int64_t i = 0; i < s.t; ++i)
            for (std::int64_t j = std::max(i + 1, prefix); j < s.t; ++j)
                if (!masked(cell(tensor, s, b, 0, i, j))) prefix = j + 1;
    if (oneRow && batch.lengths[0] == s.t && batch.documents.empty() && batch.window == 0 && prefix == 0)
        return std::nullopt;

    MaskValue mask{MaskValue::Kind::Finite, maskValue};
    if (std::isinf(maskValue))
        mask = {MaskValue::Kind::NegInf, maskValue};
    else if (maskValue == dtypeLowest(dtype))
        mask = {MaskValue::Kind::Lowest, 0};

    // Every candidate, bit for bit: forms, position rules, profiles.
    struct Best {
        BiasParams bias;
        BatchParams batch;
        std::uint64_t maxUlp = std::numeric_limits<std::uint64_t>::max();
    };
    std::optional<Best> best;
    std::vector<PositionRule> rules{PositionRule::Mask, PositionRule::Naive};
    if (!batch.documents.empty()) rules.push_back(PositionRule::Document);
    // The first bit-identical candidate ends the search (the most ordinary comes first).
    const auto exact = [&] { return best && best->maxUlp == 0; };
    std::vector<std::int64_t> prefixes{0};
    if (prefix > 0) prefixes.push_back(prefix);
    for (const std::int64_t tried : prefixes)
        for (const BiasMode mode :
             {BiasMode::Causal, BiasMode::Bloom, BiasMode::Mpt, BiasMode::Symmetric, BiasMode::Clamped})
            for (const PositionRule rule : rules)
                for (const Arith arith : allAriths()) {
                    if (exact()) break;
                    BiasParams p;
                    p.slopes.heads = static_cast<int>(s.h);
                    p.slopes.arith = arith;
                    p.queries = s.t;
                    p.mode = mode;
                    p.mask = mask;
                    p.dtype = dtype;
                    BatchParams q = batch;
                    q.positions = rule;
                    q.prefix = tried;
                    auto built = buildBatchBias(p, q, tensor.size() * 8 + 4096);
                    if (!built) continue;
                    std::uint64_t worst = 0;
                    for (std::uint64_t k = 0; k < tensor.size() && worst <= (best ? best->maxUlp : worst); ++k) {
                        const double a = tensor.at(k), e = built->at(k);
                        if (a == e && std::signbit(a) == std::signbit(e)) continue;
                        if (mixed && masked(a) && masked(e)) continue;
                        worst = std::max(worst, a == e ? std::uint64_t{1} : ulpDistance(dtype, a, e));
                    }
                    if (!best || worst < best->maxUlp) best = Best{p, q, worst};
                }
    const std::uint64_t allowed = dtype == DType::F32 || dtype == DType::F64 ? 64 : 1;
    const bool matched = best && best->maxUlp <= allowed;
    batch.prefix = prefix;
    const BatchParams& shown = matched ? best->batch : batch;
    Diagnosis d;
    d.layout = Layout::Hqk;
    d.heads = s.h;
    d.queries = d.keys = s.t;
    d.dtype = dtype;
    d.batch = batch;
    const std::string rows = s.b == 1 ? std::string("One sequence") : fmt::format("A batch of {} rows", s.b);
    const std::string head =
        fmt::format("{} (B, H, T, T) = {}, layout bhqk, {}; {} padding, lengths {}{}{}{}.", rows, shapeString(shape),
                    dtypeName(dtype), paddingName(shown.padding), list(shown.lengths),
                    shown.documents.empty() ? "" : fmt::format(", packed documents {}", list(shown.documents)),
                    shown.window ? fmt::format(", sliding window {}", shown.window) : "",
                    shown.prefix ? fmt::format(", prefix-LM prefix {}", shown.prefix) : "");
    // Correct ALiBi for this batch: the paper's slopes under the exact formula, positions from the
    // mask (the left-padding bug's fix), the structure as read.
    if (best) {
        BiasParams correct = best->bias;
        correct.slopes = SlopeParams{};
        correct.slopes.heads = static_cast<int>(s.h);
        d.correctParams = correct;
        d.correctBatch = best->batch;
        if (d.correctBatch->positions == PositionRule::Naive) d.correctBatch->positions = PositionRule::Mask;
    }
    if (!matched) {
        d.summary = head + " No bias form, position rule or --arith profile reproduces its values.";
        d.explorerSummary = head + " No bias form, position rule or framework's arithmetic reproduces its values.";
        return d;
    }
    d.batch = best->batch;
    d.bestParams = best->bias;
    d.match = DiagnosisMatch{SlopeScheme::Press, 8.0, best->bias.mode, mask, true, {}};
    if (auto slopes = computeSlopes(best->bias.slopes)) d.match->slopes = *slopes;
    if (best->maxUlp == 0) d.arith = best->bias.slopes.arith;
    const bool leftPadded = batch.padding == Padding::Left &&
                            std::any_of(batch.lengths.begin(), batch.lengths.end(), [&](auto l) { return l < s.t; });
    if (leftPadded && best->batch.positions == PositionRule::Naive)
        d.findings.push_back({kLeftPaddingPositions,
                              "positions count the padding: with left padding every shorter row's bias is shifted by "
                              "its padding length. Take positions from the attention mask ((cumsum(mask) - 1) * mask, "
                              "as HF BLOOM does): alibi bias --positions mask",
                              "positions count the padding: with left padding every shorter row's bias is shifted by "
                              "its padding length. Take positions from the attention mask ((cumsum(mask) - 1) * mask, "
                              "as HF BLOOM does); the error map compares with positions from the mask."});
    if (mixed)
        d.findings.push_back(
            {kFp16MaskOverflow,
             "Some masked entries of this f16 batch are -inf and others -65504 (finfo.min): the mask was added to the "
             "bias (bias + finfo(f16).min) and the sum overflowed to -inf wherever |bias| reached 16. Set masked "
             "entries to the mask value (masked_fill / torch.where) instead of adding it."});
    if (batch.window)
        d.findings.push_back({kWindowMask, fmt::format("a sliding window of {} keys masks older keys", batch.window)});
    if (best->batch.prefix)
        d.findings.push_back(
            {kPrefixLm, fmt::format("the first {} tokens see each other in both directions (a bidirectional "
                                    "prefix); every later token sees only itself and the keys before it",
                                    best->batch.prefix)});
    if (!batch.documents.empty())
        d.findings.push_back(
            {kDocumentMask, fmt::format("packed documents {} (block-diagonal mask, llm-foundry's "
                                        "sequence_id); positions {}",
                                        list(batch.documents), positionRuleName(best->batch.positions))});
    const auto matches = [&](bool flags) {
        const std::string bits =
            best->maxUlp != 0 ? fmt::format(", within {} ulp", best->maxUlp)
            : flags           ? fmt::format(", bit-identical under --arith {}", arithName(best->bias.slopes.arith))
                              : fmt::format(", bit-identical to {}", profileName(best->bias.slopes.arith, false));
        return fmt::format("{} Matches press slopes (max_bias 8), {} mode, positions {}, mask {}{}.", head,
                           modeName(best->bias.mode), positionRuleName(best->batch.positions), maskName(mask), bits);
    };
    d.summary = matches(true);
    d.explorerSummary = matches(false);
    if (!d.findings.empty()) {
        std::string codes;
        for (const auto& f : d.findings) codes += (codes.empty() ? "" : ", ") + f.code;
        d.summary += fmt::format(" Findings: {}.", codes);
        d.explorerSummary += fmt::format(" Findings: {}.", codes);
    }
    return d;
}

Result<Tensor> buildRowsBias(const BiasParams& square, const BatchParams& batch, std::int64_t queries, bool zeroPadding,
                             std::uint64_t budget) {
    auto slopes = validateBias(square);
    if (!slopes) return std::unexpected(slopes.error());
    if (auto ok = validateBatch(square, batch); !ok) return std::unexpected(ok.error());
    const std::int64_t B = batch.batchSize(), H = square.slopes.heads, T = square.queries;
    if (queries < 1 || queries > T)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("buildRowsBias: {} query rows of a batch of length {}", queries, T));
    auto tensor = Tensor::allocate({B, H, queries, T}, square.dtype, budget, "batch rows bias tensor");
    if (!tensor) return tensor;
    const std::vector<double> tails = exactSlopeTails(square.slopes);
    const double mask = roundTo(square.dtype, maskDouble(square.mask, square.dtype));
    std::uint64_t n = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        const BatchRow row = batchRow(square, batch, b);
        for (std::int64_t h = 0; h < H; ++h) {
            const double slope = (*slopes)[static_cast<std::size_t>(h)];
            const double tail = tails[static_cast<std::size_t>(h)];
            for (std::int64_t i = T - queries; i < T; ++i)
                for (std::int64_t j = 0; j < T; ++j, ++n) {
                    const MaskReason why = batchCellMask(square, batch, row, i, j);
                    const double v = why == MaskReason::None
                                         ? arithProduct(square.slopes.arith, square.dtype, slope, tail,
                                                        batchCellMultiplier(square, row, i, j))
                                     : why == MaskReason::Padding && zeroPadding ? 0.0
                                                                                 : mask;
                    tensor->set(n, v);
                }
        }
    }
    return tensor;
}

}  // namespace alibi::detail
