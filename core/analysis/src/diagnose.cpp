// Diagnosis of a user's bias tensor. For every way the shape can be read (hqk, qkh, 1hqk,
// flat, and the qkh-data-in-an-hqk-shape mix-up) and every form of the bias (mode, sign,
// query alignment), per-head slopes are read off the last query row as intervals that the
// dtype's rounding allows, the mask value is read off a masked cell, and the slopes are matched
// against the schemes (and the known buggy variants). Each candidate is checked first on a
// strided sample of cells, then on every cell; the first candidate that reproduces the whole
// tensor is the match. Candidates are tried from the most ordinary to the most unusual, so a
// correct tensor is never reported as a bug.
#include <alibi/analysis/diagnose.hpp>

#include "batch_match.hpp"
#include "candidate.hpp"
#include "candidate_check.hpp"
#include "findings.hpp"
#include "profile_match.hpp"
#include "readings.hpp"
#include "slope_candidates.hpp"

#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi {

using namespace detail;

namespace {

// Correct ALiBi for what a candidate read off the tensor (see Diagnosis::correctParams).
BiasParams correctParamsFor(const Candidate& c, DType dtype) {
    BiasParams p;
    p.slopes.heads = static_cast<int>(c.reading.heads);
    p.slopes.scheme = c.slopes.correctScheme;
    // max_bias 0 (every slope 1) is never correct ALiBi: the paper's 8 then.
    p.slopes.maxBias = c.slopes.maxBias > 0 ? c.slopes.maxBias : 8.0;
    if (c.slopes.correctScheme == SlopeScheme::Custom) p.slopes.custom = c.slopes.correctSlopes;
    p.queries = c.reading.queries;
    p.keys = c.reading.keys == c.reading.queries ? 0 : c.reading.keys;
    p.mode = c.form.mode;
    p.mask = c.mask;
    // The fp16-mask-overflow fix, and a mask no masked cell showed that the dtype cannot hold.
    const bool overflowed = c.maskSeen && dtype == DType::F16 && c.mask.kind == MaskValue::Kind::NegInf;
    const bool unholdable = c.mask.kind == MaskValue::Kind::Finite && std::isinf(roundTo(dtype, c.mask.value));
    if (overflowed || unholdable) p.mask = {MaskValue::Kind::Lowest, 0.0};
    p.layout = c.reading.declared;
    p.dtype = dtype;
    return p;
}

Result<Diagnosis> diagnoseTensor(const Tensor& tensor) {
    if (tensor.size() == 0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot diagnose an empty tensor of shape {}", shapeString(tensor.shape())));
    // A bare (H,) vector of positive numbers is a slope vector, not a flat bias of H cells.
    if (auto slopes = detail::diagnoseSlopeVector(tensor)) return std::move(*slopes);
    // A (B, H, T, T) batch (padding, documents, window, prefix, position rule). One row with such
    // a mask pattern counts only when it matches; otherwise it is read as a plain (1, H, Q, K).
    if (auto batch = detail::diagnoseBatch(tensor); batch && (batch->match || tensor.shape()[0] > 1))
        return std::move(*batch);
    Result<void> shapeError;
    const auto reads = readings(tensor.shape(), shapeError);
    if (!shapeError) return std::unexpected(shapeError.error());
    if (reads.empty())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot diagnose a tensor of shape {}: heads must be 1 to {} and lengths 1 to {}",
                                shapeString(tensor.shape()), kMaxHeads, kMaxLength));

