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

// The fixed words of every finding, and its effect on attention. A batch of decode rows measures
// each finding on the batch rows that show it (a harmless offset in one row stays harmless beside
// another row's bug); everything else on the whole tensor.
void describeFindings(const Tensor& tensor, Diagnosis& d) {
    AttentionEffect effect;
    bool measured = false;
    if (d.correctParams && !d.slopeVector)
        if (auto e = attentionEffect(tensor, d)) {
            effect = *e;
            measured = true;
        }
    std::vector<AttentionEffect> perRow;
    if (measured && !d.rows.empty())
        if (auto e = detail::attentionEffectPerBatchRow(tensor, d); e && e->size() == d.rows.size()) perRow = *e;
    d.maxProbabilityChange = effect.maxProbabilityChange;
    d.dtypeProbabilityChange = effect.dtypeProbabilityChange;
    for (Finding& f : d.findings) {
        if (const FindingInfo* info = findingInfo(f.code)) {
            f.explanation = info->explanation;
            f.fix = info->fix;
            f.informational = f.informational || info->informational;
        }
        AttentionEffect own;
        bool rowsShowIt = false;
        for (std::size_t b = 0; b < perRow.size(); ++b) {
            const auto& codes = d.rows[b].findings;
            if (std::find(codes.begin(), codes.end(), f.code) == codes.end()) continue;
            rowsShowIt = true;
            own.maxProbabilityChange = std::max(own.maxProbabilityChange, perRow[b].maxProbabilityChange);
            own.dtypeProbabilityChange = std::max(own.dtypeProbabilityChange, perRow[b].dtypeProbabilityChange);
        }
        if (!rowsShowIt) own = effect;
        // Harmless: no more change than storing correct ALiBi in this dtype makes anyway.
        const double threshold = std::max(1e-6, 1.01 * own.dtypeProbabilityChange + 1e-12);
        f.maxProbabilityChange = own.maxProbabilityChange;
        f.changesAttention = measured ? own.maxProbabilityChange > threshold : !f.informational;
    }
    if (!d.findings.empty() && measured) {
        const bool changes =
            std::any_of(d.findings.begin(), d.findings.end(), [](const Finding& f) { return f.changesAttention; });
        const std::string over = d.rows.empty() ? "" : " Over the whole batch:";
        const std::string words =
            changes ? fmt::format("{} Attention changes: up to {:.3g} in one probability (zero content).", over,
                                  effect.maxProbabilityChange)
                    : over + " Harmless: no change after softmax (zero content, within the dtype's rounding).";
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

// One sequence (or a square batch, a slope vector): the candidates, then no-alibi, a static cache
// or a low-precision bias when nothing plain matches. The findings' effects are not yet measured.
Result<Diagnosis> diagnoseSequence(const Tensor& tensor) {
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
    return d;
}

// Whether two batch rows' diagnoses show the same thing: both match with the same form and slopes
// (to the dtype's rounding of slopes read off rows of other lengths) and the same findings, or
// neither matches.
bool sameRowMatch(const Diagnosis& a, const Diagnosis& b) {
    if (a.match.has_value() != b.match.has_value()) return false;
    const auto codes = [](const Diagnosis& d) {
        std::vector<std::string> c;
        for (const Finding& f : d.findings) c.push_back(f.code);
        std::sort(c.begin(), c.end());
        return c;
    };
    if (codes(a) != codes(b)) return false;
    if (!a.match) return true;
    const DiagnosisMatch &x = *a.match, &y = *b.match;
    if (x.mode != y.mode || x.slopes.size() != y.slopes.size()) return false;
    const double rel = a.dtype == DType::BF16 ? 1e-2 : a.dtype == DType::F16 ? 2e-3 : 1e-5;
    for (std::size_t h = 0; h < x.slopes.size(); ++h)
        if (std::fabs(x.slopes[h] - y.slopes[h]) > rel * std::max(std::fabs(x.slopes[h]), std::fabs(y.slopes[h])))
            return false;
    return true;
}

// The mask a masked cell's value spells: -inf, the dtype's lowest, or a finite value.
MaskValue maskOf(double v, DType dtype) {
    if (std::isinf(v)) return {MaskValue::Kind::NegInf, -kInf};
    if (v == dtypeLowest(dtype)) return {MaskValue::Kind::Lowest, 0.0};
    return {MaskValue::Kind::Finite, v};
}

// A row's summary without its own "H heads, Q x K, layout hqk, f32." opening.
std::string rowWords(const Diagnosis& row, bool explorer) {
    std::string s = explorer ? row.explorerSummaryText() : row.summary;
    const std::string head = fmt::format("{} head{}, {} x {}, layout {}, {}. ", row.heads, row.heads == 1 ? "" : "s",
                                         row.queries, row.keys, layoutName(row.layout), dtypeName(row.dtype));
    if (const auto at = s.find(head); at != std::string::npos) s.erase(at, head.size());
    return s;
}

std::string rowList(const std::vector<std::int64_t>& rows) {
    std::string out;
    for (const auto r : rows) out += fmt::format("{}{}", out.empty() ? "" : ", ", r);
    return out;
}

// A batch of (H, Q, K) rows that are not square (T, T) sequences: decode rows (B, H, 1, K), one
// head (B, 1, 1, K), or (batch * heads, 1, K) split by `heads`. Each row's left padding (leading
// key slots masked in every cell, or BLOOM's zeros before its first real key) is cropped and the
// row diagnosed on its own. The batch reports the match most rows share (the common match), names
// the rows that differ, merges every row's findings (naming the rows that show each), and gets
// correct ALiBi as the square left-padded batch whose last Q query rows the tensor holds.
std::optional<Diagnosis> diagnoseRows(const Tensor& tensor, std::int64_t batch, std::int64_t heads,
                                      std::int64_t queries, std::int64_t keys) {
    const DType dtype = tensor.dtype();
    const std::uint64_t rowCells = static_cast<std::uint64_t>(heads * queries * keys);
    BatchParams bp;
    bp.padding = Padding::Left;
    std::vector<Diagnosis> rows;
    bool zeros = false;              // BLOOM's zeros on the padding keys
    std::optional<double> padValue;  // the value masked padding keys hold
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
        if (pad > 0 && !padValue) padValue = cell(0, 0);
        if (pad == 0 && cell(queries - 1, keys - 1) > 0) {
            // BLOOM's positions (cumsum(mask) - 1) * mask: zeros on the padding, then 0, m, 2m, ...
            std::int64_t leading = 0;
            while (leading < keys) {
                bool zero = true;
                for (std::int64_t r = 0; r < heads * queries && zero; ++r) zero = cell(r, leading) == 0;
                if (!zero) break;
                ++leading;
            }
            if (leading > 1 && leading < keys) {
                pad = leading - 1;
                zeros = true;
            }
        }
        const std::int64_t used = keys - pad;
        auto t = Tensor::allocate({heads, queries, used}, dtype);
        if (!t) return std::nullopt;
        for (std::int64_t r = 0; r < heads * queries; ++r)
            for (std::int64_t j = 0; j < used; ++j) t->set(static_cast<std::uint64_t>(r * used + j), cell(r, pad + j));
        // Its heads are known: the row is never split again.
        auto one = diagnoseSequence(*t);
        if (!one) return std::nullopt;
        describeFindings(*t, *one);
        bp.lengths.push_back(used);
        rows.push_back(std::move(*one));
    }

    // The common match: the one most rows show (the earliest row's on a tie).
    std::size_t common = 0, commonCount = 0;
    for (std::size_t a = 0; a < rows.size(); ++a) {
        const auto n = static_cast<std::size_t>(
            std::count_if(rows.begin(), rows.end(), [&](const Diagnosis& r) { return sameRowMatch(rows[a], r); }));
        if (n > commonCount) {
            common = a;
            commonCount = n;
        }
    }
    const Diagnosis& c = rows[common];

    Diagnosis d;
    d.layout = Layout::Hqk;
    d.heads = heads;
    d.queries = queries;
    d.keys = keys;
    d.dtype = dtype;
    d.paddingZeros = zeros;
    // The batch is reproduced when every row is (by the common match or its own).
    if (std::all_of(rows.begin(), rows.end(), [](const Diagnosis& r) { return r.match.has_value(); }))
        d.match = c.match;
    // The padding shows the mask even when the rows' own cells do not.
    if (d.match && !d.match->masked && padValue) {
        d.match->masked = true;
        d.match->mask = maskOf(*padValue, dtype);
    }
    d.inferredSlopes = c.inferredSlopes;
    if (commonCount == rows.size()) d.arith = c.arith;
    // Every row's findings once, naming the rows that show each when not all do.
    std::vector<std::vector<std::int64_t>> showing;
    std::vector<std::int64_t> differ;
    for (std::size_t b = 0; b < rows.size(); ++b) {
        const Diagnosis& r = rows[b];
        d.maxAbsError = std::max(d.maxAbsError, r.maxAbsError);
        DiagnosisRow row;
        row.row = static_cast<std::int64_t>(b);
        row.keys = bp.lengths[b];
        row.matched = r.match.has_value();
        row.common = sameRowMatch(c, r);
        row.summary = rowWords(r, false);
        if (!row.common) differ.push_back(row.row);
        for (const Finding& f : r.findings) {
            row.findings.push_back(f.code);
            auto same =
                std::find_if(d.findings.begin(), d.findings.end(), [&](const Finding& g) { return g.code == f.code; });
            if (same == d.findings.end()) {
                d.findings.push_back(f);
                showing.push_back({row.row});
            } else {
                same->changesAttention = same->changesAttention || f.changesAttention;
                same->informational = same->informational && f.informational;
                same->maxProbabilityChange = std::max(same->maxProbabilityChange, f.maxProbabilityChange);
                showing[static_cast<std::size_t>(same - d.findings.begin())].push_back(row.row);
            }
        }
        d.rows.push_back(std::move(row));
    }
    for (std::size_t k = 0; k < d.findings.size(); ++k) {
        if (showing[k].size() == rows.size()) continue;
        const std::string who = fmt::format("batch row{} {}: ", showing[k].size() == 1 ? "" : "s", rowList(showing[k]));
        Finding& f = d.findings[k];
        if (!f.explorer.empty()) f.explorer = who + f.explorer;
        f.message = who + f.message;
    }

    // Correct ALiBi: the common row's, as the square left-padded batch of length K.
    const Diagnosis* source = c.correctParams ? &c : nullptr;
    for (const Diagnosis& r : rows)
        if (!source && r.correctParams) source = &r;
    if (source) {
        BiasParams p = *source->correctParams;
        p.queries = keys;
        p.keys = 0;
        p.layout = Layout::Hqk;
        // The mask the padding holds, unless a masked cell of the rows themselves showed one.
        const bool rowMask = source->match && source->match->masked;
        if (padValue && !rowMask) p.mask = d.match ? d.match->mask : maskOf(*padValue, dtype);
        d.correctParams = p;
        d.bestParams = p;
        BatchParams correct = bp;
        correct.positions = PositionRule::Mask;
        d.correctBatch = correct;
    }
    d.batch = bp;

    const bool padded = std::any_of(bp.lengths.begin(), bp.lengths.end(), [&](auto l) { return l < keys; });
    std::string lengths;
    for (const auto l : bp.lengths) lengths += fmt::format("{}{}", lengths.empty() ? "" : ",", l);
    const std::string head = fmt::format(
        "A batch of {} rows of (H, Q, K) = ({}, {}, {}), {}; {}{}.", batch, heads, queries, keys, dtypeName(dtype),
        padded ? fmt::format("left padding, key lengths {}", lengths) : std::string("no padding"),
        zeros ? " (the padding keys hold 0, as HF BLOOM's build_alibi_tensor leaves them; the mask is applied apart)"
              : "");
    const auto words = [&](bool explorer) {
        std::string out = head;
        if (differ.empty()) {
            out += fmt::format(" Every row: {}", rowWords(c, explorer));
            return out;
        }
        out += fmt::format(" {} of {} rows: {} Rows that differ: ", commonCount, rows.size(), rowWords(c, explorer));
        for (std::size_t k = 0; k < differ.size(); ++k)
            out += fmt::format("{}row {}: {}", k ? "; " : "", differ[k],
                               rowWords(rows[static_cast<std::size_t>(differ[k])], explorer));
        return out;
    };
    d.summary = words(false);
    d.explorerSummary = words(true);
    return d;
}

// The model's conventions in one sentence ("file, function: what it does; ...").
std::string conventionWords(const ModelConvention& model) {
    std::string out;
    for (const auto& c : model.conventions) out += fmt::format("{}{}", out.empty() ? "" : "; ", c);
    return out;
}

// What differs between the slopes a match (or a slope vector) shows and the model's own slopes
// (`exact`, unscaled): a constant factor (the model's bias scale missing, or applied to slopes
// that the model's attention scales again), or another set. Empty when they agree.
std::optional<std::string> slopeDifference(const std::vector<double>& m, const std::vector<double>& exact,
                                           const ModelConvention& model, bool slopeVector) {
    if (m.size() != exact.size() || m.empty()) return std::nullopt;
    std::vector<double> scaled = exact;
    if (!slopeVector)
        for (double& x : scaled) x *= model.biasScale;
    const double k = m[0] / scaled[0];
    bool proportional = true;
    for (std::size_t h = 0; h < m.size(); ++h)
        proportional = proportional && std::fabs(m[h] / scaled[h] - k) <= 2e-3 * k;
    if (proportional && std::fabs(k - 1) <= 2e-3) return std::nullopt;
    if (proportional) {
        if (!slopeVector && model.biasScale != 1.0 && std::fabs(k * model.biasScale - 1) <= 2e-3)
            return fmt::format(
                "the bias lacks {}'s scale 1/sqrt(head_dim) = 1/sqrt({}): the slopes are textbook ALiBi's, {:.6g} "
                "times the model's (a dump of build_alibi_tensor before the attention scales it reads so too; "
                "diagnose compares the bias the softmax sees beside q.k / sqrt(d))",
                model.name, model.headDim, k);
        if (slopeVector && model.biasScale != 1.0 && std::fabs(k / model.biasScale - 1) <= 2e-3)
            return fmt::format(
                "the slopes already carry {}'s 1/sqrt(head_dim) = 1/sqrt({}), which its attention applies to the "
                "scores and the bias together: the scale would be applied twice",
                model.name, model.headDim);
        return fmt::format("the slopes are {:.6g} times {}'s", k, model.name);
    }
    return fmt::format(
        "the slopes ({}) are not {}'s {} slopes with max_bias {}{}", detail::slopeList(m), model.name,
        schemeName(model.scheme), model.maxBias,
        !slopeVector && model.biasScale != 1.0 ? fmt::format(" times {:.6g}", model.biasScale) : std::string());
}

// The not-this-model finding, first among the findings, and its words in the summary.
void notThisModel(Diagnosis& d, const ModelConvention& model, std::vector<std::string> differs) {
    if (differs.empty())
        differs.push_back(fmt::format("its values differ from {}'s own build ({} arithmetic) beyond rounding",
                                      model.name, arithName(model.arith)));
    std::string what;
    for (const auto& x : differs) what += fmt::format("{}{}", what.empty() ? "" : "; ", x);
    const std::string conventions = conventionWords(model);
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

// A slope vector against the model's slopes (what its build_alibi_tensor or gen_slopes returns,
// under its arithmetic or exact), to the dtype's rounding.
void checkSlopesAgainstModel(Diagnosis& d, const ModelConvention& model) {
    const std::vector<double>& values = d.inferredSlopes;
    std::vector<std::string> differs;
    if (d.heads != model.heads) {
        differs.push_back(fmt::format("{} slopes where {} has {} heads", d.heads, model.name, model.heads));
        notThisModel(d, model, std::move(differs));
        return;
    }
    const std::uint64_t allowed = d.dtype == DType::F32 || d.dtype == DType::F64 ? 64 : 1;
    std::vector<double> exact;
    for (const Arith arith : {model.arith, Arith::Exact}) {
        auto slopes = computeSlopes(SlopeParams{model.heads, model.scheme, model.maxBias, {}, arith});
        if (!slopes) continue;
        if (arith == Arith::Exact) exact = *slopes;
        bool same = slopes->size() == values.size();
        for (std::size_t h = 0; h < values.size() && same; ++h)
            same = ulpDistance(d.dtype, values[h], roundTo(d.dtype, (*slopes)[h])) <= allowed;
        if (!same) continue;
        std::erase_if(d.findings, [](const Finding& f) { return !f.informational; });
        const std::string words = fmt::format(
            " Matches {}'s slopes ({} slopes, max_bias {}){}.", model.name, schemeName(model.scheme), model.maxBias,
            model.biasScale != 1.0 && model.headDim > 0
                ? fmt::format("; its attention multiplies the bias by 1/sqrt(head_dim) = 1/sqrt({}) afterwards",
                              model.headDim)
                : std::string());
        d.summary += words;
        if (!d.explorerSummary.empty()) d.explorerSummary += words;
        return;
    }
    if (auto what = slopeDifference(values, exact, model, true)) differs.push_back(*what);
    notThisModel(d, model, std::move(differs));
}

// Checks a diagnosis against a named model's own computation: the model's bias (its slopes, form
// and arithmetic, times its bias scale) built for this shape and compared cell by cell. One
// sequence is built as (H, Q, K); a batch (square, or decode rows) as the model's batch with the
// padding, documents, window and prefix read off the tensor, positions from the mask. A tensor
// the model computes loses the findings its conventions explain; any other gets not-this-model
// saying what differs. Either way correct ALiBi becomes the model's.
void checkAgainstModel(const Tensor& tensor, Diagnosis& d, const ModelConvention& model) {
    if (d.slopeVector) {
        checkSlopesAgainstModel(d, model);
        return;
    }
    const DType dtype = tensor.dtype();
    const std::int64_t H = d.heads, Q = d.queries, K = d.keys;
    std::vector<std::string> differs;
    if (d.usedKeys > 0) {
        differs.push_back(
            "a static KV cache cannot be checked against a model; crop the unused key slots and diagnose the used "
            "keys");
    }
    if (differs.empty() && H != model.heads)
        differs.push_back(fmt::format("{} heads where {} has {}", H, model.name, model.heads));
    SlopeParams sp{model.heads, model.scheme, model.maxBias, {}, Arith::Exact};
    auto exactSlopes = computeSlopes(sp);
    if (!exactSlopes) return;
    std::vector<double> scaled = *exactSlopes;
    for (double& m : scaled) m *= model.biasScale;
    BiasParams p;
    p.slopes = sp;
    p.slopes.arith = model.arith;
    p.mode = model.mode;
    p.mask = {MaskValue::Kind::Lowest, 0.0};
    p.layout = Layout::Hqk;
    p.dtype = dtype;
    // Cell n of `built` against the tensor's cell actual(n), head head(n).
    const auto sameCells = [&](const Tensor& built, auto actual, auto head) {
        if (built.size() != tensor.size()) return false;
        for (std::uint64_t n = 0; n < built.size(); ++n) {
            const double e0 = built.at(n);
            const double a = tensor.at(actual(n));
            if (maskLike(e0, dtype)) {
                if (!maskLike(a, dtype)) return false;
                continue;
            }
            // The model's own scale, applied in float32 as its attention does.
            const double e =
                roundTo(dtype, static_cast<double>(static_cast<float>(e0) * static_cast<float>(model.biasScale)));
            const double slope = scaled[head(n)];
            if (!(a == e || std::fabs(a - e) <= 2 * detail::tolerance(dtype, e, slope))) return false;
        }
        return true;
    };
    bool same = false;
    const auto tile = static_cast<std::uint64_t>(Q * K);
    const auto headOf = [&](std::uint64_t n) {
        return static_cast<std::size_t>((n / tile) % static_cast<std::uint64_t>(H));
    };
    if (differs.empty() && d.batch) {
        // The batch as the model builds it: positions from the mask ((cumsum(mask) - 1) * mask),
        // then the raw index (the positions bug) and per-document positions.
        BatchParams q = d.correctBatch ? *d.correctBatch : *d.batch;
        std::vector<PositionRule> rules{PositionRule::Mask, PositionRule::Naive};
        if (!q.documents.empty()) rules.push_back(PositionRule::Document);
        p.queries = K;
        p.keys = 0;
        for (const PositionRule rule : rules) {
            q.positions = rule;
            auto built = detail::buildRowsBias(p, q, Q, d.paddingZeros);
            if (!built || !sameCells(
                              *built, [](std::uint64_t n) { return n; }, headOf))
                continue;
            if (rule == PositionRule::Naive)
                differs.push_back(fmt::format(
                    "its positions count the padding (the raw index) where {} takes them from the attention mask, "
                    "(cumsum(mask) - 1) * mask{}",
                    model.name,
                    model.mode == BiasMode::Bloom || model.mode == BiasMode::Mpt
                        ? " (in its form a constant per row: the same softmax)"
                        : ""));
            else
                same = true;
            break;
        }
    } else if (differs.empty()) {
        p.queries = Q;
        p.keys = K == Q ? 0 : K;
        auto built = buildBias(p);
        const Layout memory = d.layout == Layout::Qkh ? Layout::Qkh : Layout::Hqk;
        const auto actual = [&](std::uint64_t n) {
            const auto h = static_cast<std::int64_t>(n / tile);
            const auto i =
                static_cast<std::int64_t>((n / static_cast<std::uint64_t>(K)) % static_cast<std::uint64_t>(Q));
            const auto j = static_cast<std::int64_t>(n % static_cast<std::uint64_t>(K));
            return layoutIndex(memory, H, Q, K, h, i, j);
        };
        same = built && sameCells(*built, actual, headOf);
    }
    // Correct ALiBi from here on is the model's.
    if (d.correctParams) {
        d.correctParams->slopes.heads = model.heads;
        d.correctParams->slopes.scheme = SlopeScheme::Custom;
        d.correctParams->slopes.custom = scaled;
        d.correctParams->mode = model.mode;
        if (d.heads != model.heads) {
            d.correctParams.reset();
            d.correctBatch.reset();
        }
    }
    if (same) {
        std::erase_if(d.findings, [](const Finding& f) { return !f.informational; });
        for (DiagnosisRow& row : d.rows) {
            std::erase_if(row.findings, [&](const std::string& code) {
                return std::none_of(d.findings.begin(), d.findings.end(),
                                    [&](const Finding& f) { return f.code == code; });
            });
            row.matched = row.common = true;
        }
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
    if (d.heads == model.heads && d.match && d.usedKeys == 0) {
        if (auto what = slopeDifference(d.match->slopes, *exactSlopes, model, false)) differs.push_back(*what);
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
    notThisModel(d, model, std::move(differs));
}

}  // namespace

Result<Diagnosis> diagnose(const Tensor& tensor) {
    return diagnose(tensor, DiagnoseOptions{});
}

Result<Diagnosis> diagnose(const Tensor& tensor, const DiagnoseOptions& given) {
    const Shape& shape = tensor.shape();
    if (given.heads && (*given.heads < 1 || *given.heads > kMaxHeads))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--heads {}: give the model's head count, 1 to {}", *given.heads, kMaxHeads));
    int split = given.heads.value_or(0);
    // The named model's head count splits a (batch * heads, 1, K) tensor.
    if (given.model && split == 0 && shape.size() == 3 && shape[1] == 1 && given.model->heads > 0 &&
        shape[0] % given.model->heads == 0 && shape[0] > given.model->heads)
        split = given.model->heads;
    const DiagnoseOptions& options = given;
    // The frameworks' own shapes: (batch * heads, 1, K), and 4-D rows that are not (T, T).
    std::optional<Diagnosis> rows;
    if (const int heads = splitHeads(tensor, split); heads > 0)
        rows = diagnoseRows(tensor, shape[0] / heads, heads, 1, shape[2]);
    if (!rows && split > 0 && !(shape.size() == 3 && shape[1] == 1 && shape[0] % split == 0))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--heads {} splits a (batch * heads, 1, K) tensor, but the shape is {}: drop --heads, "
                                "or give the head count that divides the first axis",
                                split, shapeString(shape)));
    // One row (1, H, Q, K) is a batch only when it is left-padded (its first key masked in every
    // cell); otherwise it is a plain 1hqk bias.
    const auto leftPadded = [&] {
        const std::uint64_t cells = tensor.size() / static_cast<std::uint64_t>(shape[3]);
        for (std::uint64_t r = 0; r < cells; ++r)
            if (!maskLike(tensor.at(r * static_cast<std::uint64_t>(shape[3])), tensor.dtype())) return false;
        return shape[3] > 1;
    };
    if (!rows && shape.size() == 4 && shape[0] >= 1 && shape[2] != shape[3] && shape[1] >= 1 && shape[1] <= kMaxHeads &&
        shape[2] >= 1 && shape[2] <= kMaxLength && shape[3] >= 1 && shape[3] <= kMaxLength &&
        (shape[0] > 1 || leftPadded()))
        rows = diagnoseRows(tensor, shape[0], shape[1], shape[2], shape[3]);
    if (rows) {
        if (options.model) checkAgainstModel(tensor, *rows, *options.model);
        describeFindings(tensor, *rows);
        return std::move(*rows);
    }
    auto d = diagnoseSequence(tensor);
    if (!d) return d;
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

std::string readAsText(const Diagnosis& d) {
    if (d.slopeVector) return fmt::format("Read as a slope vector of {} heads.", d.heads);
    // A batch is read row by row, each row in the single-sequence layout; say the whole shape.
    const std::size_t batchRows = !d.rows.empty() ? d.rows.size() : d.batch ? d.batch->batchSize() : 0;
    if (batchRows > 0)
        return fmt::format("Read as layout bhqk: {} batch rows x {} heads x {} queries x {} keys.", batchRows, d.heads,
                           d.queries, d.keys);
    return fmt::format("Read as layout {}: {} heads x {} queries x {} keys.", layoutName(d.layout), d.heads, d.queries,
                       d.keys);
}

std::string matchText(const Diagnosis& d) {
    if (!d.match) return "No standard parameter set reproduces this tensor.";
    return fmt::format("Reproduced by: {} slopes, max_bias {}, {} mode, mask {}.", schemeName(d.match->scheme),
                       d.match->maxBias, modeName(d.match->mode), maskName(d.match->mask));
}

}  // namespace alibi
