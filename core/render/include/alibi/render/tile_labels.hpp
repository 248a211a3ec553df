// The labels above the tiles of a grid of heatmaps ("h3  m = 1/16"): which form each tile shows.
// One rule for the figures and both explorers, which measure text their own way.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace alibi {

// The forms of one tile's label, most telling first: "h3  m = 1/16  [0, 0.5]" (a tile's own
// colour range), "h3 1/16  [0, 0.5]", "h3  [0, 0.5]", "h3  m = 1/16", "h3 1/16", "h3", "3". `name` replaces "h3" where
// a view names its tiles otherwise ("b1 h3" in a batch, "L0 h3" in an overview); "h3" then follows it.
// A fitted slope comes next where it fits ("h3  m* = 0.249  m = 1/2", "h3 m* 0.249 m 1/2"), after
// the forms with a range and before those without it.
struct TileLabelParts {
    int head = 0;
    std::string name;                  // empty: "h<head>"
    std::optional<double> slope;       // the tile's configured slope
    std::optional<std::string> range;  // "[0, 0.5]": the tile's own colour range
    std::optional<double> fitted;      // the slope fitted to the tile's attention (m*)
};
[[nodiscard]] std::vector<std::string> tileLabelForms(const TileLabelParts& parts);

// One form for every tile (issue 27: a grid read "h0 m = 1/2" beside a bare "h3"): the first
// level whose form fits on every tile, where a tile with fewer forms keeps its last. A tile
// where not even its last form fits shows nothing ("") and is left out of that choice.
// `fits(tile, text)` is the front end's measure against the tile's room.
[[nodiscard]] std::vector<std::string> chooseTileLabels(
    const std::vector<std::vector<std::string>>& forms,
    const std::function<bool(std::size_t tile, const std::string& text)>& fits);

}  // namespace alibi
