// The diagnosis report of diagnosis_report.hpp, as text and as JSON.
#include <alibi/analysis/diagnosis_report.hpp>

#include <alibi/model/batch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace alibi {

std::string diagnosisJson(const Diagnosis& d, std::string_view file, const Shape& shape) {
    nlohmann::ordered_json doc;
    doc["file"] = std::string(file);
    doc["shape"] = shape;
    doc["layout"] = layoutName(d.layout);
    doc["heads"] = d.heads;
    doc["queries"] = d.queries;
    doc["keys"] = d.keys;
    doc["dtype"] = dtypeName(d.dtype);
    if (d.match) {
        nlohmann::ordered_json m;
        m["scheme"] = schemeName(d.match->scheme);
        m["max_bias"] = d.match->maxBias;
        if (d.slopeVector)
            m["mode"] = nullptr;
        else
            m["mode"] = modeName(d.match->mode);
        // null when no entry is masked: the file says nothing about the mask value.
        if (d.match->masked)
            m["mask"] = maskName(d.match->mask);
        else
            m["mask"] = nullptr;
        m["slopes"] = d.match->slopes;
        doc["match"] = std::move(m);
    } else {
        doc["match"] = nullptr;
    }
    doc["slope_vector"] = d.slopeVector;
    if (d.batch) {
        doc["batch"] = {{"lengths", d.batch->lengths},     {"padding", paddingName(d.batch->padding)},
                        {"documents", d.batch->documents}, {"window", d.batch->window},
                        {"prefix", d.batch->prefix},       {"positions", positionRuleName(d.batch->positions)}};
    } else {
        doc["batch"] = nullptr;
    }
    if (d.arith)
        doc["arith"] = arithName(*d.arith);
    else
        doc["arith"] = nullptr;
    auto& distances = doc["arith_distances"] = nlohmann::ordered_json::object();
    for (const ArithDistance& a : d.arithDistances)
        distances[std::string(arithName(a.arith))] = {{"identical", a.identical},
                                                      {"max_ulp", a.maxUlp},
                                                      {"cells_differing", a.cellsDiffering},
                                                      {"cells_compared", a.cellsCompared},
                                                      {"zero_sign_cells", a.zeroSignCells}};
    doc["max_abs_error"] = d.maxAbsError;
    auto& codes = doc["findings"] = nlohmann::ordered_json::array();
    auto& details = doc["finding_details"] = nlohmann::ordered_json::array();
    auto& effects = doc["findings_detail"] = nlohmann::ordered_json::array();
    for (const Finding& f : d.findings) {
        codes.push_back(f.code);
        details.push_back({{"code", f.code}, {"message", f.message}});
        effects.push_back({{"code", f.code},
                           {"changes_attention", f.changesAttention},
                           {"max_probability_change", f.maxProbabilityChange},
                           {"informational", f.informational},
                           {"explanation", f.explanation},
                           {"fix", f.fix},
                           {"evidence", f.message}});
    }
    doc["max_probability_change"] = d.maxProbabilityChange;
    doc["used_keys"] = d.usedKeys > 0 ? nlohmann::ordered_json(d.usedKeys) : nlohmann::ordered_json(nullptr);
    doc["inferred_slopes"] = d.inferredSlopes;
    doc["summary"] = d.summary;
    if (!d.match && d.firstMismatchIndex)
        doc["first_mismatch"] = {
            {"index", *d.firstMismatchIndex}, {"actual", d.firstMismatchActual}, {"expected", d.firstMismatchExpected}};
    else
        doc["first_mismatch"] = nullptr;
    return doc.dump(2) + "\n";
}

std::string diagnosisText(const Diagnosis& d, std::string_view file, const Shape& shape) {
    std::string out = fmt::format("file:     {}\n", file);
    if (d.slopeVector)
        out += fmt::format("tensor:   {} {}, read as a slope vector: H={}\n", shapeString(shape), dtypeName(d.dtype),
                           d.heads);
    else if (d.batch)
        out += fmt::format("tensor:   {} {}, read as a batch (layout bhqk): B={} H={} T={}\n", shapeString(shape),
                           dtypeName(d.dtype), shape[0], d.heads, d.queries);
    else
        out += fmt::format("tensor:   {} {}, read as layout {}: H={} Q={} K={}\n", shapeString(shape),
                           dtypeName(d.dtype), layoutName(d.layout), d.heads, d.queries, d.keys);
    if (!d.match)
        out += fmt::format("match:    none (best candidate's max abs error {})\n", d.maxAbsError);
    else if (d.slopeVector)
        out += fmt::format("match:    slope vector, scheme {}, max_bias {}\n", schemeName(d.match->scheme),
                           d.match->maxBias);
    else
        out += fmt::format("match:    scheme {}, max_bias {}, mode {}, mask {} (max abs error {})\n",
                           schemeName(d.match->scheme), d.match->maxBias, modeName(d.match->mode),
                           d.match->masked ? maskName(d.match->mask) : std::string("none (no entry is masked)"),
                           d.maxAbsError);
    if (d.match) {
        std::string slopes;
        for (const double m : d.match->slopes) slopes += fmt::format("{}{:.9g}", slopes.empty() ? "" : " ", m);
        out += fmt::format("slopes:   {}\n", slopes);
    }
    for (const ArithDistance& a : d.arithDistances)
        out += fmt::format(
            "arith:    {:<12} {}\n", arithName(a.arith),
            a.identical ? fmt::format("bit-identical ({} cells)", a.cellsCompared)
            : a.cellsDiffering == 0
                ? fmt::format("the same values; only the sign of zero differs in {} of {} cells "
                              "(-0.0 against +0.0)",
                              a.zeroSignCells, a.cellsCompared)
                : fmt::format("{} of {} cells differ, up to {} ulp{}", a.cellsDiffering, a.cellsCompared, a.maxUlp,
                              a.zeroSignCells ? fmt::format(" (and {} only in the sign of zero)", a.zeroSignCells)
                                              : std::string()));
    if (!d.match && d.firstMismatchIndex) {
        std::string index;
        for (const auto i : *d.firstMismatchIndex) index += fmt::format("{}{}", index.empty() ? "" : ", ", i);
        out += fmt::format("first mismatch at [{}]: actual {}, expected {}\n", index, d.firstMismatchActual,
                           d.firstMismatchExpected);
    }
    if (d.findings.empty()) out += "findings: none\n";
    for (const Finding& f : d.findings) {
        out += fmt::format("finding:  {} [{}]: {}\n", f.code,
                           f.changesAttention ? fmt::format("changes attention, up to {:.3g} in one probability",
                                                            f.maxProbabilityChange)
                                              : std::string(f.informational ? "informational, harmless" : "harmless"),
                           f.message);
        if (!f.fix.empty()) out += fmt::format("  fix:    {}\n", f.fix);
    }
    if (!d.summary.empty()) out += fmt::format("\n{}\n", d.summary);
    return out;
}

}  // namespace alibi
