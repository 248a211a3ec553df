// Text on rendered figures (titles, axes, tick labels, head labels, captions; render/figure.hpp):
// DejaVu Sans through FreeType, anti-aliased, blended over the image. The font files come from
// Debian's fonts-dejavu-core; ALIBI_FONT_DIR names another folder holding DejaVuSans.ttf and
// DejaVuSans-Bold.ttf. Every call is serialised (FreeType faces are not thread-safe).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/render/render.hpp>

#include <string_view>

namespace alibi::detail {

enum class FontWeight { Regular, Bold };

// Loads the font files once (again if ALIBI_FONT_DIR changed); an error names the missing file
// and the package to install. The other functions need a successful call first (they draw
// nothing and measure zero otherwise).
[[nodiscard]] Result<void> loadLabelFont();

// Width of `text` (UTF-8) in pixels at `pixelSize` pixels per em.
[[nodiscard]] int textWidth(std::string_view text, double pixelSize, FontWeight weight = FontWeight::Regular);
// Height of one line (ascender to descender) at `pixelSize`.
[[nodiscard]] int lineHeight(double pixelSize);
// Distance from the top of the line box to the baseline at `pixelSize` (where SVG places text).
[[nodiscard]] int lineAscent(double pixelSize);

// Draws `text` with the top of its line box at (x, top), clipped to the image. `vertical`
// turns it a quarter clockwise (reading downwards; (x, top) is then the box's top-left corner).
void drawText(Image& image, int x, int top, std::string_view text, double pixelSize, Rgba color,
              FontWeight weight = FontWeight::Regular, bool vertical = false);

// `text` cut to at most `width` pixels, ending in "…" when it had to be cut.
[[nodiscard]] std::string elideText(std::string_view text, double pixelSize, int width,
                                    FontWeight weight = FontWeight::Regular);

// Fills a rectangle, clipped to the image; a colour with alpha < 255 is blended over it.
void fillRect(Image& image, int x, int y, int width, int height, Rgba color);

}  // namespace alibi::detail
