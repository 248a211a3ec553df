// The diagnosis report of diagnosis_report.hpp, as text and as JSON.
#include <alibi/analysis/diagnosis_report.hpp>

#include <alibi/analysis/corrected_session.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace alibi {
namespace {

// |tensor - correct ALiBi| per cell (correctAlibiError): its shape, largest finite error (+inf
// when a finite value faces an infinite one) and the cells that differ.
struct ErrorMapSummary {
    Shape shape;
    double maxError = 0;
    std::uint64_t cellsDiffering = 0;
};
std::optional<ErrorMapSummary> errorMapSummary(const Diagnosis& d, const Tensor* tensor) {
    if (!tensor || !d.correctParams) return std::nullopt;
    auto error = correctAlibiError(*tensor, d);
    if (!error) return std::nullopt;
    ErrorMapSummary s{error->shape(), 0, 0};
    for (std::uint64_t n = 0; n < error->size(); ++n) {
        const double e = error->at(n);
        s.maxError = std::max(s.maxError, e);
        if (e != 0) ++s.cellsDiffering;
    }
    return s;
}

}  // namespace

std::string diagnosisJson(const Diagnosis& d, std::string_view file, const Shape& shape, const Tensor* tensor) {
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
        // Padding keys that hold 0 (HF BLOOM's build_alibi_tensor) instead of the mask.
        doc["batch"]["padding_zeros"] = d.paddingZeros;
    } else {
        doc["batch"] = nullptr;
    }
    // A batch of decode rows: every row's own diagnosis; common is false for the rows that differ
    // from the batch's common match.
    if (!d.rows.empty()) {
        auto rows = nlohmann::ordered_json::array();
        for (const DiagnosisRow& r : d.rows)
            rows.push_back({{"row", r.row},
                            {"keys", r.keys},
                            {"matched", r.matched},
                            {"common", r.common},
                            {"findings", r.findings},
                            {"summary", r.summary}});
        doc["rows"] = std::move(rows);
    } else {
        doc["rows"] = nullptr;
    }
    if (d.arith)
        doc["arith"] = arithName(*d.arith);
    else
        doc["arith"] = nullptr;
    // Built apart and moved in: a reference into the ordered document dangles once a key is added.
    auto distances = nlohmann::ordered_json::object();
    for (const ArithDistance& a : d.arithDistances)
        distances[std::string(arithName(a.arith))] = {{"identical", a.identical},
                                                      {"max_ulp", a.maxUlp},
                                                      {"cells_differing", a.cellsDiffering},
                                                      {"cells_compared", a.cellsCompared},
                                                      {"zero_sign_cells", a.zeroSignCells}};
    doc["arith_distances"] = std::move(distances);
    doc["max_abs_error"] = d.maxAbsError;
    auto codes = nlohmann::ordered_json::array();
    auto details = nlohmann::ordered_json::array();
    auto effects = nlohmann::ordered_json::array();
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
    doc["findings"] = std::move(codes);
    doc["finding_details"] = std::move(details);
    doc["findings_detail"] = std::move(effects);
    // The corrected parameters ("Open the corrected parameters" in the explorers).
    if (d.correctParams) {
        const BiasParams& p = *d.correctParams;
        nlohmann::ordered_json c;
        c["summary"] = correctAlibiSummary(d);
        c["heads"] = p.slopes.heads;
        c["scheme"] = schemeName(p.slopes.scheme);
        c["max_bias"] = p.slopes.maxBias;
        if (auto slopes = computeSlopes(p.slopes))
            c["slopes"] = *slopes;
        else
            c["slopes"] = nullptr;
        c["mode"] = modeName(p.mode);
        c["mask"] = maskName(p.mask);
        c["queries"] = p.queries;
        c["keys"] = p.keys > 0 ? p.keys : p.queries;
        c["dtype"] = dtypeName(p.dtype);
        if (d.correctBatch)
            c["batch"] = {
                {"lengths", d.correctBatch->lengths},     {"padding", paddingName(d.correctBatch->padding)},
                {"documents", d.correctBatch->documents}, {"window", d.correctBatch->window},
                {"prefix", d.correctBatch->prefix},       {"positions", positionRuleName(d.correctBatch->positions)}};
        else
            c["batch"] = nullptr;
        // The tensor's rows are the last `queries` query rows of this (decode rows of a batch).
        c["tensor_rows_from"] = p.queries - (d.queries > 0 && d.queries < p.queries ? d.queries : p.queries);
        doc["correct"] = std::move(c);
    } else {
        doc["correct"] = nullptr;
    }
    if (const auto map = errorMapSummary(d, tensor))
        doc["error_map"] = {{"shape", map->shape},
                            {"max_abs_error", std::isinf(map->maxError) ? nlohmann::ordered_json("inf")
                                                                        : nlohmann::ordered_json(map->maxError)},
                            {"cells_differing", map->cellsDiffering}};
    else
        doc["error_map"] = nullptr;
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

std::string diagnosisText(const Diagnosis& d, std::string_view file, const Shape& shape, const Tensor* tensor) {
    std::string out = fmt::format("file:     {}\n", file);
    if (d.slopeVector)
        out += fmt::format("tensor:   {} {}, read as a slope vector: H={}\n", shapeString(shape), dtypeName(d.dtype),
                           d.heads);
    else if (d.batch && !d.rows.empty())
        out += fmt::format("tensor:   {} {}, read as a batch of rows (layout bhqk): B={} H={} Q={} K={}\n",
                           shapeString(shape), dtypeName(d.dtype), d.rows.size(), d.heads, d.queries, d.keys);
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
    for (const DiagnosisRow& r : d.rows) {
        std::string codes;
        for (const auto& c : r.findings) codes += (codes.empty() ? "" : ", ") + c;
        out += fmt::format("row {:<4}  {} keys, {}{}{}\n", r.row, r.keys,
                           !r.matched ? "no match"
                           : r.common ? "the common match"
                                      : "differs",
                           codes.empty() ? std::string() : fmt::format(", findings {}", codes),
                           r.common ? std::string() : fmt::format(": {}", r.summary));
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
    if (d.correctParams) {
        const BiasParams& p = *d.correctParams;
        out +=
            fmt::format("correct:  {}, {} heads, {} x {}{}\n", correctAlibiSummary(d), p.slopes.heads, p.queries,
                        p.keys > 0 ? p.keys : p.queries,
                        d.correctBatch ? fmt::format(", {} padding, lengths {}", paddingName(d.correctBatch->padding),
                                                     lengthListText(d.correctBatch->lengths))
                                       : std::string());
    }
    if (const auto map = errorMapSummary(d, tensor))
        out += fmt::format("error:    |tensor - correct ALiBi| per cell, {}: max {}, {} cells differ\n",
                           shapeString(map->shape), map->maxError, map->cellsDiffering);
    if (!d.summary.empty()) out += fmt::format("\n{}\n", d.summary);
    return out;
}

}  // namespace alibi