    const DType dtype = tensor.dtype();
    std::optional<Candidate> match, best;
    FullCheck matchCheck;
    // An f16 mask of finfo.min added to a bias: some masked cells overflowed to -inf, others not.
    bool hasLowest = false, hasNegInf = false;
    if (dtype == DType::F16)
        for (std::uint64_t k = 0; k < tensor.size() && !(hasLowest && hasNegInf); ++k) {
            const double v = tensor.at(k);
            hasLowest = hasLowest || v == dtypeLowest(dtype);
            hasNegInf = hasNegInf || v == -kInf;
        }
    const bool mixedMask = hasLowest && hasNegInf;
    // Candidates come from the most ordinary to the most unusual; the first that reproduces
    // every cell wins, so a correct tensor is never reported as a bug. Pass 0: the plain forms;
    // pass 1: a constant per row on top (row-offset); pass 2: positions rounded by a bf16 or f16
    // arange (positions-rounded).
    const auto tryPass = [&](int pass) {
        for (const Reading& reading : reads) {
            if (match) break;
            const View view(tensor, reading);
            std::vector<Form> forms;
            const std::int64_t right = reading.keys - reading.queries;
            if (pass == 0) {
                std::vector<std::int64_t> offsets{right};
                if (reading.queries < reading.keys) offsets.push_back(0);
                for (const std::int64_t offset : offsets)
                    for (const double sign : {1.0, -1.0})
                        for (const BiasMode mode :
                             {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
                            forms.push_back({mode, sign, offset, offset != right});
                // The bias and the causal mask disagree on alignment.
                if (reading.queries < reading.keys) {
                    forms.push_back({BiasMode::Causal, 1.0, 0, true, right});
                    forms.push_back({BiasMode::Causal, 1.0, right, true, 0});
                }
            } else if (pass == 1) {
                for (const BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric}) {
                    Form f{mode, 1.0, right, false};
                    f.rowOffset = true;
                    forms.push_back(f);
                }
            } else {
                for (const DType positions : {DType::BF16, DType::F16}) {
                    if (reading.keys <= (positions == DType::BF16 ? 256 : 2048)) continue;
                    for (const BiasMode mode :
                         {BiasMode::Causal, BiasMode::Bloom, BiasMode::Mpt, BiasMode::Symmetric}) {
                        Form f{mode, 1.0, right, false};
                        f.positions = positions;
                        forms.push_back(f);
                    }
                }
            }
            for (const Form& form : forms) {
                if (match) break;
                std::vector<double> offsets;
                if (form.rowOffset) offsets = readRowOffsets(view, form);
                const SlopeRead slopes = readSlopes(view, form, form.rowOffset ? &offsets : nullptr);
                const MaskRead mask = readMask(view, form);
                for (auto& sc : slopeCandidates(slopes, static_cast<int>(reading.heads), dtype)) {
                    Candidate c;
                    c.reading = reading;
                    c.form = form;
                    c.slopes = std::move(sc);
                    c.mask = mask.mask;
                    c.maskSeen = mask.seen;
                    c.mixedMask = mixedMask;
                    c.inferred = slopes.estimate;
                    c.rowOffsets = offsets;
                    c.sampleMismatches = sampleMismatches(view, c, best ? best->sampleMismatches : kSampleCells);
                    const bool plausible = mask.valid && (slopes.valid || slopes.free);
                    if (plausible && c.sampleMismatches == 0) {
                        FullCheck check = fullCheck(view, c, true);
                        if (check.ok) {
                            match = std::move(c);
                            matchCheck = check;  // a passing check scanned every cell
                            break;
                        }
                    }
                    // Only the plain forms stand as the closest candidate of a no-match.
                    if (pass == 0 && (!best || c.sampleMismatches < best->sampleMismatches)) best = std::move(c);
                }
            }
        }
    };
    for (int pass = 0; pass < 3 && !match; ++pass) tryPass(pass);

    const Candidate& chosen = match ? *match : *best;
    const View view(tensor, chosen.reading);
    const FullCheck check = match ? matchCheck : fullCheck(view, chosen, false);

    Diagnosis d;
    d.layout = chosen.reading.declared;
    d.heads = chosen.reading.heads;
    d.queries = chosen.reading.queries;
    d.keys = chosen.reading.keys;
    d.dtype = dtype;
    d.maxAbsError = check.maxAbsError;
    d.inferredSlopes = chosen.inferred;
    d.bestSignFlipped = chosen.form.sign < 0;
    d.bestTopLeft = chosen.form.topLeft;

    BiasParams params;
    params.slopes.heads = static_cast<int>(chosen.reading.heads);
    params.slopes.scheme = chosen.slopes.scheme;
    params.slopes.maxBias = chosen.slopes.maxBias;
    if (chosen.slopes.scheme == SlopeScheme::Custom || chosen.slopes.roundedFirst) {
        params.slopes.scheme = SlopeScheme::Custom;
        params.slopes.custom = chosen.slopes.slopes;
    }
    params.queries = chosen.reading.queries;
    params.keys = chosen.reading.keys;
    params.mode = chosen.form.mode;
    params.mask = chosen.mask;
    params.layout = chosen.reading.qkhAsHqk ? Layout::Qkh : chosen.reading.declared;
    params.dtype = dtype;
    d.bestParams = params;
    d.correctParams = correctParamsFor(chosen, dtype);

    const std::string head = fmt::format("{} head{}, {} x {}, layout {}, {}.", d.heads, d.heads == 1 ? "" : "s",
                                         d.queries, d.keys, layoutName(d.layout), dtypeName(dtype));
    if (match) {
        d.match = DiagnosisMatch{chosen.slopes.scheme, chosen.slopes.maxBias, chosen.form.mode,
                                 chosen.mask,          chosen.maskSeen,       chosen.slopes.slopes};
        d.findings = chosen.slopes.findings;
        for (auto& f : formFindings(chosen, dtype)) {
            const bool dup =
                std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& g) { return g.code == f.code; });
            if (!dup) d.findings.push_back(std::move(f));
        }
        // Whose float arithmetic: only a plain match (no sign or alignment bug) can be rebuilt.
        if (!d.bestSignFlipped && !d.bestTopLeft && !chosen.reading.qkhAsHqk) {
            BiasParams rebuilt = params;
            rebuilt.slopes.scheme = chosen.slopes.scheme;
            rebuilt.slopes.custom =
                chosen.slopes.scheme == SlopeScheme::Custom ? chosen.slopes.slopes : std::vector<double>{};
            d.arithDistances = detail::compareProfiles(tensor, rebuilt);
            for (const ArithDistance& a : d.arithDistances)
                if (a.identical) {
                    d.arith = a.arith;
                    d.maxAbsError = 0;  // the tensor is exactly that profile's build
                    break;
                }
        }
        d.summary = fmt::format("{} Matches {}, max abs error {:.6g}.", head, describeCandidate(chosen), d.maxAbsError);
        d.explorerSummary = d.summary;
        if (!d.arithDistances.empty()) {
            d.summary += " " + detail::describeProfiles(d.arithDistances);
            d.explorerSummary += " " + detail::describeProfiles(d.arithDistances, false);
        }
        if (!d.findings.empty()) {
            std::string codes;
            for (const auto& f : d.findings) codes += (codes.empty() ? "" : ", ") + f.code;
            const std::string bugs = fmt::format(" Known bug{}: {}.", d.findings.size() == 1 ? "" : "s", codes);
            d.summary += bugs;
            d.explorerSummary += bugs;
        }
        return d;
    }

    // No match. Findings about the form are only worth saying when the best candidate is close.
    const std::uint64_t samples = std::min<std::uint64_t>(tensor.size(), kSampleCells);
    if (chosen.sampleMismatches * 20 <= samples) d.findings = formFindings(chosen, dtype);
    if (check.firstMismatch) {
        d.firstMismatchIndex = unravel(tensor.shape(), *check.firstMismatch);
        d.firstMismatchActual = check.actual;
        d.firstMismatchExpected = check.expected;
    }
    d.summary = fmt::format(
        "{} No combination of scheme, max_bias, mode, mask and dtype reproduces it. Closest: {}, "
        "max abs error {:.6g}",
        head, describeCandidate(chosen), d.maxAbsError);
    if (d.firstMismatchIndex)
        d.summary += fmt::format("; the first differing entry is {} = {:.9g}, expected {:.9g}",
                                 indexString(*d.firstMismatchIndex), d.firstMismatchActual, d.firstMismatchExpected);
    d.summary += ".";
    return d;
}

