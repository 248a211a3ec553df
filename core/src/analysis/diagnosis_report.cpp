// The diagnosis report of diagnosis_report.hpp, as text and as JSON.
#include <alibi/analysis/diagnosis_report.hpp>

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
        m["mode"] = modeName(d.match->mode);
        m["mask"] = maskName(d.match->mask);
        m["slopes"] = d.match->slopes;
        doc["match"] = std::move(m);
    } else {
        doc["match"] = nullptr;
    }
    doc["max_abs_error"] = d.maxAbsError;
    auto& codes = doc["findings"] = nlohmann::ordered_json::array();
    auto& details = doc["finding_details"] = nlohmann::ordered_json::array();
    for (const Finding& f : d.findings) {
        codes.push_back(f.code);
        details.push_back({{"code", f.code}, {"message", f.message}});
    }
    doc["inferred_slopes"] = d.inferredSlopes;
    doc["summary"] = d.summary;
    if (!d.match && d.firstMismatchIndex)
        doc["first_mismatch"] = {{"index", *d.firstMismatchIndex},
                                 {"actual", d.firstMismatchActual},
                                 {"expected", d.firstMismatchExpected}};
    else
        doc["first_mismatch"] = nullptr;
    return doc.dump(2) + "\n";
}

std::string diagnosisText(const Diagnosis& d, std::string_view file, const Shape& shape) {
    std::string out = fmt::format("file:     {}\n", file);
    out += fmt::format("tensor:   {} {}, read as layout {}: H={} Q={} K={}\n", shapeString(shape), dtypeName(d.dtype),
                       layoutName(d.layout), d.heads, d.queries, d.keys);
    if (d.match)
        out += fmt::format("match:    scheme {}, max_bias {}, mode {}, mask {} (max abs error {})\n",
                           schemeName(d.match->scheme), d.match->maxBias, modeName(d.match->mode),
                           maskName(d.match->mask), d.maxAbsError);
    else
        out += fmt::format("match:    none (best candidate's max abs error {})\n", d.maxAbsError);
    if (!d.match && d.firstMismatchIndex) {
        std::string index;
        for (const auto i : *d.firstMismatchIndex) index += fmt::format("{}{}", index.empty() ? "" : ", ", i);
        out += fmt::format("first mismatch at [{}]: actual {}, expected {}\n", index, d.firstMismatchActual,
                           d.firstMismatchExpected);
    }
    if (d.findings.empty()) out += "findings: none\n";
    for (const Finding& f : d.findings) out += fmt::format("finding:  {}: {}\n", f.code, f.message);
    if (!d.summary.empty()) out += fmt::format("\n{}\n", d.summary);
    return out;
}

}  // namespace alibi
