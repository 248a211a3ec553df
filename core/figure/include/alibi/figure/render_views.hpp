// The names of every figure `alibi render --what` (and Python's render) draws, in one list, so
// the CLI's and Python's messages name the same views in the same order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace alibi {

// The heatmaps and curves of a session, the explorer views, and those of an attention-map file
// (overview, similarity, fit, row).
[[nodiscard]] const std::vector<std::string_view>& renderViewNames();
// The same joined with ", ", for messages.
[[nodiscard]] std::string renderViewList();

}  // namespace alibi