// The mask spellings a masked cell holds in `dtype`.
bool maskLike(double v, DType dtype) {
    return v == -kInf || v == dtypeLowest(dtype) || v == roundTo(dtype, -1e9) || v == roundTo(dtype, -10000.0);
}

// No distance penalty at all: every row constant over its unmasked keys (zero, or the bias indexed
// by the query instead of the key). Reads the tensor as (H, Q, K) in memory order.
std::optional<Diagnosis> diagnoseNoAlibi(const Tensor& tensor, const Diagnosis& near) {
    if (near.slopeVector || near.batch || near.heads <= 0 || near.keys < 2) return std::nullopt;
    const std::int64_t K = near.keys;
    const std::uint64_t rows = tensor.size() / static_cast<std::uint64_t>(K);
    if (rows * static_cast<std::uint64_t>(K) != tensor.size() || near.layout == Layout::Qkh) return std::nullopt;
    const DType dtype = tensor.dtype();
    bool anyPair = false, allZero = true, masked = false;
    double lo = kInf, hi = -kInf;
    for (std::uint64_t r = 0; r < rows; ++r) {
        std::optional<double> first;
        std::int64_t seen = 0;
        for (std::int64_t j = 0; j < K; ++j) {
            const double v = tensor.at(r * static_cast<std::uint64_t>(K) + static_cast<std::uint64_t>(j));
            if (std::isnan(v)) return std::nullopt;
            if (maskLike(v, dtype)) {
                masked = true;
                continue;
            }
            if (first && v != *first) return std::nullopt;
            first = v;
            ++seen;
        }
        if (first) {
            allZero = allZero && *first == 0;
            lo = std::min(lo, *first);
            hi = std::max(hi, *first);
        }
        anyPair = anyPair || seen >= 2;
    }
    if (!anyPair) return std::nullopt;
    Diagnosis d = near;
    d.match.reset();
    d.arithDistances.clear();
    d.arith.reset();
    d.firstMismatchIndex.reset();
    d.inferredSlopes.assign(static_cast<std::size_t>(d.heads), 0.0);
    BiasParams p;
    p.slopes.heads = static_cast<int>(d.heads);
    p.queries = d.queries;
    p.keys = d.keys == d.queries ? 0 : d.keys;
    p.mode = masked || d.queries == 1 ? BiasMode::Causal : BiasMode::Symmetric;
    p.mask = {MaskValue::Kind::Lowest, 0.0};
    p.layout = d.layout;
    p.dtype = dtype;
    d.correctParams = p;
    d.bestParams = p;
    d.correctBatch.reset();
    d.findings = {
        {kNoAlibi, allZero ? fmt::format("Every unmasked entry is 0: the tensor holds no ALiBi at all (a bias computed "
                                         "out of place and never assigned, or built over a one-token window).")
                           : fmt::format("Every row is constant over its unmasked keys (values {:.6g} to {:.6g}): the "
                                         "bias does not grow with the distance to the key, so the softmax sees no "
                                         "ALiBi (a bias indexed by the query position instead of the key).",
                                         lo, hi)}};
    const std::string head = fmt::format("{} head{}, {} x {}, layout {}, {}.", d.heads, d.heads == 1 ? "" : "s",
                                         d.queries, d.keys, layoutName(d.layout), dtypeName(dtype));
    d.summary = head + " No ALiBi: no entry depends on the key's distance. Known bug: no-alibi.";
    d.explorerSummary = d.summary;
    return d;
}

