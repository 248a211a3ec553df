#pragma once
// The Diagnose view's words, for both explorers: the heading, the summary, what the tensor was
// read as, the match, each finding with its effect after softmax, the slopes read off the
// tensor, the largest error and the first mismatch. The Qt explorer set them as HTML and the
// ImGui explorer as text, each from its own copy (ImGui left out the first mismatch and wrote
// the shape its own way); both now show this.

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/dtype.hpp>
#include <alibi/base/tensor.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

struct DiagnosisFindingText {
    std::string code;  // "sign-flipped"
    // "changes attention, up to 0.423 in one probability" (shown as an error), or "harmless: no
    // change after softmax" / "informational, no change after softmax" (never shown as one).
    std::string effect;
    bool changesAttention = true;
    std::string message;  // the explorers' wording (their controls, no CLI flag)
    std::string fix;      // "Fix: ..." line, empty when the code has none
};

struct DiagnosisReportText {
    std::string heading;  // "bias.npy · shape (8, 16, 16) · f32"
    std::string summary;
    std::string readAs;
    std::string match;  // matchText: shown in green when `matches`, else red
    bool matches = false;
    std::vector<DiagnosisFindingText> findings;
    std::string noFindings;          // "No known bug found." when `findings` is empty
    std::vector<std::string> slopes;  // "h0: 1/2", one per head read off the tensor
    std::string maxError;            // "Max |error| against the best candidate: 15"
    std::string firstMismatch;       // "First mismatch at (0, 3, 1): actual ..., expected ...", or ""
    // "Open the corrected parameters" is offered when something is wrong (a finding, or nothing
    // reproduces the tensor) and correct parameters are known; its tooltip names them.
    bool offerCorrected = false;
    std::string correctedSummary;
};

[[nodiscard]] DiagnosisReportText diagnosisReportText(const Diagnosis& diagnosis, std::string_view source,
                                                      const Shape& shape, DType dtype);

}  // namespace alibi::explore
