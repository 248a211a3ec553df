#include "alibi/explore/diagnosis_report.hpp"

#include <alibi/analysis/corrected_session.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>

namespace alibi::explore {

DiagnosisReportText diagnosisReportText(const Diagnosis& d, std::string_view source, const Shape& shape, DType dtype) {
    DiagnosisReportText r;
    r.heading = fmt::format("{} · shape {} · {}", source, shapeString(shape), dtypeName(dtype));
    r.summary = d.explorerSummaryText();
    r.readAs = readAsText(d);
    r.match = matchText(d);
    r.matches = d.match.has_value();
    for (const Finding& f : d.findings) {
        DiagnosisFindingText t;
        t.code = f.code;
        t.changesAttention = f.changesAttention;
        // A harmless finding is never shown as an error: its effect after softmax says so.
        t.effect = f.changesAttention
                       ? fmt::format("changes attention, up to {:.3g} in one probability", f.maxProbabilityChange)
                       : (f.informational ? "informational, no change after softmax"
                                          : "harmless: no change after softmax");
        t.message = f.explorerMessage();
        if (!f.fix.empty()) t.fix = "Fix: " + f.fix;
        r.findings.push_back(std::move(t));
    }
    if (r.findings.empty()) r.noFindings = "No known bug found.";
    for (std::size_t h = 0; h < d.inferredSlopes.size(); ++h)
        r.slopes.push_back(fmt::format("h{}: {}", h, formatSlope(d.inferredSlopes[h])));
    r.maxError = "Max |error| against the best candidate: " + formatValue(d.maxAbsError);
    if (d.firstMismatchIndex) {
        std::string index;
        for (std::size_t n = 0; n < d.firstMismatchIndex->size(); ++n)
            index += (n ? ", " : "") + std::to_string((*d.firstMismatchIndex)[n]);
        r.firstMismatch = fmt::format("First mismatch at ({}): actual {}, expected {}.", index,
                                      formatValue(d.firstMismatchActual), formatValue(d.firstMismatchExpected));
    }
    r.offerCorrected = d.correctParams.has_value() && (!d.findings.empty() || !d.match);
    if (r.offerCorrected) r.correctedSummary = correctAlibiSummary(d);
    return r;
}

}  // namespace alibi::explore