// A static KV cache: the last key slots masked in every row of every head. Reads (H, Q, K) and
// (1, H, Q, K) tensors; the cropped tensor is diagnosed on its own.
std::optional<Diagnosis> diagnoseStaticCache(const Tensor& tensor) {
    const Shape& shape = tensor.shape();
    if (shape.size() != 3 && !(shape.size() == 4 && shape[0] == 1)) return std::nullopt;
    const std::int64_t H = shape[shape.size() - 3], Q = shape[shape.size() - 2], K = shape[shape.size() - 1];
    const DType dtype = tensor.dtype();
    std::int64_t used = K;
    const auto columnMasked = [&](std::int64_t j) {
        for (std::int64_t r = 0; r < H * Q; ++r)
            if (!maskLike(tensor.at(static_cast<std::uint64_t>(r * K + j)), dtype)) return false;
        return true;
    };
    while (used > 0 && columnMasked(used - 1)) --used;
    // A prefill of Q tokens (used == Q) reads as top-left alignment, named there.
    if (used == K || used == 0 || used == Q) return std::nullopt;
    Shape cropped = shape;
    cropped.back() = used;
    auto t = Tensor::allocate(cropped, dtype);
    if (!t) return std::nullopt;
    for (std::int64_t r = 0; r < H * Q; ++r)
        for (std::int64_t j = 0; j < used; ++j)
            t->set(static_cast<std::uint64_t>(r * used + j), tensor.at(static_cast<std::uint64_t>(r * K + j)));
    auto inner = diagnoseTensor(*t);
    if (!inner || !inner->match || inner->layout == Layout::Qkh) return std::nullopt;
    Diagnosis d = std::move(*inner);
    d.keys = K;
    d.usedKeys = used;
    d.bestParams.reset();
    d.arithDistances.clear();
    if (d.correctParams) d.correctParams->keys = used == Q ? 0 : used;
    Finding f{kStaticKvCache,
              fmt::format("The last {} of the {} key slots are masked in every row: a static KV cache of {} slots "
                          "holding {} keys. The {} used keys were diagnosed on their own.",
                          K - used, K, K, used, used)};
    f.informational = true;
    d.findings.insert(d.findings.begin(), std::move(f));
    d.summary = fmt::format("Static KV cache: keys {} to {} are unused slots, masked. ", used, K - 1) + d.summary;
    d.explorerSummary =
        fmt::format("Static KV cache: keys {} to {} are unused slots, masked. ", used, K - 1) + d.explorerSummaryText();
    return d;
}

