// The examples with a known bug that the explorers' Diagnose views offer: each a bias tensor
// built with one bug of REFERENCES.md in it (default parameters, H = 8, T = 16, unless the bug
// needs other heads), so a person can see what the diagnosis says about it. One list, so both
// explorers offer the same examples under the same names.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>

#include <span>
#include <string_view>

namespace alibi {

struct BuggyExample {
    std::string_view code;         // the finding's code (diagnose.hpp), also the example's name
    std::string_view description;  // what was built, in one line
};

// The examples, in the order the explorers list them.
[[nodiscard]] std::span<const BuggyExample> buggyExamples();

// The bias tensor of the example `code`; an error naming the known codes for any other.
[[nodiscard]] Result<Tensor> buildBuggyExample(std::string_view code);

}  // namespace alibi
