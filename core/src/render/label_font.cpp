// Glyphs of label_font.hpp: each is five rows of three bits, top row first.
#include "label_font.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace alibi::detail {
namespace {

struct Glyph {
    char c;
    std::array<std::uint8_t, 5> rows;  // bit 2 = left column
};

constexpr std::array kGlyphs{
    Glyph{'0', {7, 5, 5, 5, 7}}, Glyph{'1', {2, 6, 2, 2, 7}}, Glyph{'2', {7, 1, 7, 4, 7}},
    Glyph{'3', {7, 1, 7, 1, 7}}, Glyph{'4', {5, 5, 7, 1, 1}}, Glyph{'5', {7, 4, 7, 1, 7}},
    Glyph{'6', {7, 4, 7, 5, 7}}, Glyph{'7', {7, 1, 1, 1, 1}}, Glyph{'8', {7, 5, 7, 5, 7}},
    Glyph{'9', {7, 5, 7, 1, 7}}, Glyph{'-', {0, 0, 7, 0, 0}}, Glyph{'+', {0, 2, 7, 2, 0}},
    Glyph{'.', {0, 0, 0, 0, 2}}, Glyph{'e', {0, 7, 7, 4, 7}}, Glyph{'h', {4, 4, 7, 5, 5}},
    Glyph{'i', {2, 0, 2, 2, 2}}, Glyph{'n', {0, 6, 5, 5, 5}}, Glyph{'f', {3, 4, 6, 4, 4}},
    Glyph{'=', {0, 7, 0, 7, 0}}, Glyph{':', {0, 2, 0, 2, 0}},
};

const Glyph* findGlyph(char c) {
    for (const Glyph& g : kGlyphs)
        if (g.c == c) return &g;
    return nullptr;
}

}  // namespace

int textWidth(std::string_view text, int scale) {
    return text.empty() ? 0 : static_cast<int>(text.size()) * 4 * scale - scale;
}

void fillRect(Image& image, int x, int y, int width, int height, Rgba color) {
    for (int yy = std::max(0, y); yy < std::min(image.height, y + height); ++yy)
        for (int xx = std::max(0, x); xx < std::min(image.width, x + width); ++xx) image.at(xx, yy) = color;
}

void drawText(Image& image, int x, int y, std::string_view text, int scale, Rgba color) {
    for (std::size_t k = 0; k < text.size(); ++k) {
        const Glyph* glyph = findGlyph(text[k]);
        if (!glyph) continue;
        const int gx = x + static_cast<int>(k) * 4 * scale;
        for (int row = 0; row < 5; ++row)
            for (int col = 0; col < 3; ++col)
                if (glyph->rows[static_cast<std::size_t>(row)] & (4 >> col))
                    fillRect(image, gx + col * scale, y + row * scale, scale, scale, color);
    }
}

}  // namespace alibi::detail