// Values of an f32/f64 tensor that all lie on the f16 or bf16 grid: diagnosed as that dtype.
std::optional<Diagnosis> diagnoseLowPrecision(const Tensor& tensor) {
    const DType dtype = tensor.dtype();
    if (dtype != DType::F32 && dtype != DType::F64) return std::nullopt;
    for (const DType low : {DType::F16, DType::BF16}) {
        bool onGrid = true, anyFraction = false;
        for (std::uint64_t k = 0; k < tensor.size() && onGrid; ++k) {
            const double v = tensor.at(k);
            if (std::isnan(v)) return std::nullopt;
            if (std::isinf(v)) continue;
            onGrid = roundTo(low, v) == v;
            anyFraction = anyFraction || v != std::round(v);
        }
        if (!onGrid || !anyFraction) continue;
        auto t = Tensor::allocate(tensor.shape(), low);
        if (!t) return std::nullopt;
        for (std::uint64_t k = 0; k < tensor.size(); ++k) t->set(k, tensor.at(k));
        auto inner = diagnoseTensor(*t);
        if (!inner || !inner->match) continue;
        Diagnosis d = std::move(*inner);
        d.dtype = dtype;
        // Correct ALiBi stored on the same grid: the rounding the framework's path makes anyway.
        if (d.correctParams) d.correctParams->dtype = low;
        if (d.bestParams) d.bestParams->dtype = dtype;
        d.arithDistances.clear();
        // An -inf mask is no overflow in the wider tensor that holds it.
        std::erase_if(d.findings, [](const Finding& f) { return f.code == kFp16MaskOverflow; });
        const bool framework = d.findings.empty();
        Finding f{
            kLowPrecisionBias,
            fmt::format("Every value lies on the {} grid although the tensor is {}: the bias was computed in {} "
                        "and stored wider{}. {}",
                        dtypeName(low), dtypeName(dtype), dtypeName(low),
                        d.arith && *d.arith != Arith::Exact
                            ? fmt::format(" (bit-identical to {} in {})", profileName(*d.arith, false), dtypeName(low))
                            : std::string(),
                        framework ? "That is the framework's own half-precision path (BLOOM's fp16 path, for "
                                    "one): informational."
                                  : "Compute the bias in float32 if the extra precision matters.")};
        f.informational = framework;
        d.findings.insert(d.findings.begin(), std::move(f));
        d.summary = fmt::format("Values on the {} grid, read as {}. {}", dtypeName(low), dtypeName(low), d.summary);
        d.explorerSummary = d.summary;
        return d;
    }
    return std::nullopt;
}

// The fixed words of every finding, and its effect on attention.
void describeFindings(const Tensor& tensor, Diagnosis& d) {
    AttentionEffect effect;
    bool measured = false;
    if (d.correctParams && !d.slopeVector)
        if (auto e = attentionEffect(tensor, d)) {
            effect = *e;
            measured = true;
        }
    d.maxProbabilityChange = effect.maxProbabilityChange;
    d.dtypeProbabilityChange = effect.dtypeProbabilityChange;
    // Harmless: no more change than storing correct ALiBi in this dtype makes anyway.
    const double threshold = std::max(1e-6, 1.01 * effect.dtypeProbabilityChange + 1e-12);
    for (Finding& f : d.findings) {
        if (const FindingInfo* info = findingInfo(f.code)) {
            f.explanation = info->explanation;
            f.fix = info->fix;
            f.informational = f.informational || info->informational;
        }
        f.maxProbabilityChange = effect.maxProbabilityChange;
        f.changesAttention = measured ? effect.maxProbabilityChange > threshold : !f.informational;
    }
    if (!d.findings.empty() && measured) {
        const bool changes =
            std::any_of(d.findings.begin(), d.findings.end(), [](const Finding& f) { return f.changesAttention; });
        const std::string words =
            changes ? fmt::format(" Attention changes: up to {:.3g} in one probability (zero content).",
                                  effect.maxProbabilityChange)
                    : std::string(" Harmless: no change after softmax (zero content, within the dtype's rounding).");
        d.summary += words;
        if (!d.explorerSummary.empty()) d.explorerSummary += words;
    }
}

// Head counts of published ALiBi models (assets/presets): a (batch * heads, 1, K) tensor whose
// slopes repeat with one of these periods is split into its batch rows.
constexpr int kKnownHeadCounts[] = {8, 12, 16, 24, 32, 40, 56, 64, 112};

// A row's slope read off its last two keys (m in every form: -m (p - j) and +m j alike).
double lastStep(const Tensor& t, std::uint64_t row, std::int64_t keys) {
    const auto at = [&](std::int64_t j) {
        return t.at(row * static_cast<std::uint64_t>(keys) + static_cast<std::uint64_t>(j));
    };
    return keys >= 2 ? at(keys - 1) - at(keys - 2) : 0.0;
}

// The heads of a (N, 1, K) tensor holding N = batch * heads rows (HF BLOOM's build_alibi_tensor):
// the --heads given, or the smallest known head count the rows' slopes repeat with.
int splitHeads(const Tensor& tensor, int given) {
    const Shape& shape = tensor.shape();
    if (shape.size() != 3 || shape[1] != 1 || shape[2] < 2) return 0;
    const std::int64_t n = shape[0], k = shape[2];
    if (given > 0) return n % given == 0 && n / given > 1 ? given : 0;
    for (const int h : kKnownHeadCounts) {
        if (n % h != 0 || n / h < 2) continue;
        bool periodic = true, distinct = false;
        for (std::int64_t r = h; r < n && periodic; ++r) {
            const double a = lastStep(tensor, static_cast<std::uint64_t>(r), k);
            const double b = lastStep(tensor, static_cast<std::uint64_t>(r % h), k);
            periodic = std::fabs(a - b) <= 1e-3 * std::max(std::fabs(a), std::fabs(b));
        }
        for (std::int64_t r = 1; r < h && !distinct; ++r)
            distinct = lastStep(tensor, static_cast<std::uint64_t>(r), k) != lastStep(tensor, 0, k);
        if (periodic && distinct) return h;
    }
    return 0;
}

