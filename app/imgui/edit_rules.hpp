// What a committed edit does to the choices that depend on it. A dependent selection (query row,
// selected head, custom slope list, batch lengths and row) changes only when the edit made it invalid, and then to the
// nearest valid value, with a note for the status line; it is never reset to a default.
#pragma once

#include <alibi/io/session.hpp>

#include <string>
#include <vector>

namespace alibi::imgui {

// Clamps the dependents of `session` in place; returns what changed ("" when nothing did).
[[nodiscard]] std::string clampDependents(Session& session);

// Custom slopes set H, as the CLI's --slopes does: the list becomes the custom scheme and H its length.
[[nodiscard]] Session withCustomSlopes(Session session, std::vector<double> slopes);

// "0.5, 0.25 0.125": numbers separated by commas, spaces, semicolons or new lines. Returns the
// message for the field (naming the first token that is not a number), or "" on success; range
// checks are the core's (validateSession).
[[nodiscard]] std::string parseSlopeList(const std::string& text, std::vector<double>& out);

}  // namespace alibi::imgui
