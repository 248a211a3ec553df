// The pixel ratio of a figure, checked once for every front end: the CLI's --pixel-ratio (render,
// and diagnose --figure) and Python's pixel_ratio=. Messages name the CLI's flags; wordMessage
// (base/field_names.hpp) puts them in another front end's words.
#pragma once

#include <alibi/base/error.hpp>

#include <cstdint>
#include <optional>

namespace alibi {

// PNG figures are drawn at 1, 2 or 4 times the pixels of their layout.
[[nodiscard]] Result<int> checkPixelRatio(std::int64_t ratio);

// A pixel ratio (when given) for a figure written as SVG (`svg`) or PNG: its value, and SVG takes
// none (it is vector and sharp at any size).
[[nodiscard]] Result<void> checkFigureOutput(std::optional<std::int64_t> pixelRatio, bool svg);

}  // namespace alibi
