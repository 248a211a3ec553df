// The diagnosis as a person reads it (text) and as a program reads it (JSON): the exact output
// of `alibi diagnose`, shared with the Python module's Diagnosis object.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>

#include <string>
#include <string_view>

namespace alibi {

// `file` names the tensor's origin (a path, or "<array>"); `shape` is the tensor's own shape.
// With the diagnosed `tensor`, the report also gives the error map against correct ALiBi
// (correctAlibiError: its shape, largest error and cells that differ), as the explorers paint it.
[[nodiscard]] std::string diagnosisText(const Diagnosis& diagnosis, std::string_view file, const Shape& shape,
                                        const Tensor* tensor = nullptr);
// A JSON document indented by two spaces, ending in a newline: file, shape, layout, heads,
// queries, keys, dtype, match, batch, rows, arith, max_abs_error, findings, finding_details,
// findings_detail, correct (the corrected parameters the explorers open), error_map,
// inferred_slopes, summary, first_mismatch.
[[nodiscard]] std::string diagnosisJson(const Diagnosis& diagnosis, std::string_view file, const Shape& shape,
                                        const Tensor* tensor = nullptr);

}  // namespace alibi
