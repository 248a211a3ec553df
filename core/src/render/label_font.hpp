// A tiny 3x5 bitmap font for the labels on rendered figures (head numbers, colour-bar range;
// render/figure.hpp). Just digits and the few characters numbers and labels need; no font library.
#pragma once

#include <alibi/render/render.hpp>

#include <string_view>

namespace alibi::detail {

// Width in pixels of `text` at integer `scale` (each glyph is 3x5 plus one column of spacing).
[[nodiscard]] int textWidth(std::string_view text, int scale);
[[nodiscard]] inline int textHeight(int scale) { return 5 * scale; }

// Draws `text` with its top-left corner at (x, y), clipped to the image. Unknown characters
// are drawn as blanks.
void drawText(Image& image, int x, int y, std::string_view text, int scale, Rgba color);

// Fills a rectangle, clipped to the image (a backdrop that keeps labels legible on any colour).
void fillRect(Image& image, int x, int y, int width, int height, Rgba color);

}  // namespace alibi::detail
