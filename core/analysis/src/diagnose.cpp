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
    p.slopes.maxBias = c.slopes.maxBias;
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

}  // namespace

Result<Diagnosis> diagnose(const Tensor& tensor) {
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
    // Candidates come from the most ordinary to the most unusual; the first that reproduces
    // every cell wins, so a correct tensor is never reported as a bug.
    for (const Reading& reading : reads) {
        if (match) break;
        const View view(tensor, reading);
        std::vector<Form> forms;
        std::vector<std::int64_t> offsets{reading.keys - reading.queries};
        if (reading.queries < reading.keys) offsets.push_back(0);
        for (const std::int64_t offset : offsets)
            for (const double sign : {1.0, -1.0})
                for (const BiasMode mode :
                     {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
                    forms.push_back({mode, sign, offset, offset != reading.keys - reading.queries});
        for (const Form& form : forms) {
            if (match) break;
            const SlopeRead slopes = readSlopes(view, form);
            const MaskRead mask = readMask(view, form);
            for (auto& sc : slopeCandidates(slopes, static_cast<int>(reading.heads), dtype)) {
                Candidate c;
                c.reading = reading;
                c.form = form;
                c.slopes = std::move(sc);
                c.mask = mask.mask;
                c.maskSeen = mask.seen;
                c.inferred = slopes.estimate;
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
                if (!best || c.sampleMismatches < best->sampleMismatches) best = std::move(c);
            }
        }
    }

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
        d.match = DiagnosisMatch{chosen.slopes.scheme, chosen.slopes.maxBias, chosen.form.mode, chosen.mask,
                                 chosen.maskSeen, chosen.slopes.slopes};
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
            rebuilt.slopes.custom = chosen.slopes.scheme == SlopeScheme::Custom ? chosen.slopes.slopes : std::vector<double>{};
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

}  // namespace alibi