// A batch of (H, Q, K) rows that are not square (T, T) sequences: decode rows (B, H, 1, K), one
// head (B, 1, 1, K), or (batch * heads, 1, K) split by `heads`. Each row's left padding (leading
// key slots masked in every cell, or BLOOM's zeros before its first real key) is cropped and the
// row diagnosed on its own; the findings of all rows are merged.
std::optional<Diagnosis> diagnoseRows(const Tensor& tensor, std::int64_t batch, std::int64_t heads,
                                      std::int64_t queries, std::int64_t keys) {
    const DType dtype = tensor.dtype();
    const std::uint64_t rowCells = static_cast<std::uint64_t>(heads * queries * keys);
    Diagnosis d;
    d.layout = Layout::Hqk;
    d.heads = heads;
    d.queries = queries;
    d.keys = keys;
    d.dtype = dtype;
    BatchParams bp;
    bp.padding = Padding::Left;
    std::vector<Diagnosis> rows;
    std::string first;
    bool allMatch = true;
    for (std::int64_t b = 0; b < batch; ++b) {
        const std::uint64_t base = static_cast<std::uint64_t>(b) * rowCells;
        const auto cell = [&](std::int64_t r, std::int64_t j) {
            return tensor.at(base + static_cast<std::uint64_t>(r * keys + j));
        };
        std::int64_t pad = 0;
        while (pad < keys - 1) {
            bool masked = true;
            for (std::int64_t r = 0; r < heads * queries && masked; ++r) masked = maskLike(cell(r, pad), dtype);
            if (!masked) break;
            ++pad;
        }
        if (pad == 0 && cell(queries - 1, keys - 1) > 0) {
            // BLOOM's positions (cumsum(mask) - 1) * mask: zeros on the padding, then 0, m, 2m, ...
            std::int64_t zeros = 0;
            while (zeros < keys) {
                bool zero = true;
                for (std::int64_t r = 0; r < heads * queries && zero; ++r) zero = cell(r, zeros) == 0;
                if (!zero) break;
                ++zeros;
            }
            if (zeros > 1 && zeros < keys) pad = zeros - 1;
        }
        const std::int64_t used = keys - pad;
        auto t = Tensor::allocate({heads, queries, used}, dtype);
        if (!t) return std::nullopt;
        for (std::int64_t r = 0; r < heads * queries; ++r)
            for (std::int64_t j = 0; j < used; ++j) t->set(static_cast<std::uint64_t>(r * used + j), cell(r, pad + j));
        auto one = diagnose(*t);
        if (!one) return std::nullopt;
        allMatch = allMatch && one->match.has_value();
        bp.lengths.push_back(used);
        if (b == 0) first = one->summary;
        for (const Finding& f : one->findings) {
            auto same =
                std::find_if(d.findings.begin(), d.findings.end(), [&](const Finding& g) { return g.code == f.code; });
            if (same == d.findings.end()) {
                d.findings.push_back(f);
                d.findings.back().message = fmt::format("batch row {}: {}", b, f.message);
            } else {
                same->changesAttention = same->changesAttention || f.changesAttention;
                same->maxProbabilityChange = std::max(same->maxProbabilityChange, f.maxProbabilityChange);
            }
        }
        d.maxProbabilityChange = std::max(d.maxProbabilityChange, one->maxProbabilityChange);
        d.maxAbsError = std::max(d.maxAbsError, one->maxAbsError);
        rows.push_back(std::move(*one));
    }
    const bool padded = std::any_of(bp.lengths.begin(), bp.lengths.end(), [&](auto l) { return l < keys; });
    if (allMatch) {
        d.match = rows.front().match;
        d.inferredSlopes = rows.front().inferredSlopes;
        d.arith = rows.front().arith;
    }
    std::string lengths;
    for (const auto l : bp.lengths) lengths += fmt::format("{}{}", lengths.empty() ? "" : ",", l);
    if (!padded) bp.lengths.assign(static_cast<std::size_t>(batch), keys);
    d.batch = bp;
    d.summary = fmt::format("A batch of {} rows of (H, Q, K) = ({}, {}, {}), {}; {}. {} Batch row 0: {}", batch, heads,
                            queries, keys, dtypeName(dtype),
                            padded ? fmt::format("left padding, key lengths {}", lengths) : std::string("no padding"),
                            allMatch ? "Every row matches." : "Not every row matches.", first);
    d.explorerSummary = d.summary;
    return d;
}

