// "Open the corrected parameters" of both explorers' Diagnose view: the explorer's session set to
// the correct ALiBi the diagnosis read off the tensor.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/io/session.hpp>

#include <optional>
#include <string>

namespace alibi {

// `current` with its bias set to diagnosis.correctParams and its batch to correctBatch (one
// sequence when there is none); content, colours and view are kept, and the selected head, query
// row and batch row are clamped into the new shape (for a batch of decode rows, the query row is
// the first of the tensor's rows, the last of the square batch). nullopt when the diagnosis read no parameters (a
// slope vector).
[[nodiscard]] std::optional<Session> correctedSession(const Session& current, const Diagnosis& diagnosis);

// Correct ALiBi in words, for the error map's caption: "press slopes (max_bias 8), causal mode,
// mask -1e9"; empty when there is none.
[[nodiscard]] std::string correctAlibiSummary(const Diagnosis& diagnosis);

}  // namespace alibi
