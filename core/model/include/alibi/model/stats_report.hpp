// Attention statistics as a text table, JSON and CSV: the exact output of `alibi stats`,
// shared with the Python module's Stats object.
#pragma once

#include <alibi/model/params.hpp>
#include <alibi/model/stats.hpp>

#include <string>

namespace alibi {

// `params` are the parameters the statistics were computed from (for the header and fields).
[[nodiscard]] std::string statsText(const StatsResult& stats, const AttentionParams& params);
// Indented by two spaces, ending in a newline: query, query_position, rows_averaged,
// num_heads, queries, keys, mode, scheme, content, heads[{head, slope, half_life, row, mean}].
[[nodiscard]] std::string statsJson(const StatsResult& stats, const AttentionParams& params);
[[nodiscard]] std::string statsCsv(const StatsResult& stats);

}  // namespace alibi