// Checks a single-sequence diagnosis against a named model's own computation: the model's bias
// (its slopes, form and arithmetic, times its bias scale) built for this shape and compared cell
// by cell. A tensor the model computes loses the findings its conventions explain; any other
// gets not-this-model saying what differs. Either way correct ALiBi becomes the model's.
void checkAgainstModel(const Tensor& tensor, Diagnosis& d, const ModelConvention& model) {
    const DType dtype = tensor.dtype();
    const std::int64_t H = d.heads, Q = d.queries, K = d.keys;
    std::vector<std::string> differs;
    if (d.slopeVector || d.batch || d.usedKeys > 0) {
        differs.push_back(
            "only a single (H, Q, K) sequence can be checked against a model; this tensor is read as "
            "a slope vector, a batch or a static cache");
    }
    if (differs.empty() && H != model.heads)
        differs.push_back(fmt::format("{} heads where {} has {}", H, model.name, model.heads));
    SlopeParams sp{model.heads, model.scheme, model.maxBias, {}, Arith::Exact};
    auto exactSlopes = computeSlopes(sp);
    if (!exactSlopes) return;
    std::vector<double> scaled = *exactSlopes;
    for (double& m : scaled) m *= model.biasScale;
    bool same = false;
    if (differs.empty()) {
        BiasParams p;
        p.slopes = sp;
        p.slopes.arith = model.arith;
        p.queries = Q;
        p.keys = K == Q ? 0 : K;
        p.mode = model.mode;
        p.mask = {MaskValue::Kind::Lowest, 0.0};
        p.layout = Layout::Hqk;
        p.dtype = dtype;
        auto built = buildBias(p);
        if (built && built->size() == tensor.size()) {
            same = true;
            const Layout memory = d.layout == Layout::Qkh ? Layout::Qkh : Layout::Hqk;
            for (std::int64_t h = 0; h < H && same; ++h)
                for (std::int64_t i = 0; i < Q && same; ++i)
                    for (std::int64_t j = 0; j < K && same; ++j) {
                        const double e0 = built->at(static_cast<std::uint64_t>((h * Q + i) * K + j));
                        const double a = tensor.at(layoutIndex(memory, H, Q, K, h, i, j));
                        if (maskLike(e0, dtype)) {
                            same = maskLike(a, dtype);
                            continue;
                        }
                        // The model's own scale, applied in float32 as its attention does.
                        const double e = roundTo(
                            dtype, static_cast<double>(static_cast<float>(e0) * static_cast<float>(model.biasScale)));
                        const double slope = scaled[static_cast<std::size_t>(h)];
                        same = a == e || std::fabs(a - e) <= 2 * detail::tolerance(dtype, e, slope);
                    }
        }
    }
    const std::string conventions = [&] {
        std::string out;
        for (const auto& c : model.conventions) out += fmt::format("{}{}", out.empty() ? "" : "; ", c);
        return out;
    }();
    // Correct ALiBi from here on is the model's.
    if (d.correctParams) {
        d.correctParams->slopes.heads = model.heads;
        d.correctParams->slopes.scheme = SlopeScheme::Custom;
        d.correctParams->slopes.custom = scaled;
        d.correctParams->mode = model.mode;
        if (d.heads != model.heads) d.correctParams.reset();
    }
    if (same) {
        std::erase_if(d.findings, [](const Finding& f) { return !f.informational; });
        if (!d.match) {
            MaskValue mask{MaskValue::Kind::Lowest, 0.0};
            d.match =
                DiagnosisMatch{SlopeScheme::Custom, model.maxBias, model.mode, mask, modeMasks(model.mode), scaled};
            d.firstMismatchIndex.reset();
            d.maxAbsError = 0;
        }
        const std::string words =
            fmt::format(" Matches {}'s own computation{}.", model.name,
                        model.biasScale != 1.0 && model.headDim > 0
                            ? fmt::format(" (its bias times 1/sqrt(head_dim) = 1/sqrt({}))", model.headDim)
                            : std::string());
        d.summary += words;
        if (!d.explorerSummary.empty()) d.explorerSummary += words;
        return;
    }
    if (differs.empty() && d.match) {
        // Slopes: proportional to the model's (a scale), or another set.
        const auto& m = d.match->slopes;
        if (m.size() == scaled.size()) {
            const double k = m[0] / scaled[0];
            bool proportional = true;
            for (std::size_t h = 0; h < m.size(); ++h)
                proportional = proportional && std::fabs(m[h] / scaled[h] - k) <= 2e-3 * k;
            if (proportional && std::fabs(k - 1) > 2e-3) {
                if (model.biasScale != 1.0 && std::fabs(k * model.biasScale - 1) <= 2e-3)
                    differs.push_back(
                        fmt::format("the bias lacks {}'s scale 1/sqrt(head_dim) = 1/sqrt({}): the slopes "
                                    "are textbook ALiBi's, {:.6g} times the model's",
                                    model.name, model.headDim, k));
                else
                    differs.push_back(fmt::format("the slopes are {:.6g} times {}'s", k, model.name));
            } else if (!proportional) {
                differs.push_back(fmt::format(
                    "the slopes ({}) are not {}'s {} slopes with max_bias {}{}", detail::slopeList(m), model.name,
                    schemeName(model.scheme), model.maxBias,
                    model.biasScale != 1.0 ? fmt::format(" times {:.6g}", model.biasScale) : std::string()));
            }
        }
        const auto rowForm = [](BiasMode x) {
            return x == BiasMode::Causal || x == BiasMode::Bloom || x == BiasMode::Mpt;
        };
        if (d.match->mode != model.mode)
            differs.push_back(rowForm(d.match->mode) && rowForm(model.mode)
                                  ? fmt::format("the bias is in the {} form where {} computes the {} form (they "
                                                "differ by a constant per row: the same softmax)",
                                                modeName(d.match->mode), model.name, modeName(model.mode))
                                  : fmt::format("the bias is in the {} form where {} computes the {} form",
                                                modeName(d.match->mode), model.name, modeName(model.mode)));
    }
    if (differs.empty())
        differs.push_back(fmt::format("its values differ from {}'s own build ({} arithmetic) beyond rounding",
                                      model.name, arithName(model.arith)));
    std::string what;
    for (const auto& x : differs) what += fmt::format("{}{}", what.empty() ? "" : "; ", x);
    Finding f{
        kNotThisModel,
        fmt::format("Not {}'s computation: {}.{} Source: {}.", model.name, what,
                    conventions.empty() ? std::string() : fmt::format(" The model's conventions: {}.", conventions),
                    model.source)};
    // The model's convention explains a 1/sqrt(d) finding only when the tensor matches it.
    d.findings.insert(d.findings.begin(), std::move(f));
    const std::string words = fmt::format(" Not {}'s computation.", model.name);
    d.summary += words;
    if (!d.explorerSummary.empty()) d.explorerSummary += words;
}

}  // namespace

Result<Diagnosis> diagnose(const Tensor& tensor) {
    return diagnose(tensor, DiagnoseOptions{});
}

Result<Diagnosis> diagnose(const Tensor& tensor, const DiagnoseOptions& options) {
    const Shape& shape = tensor.shape();
    // The frameworks' own shapes: (batch * heads, 1, K), and 4-D rows that are not (T, T).
    if (const int heads = splitHeads(tensor, options.heads); heads > 0)
        if (auto rows = diagnoseRows(tensor, shape[0] / heads, heads, 1, shape[2])) return std::move(*rows);
    if (options.heads > 0 && !(shape.size() == 3 && shape[1] == 1 && shape[0] % options.heads == 0))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--heads {} splits a (batch * heads, 1, K) tensor, but the shape is {}: drop --heads, "
                                "or give the head count that divides the first axis",
                                options.heads, shapeString(shape)));
    if (shape.size() == 4 && shape[0] >= 1 && shape[2] != shape[3] && shape[1] >= 1 && shape[1] <= kMaxHeads &&
        shape[2] >= 1 && shape[2] <= kMaxLength && shape[3] >= 1 && shape[3] <= kMaxLength && shape[0] > 1)
        if (auto rows = diagnoseRows(tensor, shape[0], shape[1], shape[2], shape[3])) return std::move(*rows);
    auto d = diagnoseTensor(tensor);
    if (!d) return d;
    // Rows constant over their keys are never ALiBi, whatever slopes near zero would fit them.
    bool none = false;
    if (auto zero = diagnoseNoAlibi(tensor, *d)) {
        *d = std::move(*zero);
        none = true;
    }
    if (!d->match && !d->slopeVector && !d->batch && !none) {
        if (auto cache = diagnoseStaticCache(tensor))
            *d = std::move(*cache);
        else if (auto low = diagnoseLowPrecision(tensor))
            *d = std::move(*low);
    }
    if (options.model) checkAgainstModel(tensor, *d, *options.model);
    describeFindings(tensor, *d);
    return d;
}

ModelConvention modelConvention(const Preset& preset) {
    ModelConvention m;
    m.name = preset.name;
    m.source = preset.source;
    m.heads = preset.heads;
    m.scheme = preset.scheme;
    m.maxBias = preset.maxBias;
    m.mode = preset.mode;
    m.arith = preset.arith;
    m.biasScale = preset.biasScale;
    m.headDim = preset.headDim;
    m.conventions = preset.conventions;
    return m;
}

}  // namespace alibi
