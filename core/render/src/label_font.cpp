// FreeType text of label_font.hpp: glyphs rasterised anti-aliased into a coverage mask, which is
// blended over the image (turned a quarter for vertical axis labels).
#include <alibi/render/label_font.hpp>

#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace alibi::detail {
namespace {

constexpr const char* kDefaultFontDir = "/usr/share/fonts/truetype/dejavu";

struct FontState {
    FT_Library library = nullptr;
    FT_Face faces[2] = {nullptr, nullptr};  // FontWeight::Regular, FontWeight::Bold
    std::string dir;                        // the folder the faces came from ("": none loaded)
};

std::mutex& fontMutex() {
    static std::mutex m;
    return m;
}

FontState& fontState() {
    static FontState s;
    return s;
}

std::string fontDir() {
    const char* dir = std::getenv("ALIBI_FONT_DIR");
    return dir && *dir ? dir : kDefaultFontDir;
}

// Next code point of UTF-8 `text` at `pos` (advanced); malformed bytes read as U+FFFD.
char32_t nextCodePoint(std::string_view text, std::size_t& pos) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char c = byte(pos++);
    if (c < 0x80) return c;
    const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
    if (extra < 0 || pos + static_cast<std::size_t>(extra) > text.size()) return 0xFFFD;
    char32_t cp = c & (0x3F >> extra);
    for (int k = 0; k < extra; ++k) {
        if ((byte(pos) & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (byte(pos++) & 0x3F);
    }
    return cp;
}

FT_Face face(FontWeight weight) {
    return fontState().faces[weight == FontWeight::Bold ? 1 : 0];
}

void setSize(FT_Face f, double pixelSize) {
    FT_Set_Char_Size(f, 0, static_cast<FT_F26Dot6>(std::lround(pixelSize * 64)), 72, 72);
}

// Anti-aliased coverage of one line of text: `width` x `height`, the baseline `ascent` rows down.
struct Mask {
    int width = 0, height = 0, ascent = 0;
    std::vector<std::uint8_t> coverage;
};

int lineHeightLocked(double pixelSize) {
    FT_Face f = face(FontWeight::Regular);
    if (!f) return 0;
    setSize(f, pixelSize);
    return static_cast<int>((f->size->metrics.ascender - f->size->metrics.descender + 63) / 64);
}

// Pen advance of `text` in 26.6 units (with kerning), and optionally its glyphs drawn into `mask`.
long layoutLine(std::string_view text, double pixelSize, FontWeight weight, Mask* mask) {
    FT_Face f = face(weight);
    if (!f) return 0;
    setSize(f, pixelSize);
    long pen = 0;
    FT_UInt previous = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const FT_UInt glyph = FT_Get_Char_Index(f, nextCodePoint(text, pos));
        if (previous && glyph && FT_HAS_KERNING(f)) {
            FT_Vector kern;
            if (FT_Get_Kerning(f, previous, glyph, FT_KERNING_DEFAULT, &kern) == 0) pen += kern.x;
        }
        previous = glyph;
        if (FT_Load_Glyph(f, glyph, mask ? FT_LOAD_RENDER : FT_LOAD_DEFAULT) != 0) continue;
        if (mask) {
            const FT_Bitmap& bm = f->glyph->bitmap;
            const int left = static_cast<int>((pen + 32) / 64) + f->glyph->bitmap_left;
            const int top = mask->ascent - f->glyph->bitmap_top;
            for (unsigned row = 0; row < bm.rows; ++row)
                for (unsigned col = 0; col < bm.width; ++col) {
                    const int x = left + static_cast<int>(col), y = top + static_cast<int>(row);
                    if (x < 0 || y < 0 || x >= mask->width || y >= mask->height) continue;
                    std::uint8_t& c = mask->coverage[static_cast<std::size_t>(y) * mask->width + x];
                    c = std::max(c, bm.buffer[static_cast<std::ptrdiff_t>(row) * bm.pitch + col]);
                }
        }
        pen += f->glyph->advance.x;
    }
    return pen;
}

int textWidthLocked(std::string_view text, double pixelSize, FontWeight weight) {
    return static_cast<int>((layoutLine(text, pixelSize, weight, nullptr) + 63) / 64);
}

void blend(Rgba& dst, Rgba color, unsigned coverage) {
    const unsigned a = coverage * color.a / 255;
    const auto mix = [a](std::uint8_t under, std::uint8_t over) {
        return static_cast<std::uint8_t>((over * a + under * (255 - a) + 127) / 255);
    };
    dst = Rgba{mix(dst.r, color.r), mix(dst.g, color.g), mix(dst.b, color.b), dst.a};
}

}  // namespace

Result<void> loadLabelFont() {
    std::lock_guard lock(fontMutex());
    FontState& s = fontState();
    const std::string dir = fontDir();
    if (s.dir == dir) return {};
    if (!s.library && FT_Init_FreeType(&s.library) != 0)
        return fail(ErrorCode::Internal, "cannot start FreeType to draw the figure's labels");
    for (FT_Face& f : s.faces)
        if (f) FT_Done_Face(std::exchange(f, nullptr));
    s.dir.clear();
    const char* names[2] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"};
    for (int n = 0; n < 2; ++n) {
        const std::string path = dir + "/" + names[n];
        if (FT_New_Face(s.library, path.c_str(), 0, &s.faces[n]) != 0) {
            s.faces[n] = nullptr;
            for (FT_Face& f : s.faces)
                if (f) FT_Done_Face(std::exchange(f, nullptr));
            return fail(ErrorCode::Io,
                        "cannot open the label font " + path +
                            ": install it with `apt-get install fonts-dejavu-core` (or set ALIBI_FONT_DIR to a "
                            "folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf)");
        }
    }
    s.dir = dir;
    return {};
}

int textWidth(std::string_view text, double pixelSize, FontWeight weight) {
    std::lock_guard lock(fontMutex());
    return textWidthLocked(text, pixelSize, weight);
}

int lineHeight(double pixelSize) {
    std::lock_guard lock(fontMutex());
    return lineHeightLocked(pixelSize);
}

int lineAscent(double pixelSize) {
    std::lock_guard lock(fontMutex());
    FT_Face f = face(FontWeight::Regular);
    if (!f) return 0;
    setSize(f, pixelSize);
    return static_cast<int>((f->size->metrics.ascender + 63) / 64);
}

void drawText(Image& image, int x, int top, std::string_view text, double pixelSize, Rgba color, FontWeight weight,
              bool vertical) {
    std::lock_guard lock(fontMutex());
    FT_Face f = face(weight);
    if (!f || text.empty()) return;
    Mask mask;
    mask.height = lineHeightLocked(pixelSize);
    setSize(f, pixelSize);
    mask.ascent = static_cast<int>((f->size->metrics.ascender + 63) / 64);
    mask.width = textWidthLocked(text, pixelSize, weight) + 2;  // overhang of the last glyph
    mask.coverage.assign(static_cast<std::size_t>(mask.width) * mask.height, 0);
    layoutLine(text, pixelSize, weight, &mask);
    for (int my = 0; my < mask.height; ++my)
        for (int mx = 0; mx < mask.width; ++mx) {
            const std::uint8_t c = mask.coverage[static_cast<std::size_t>(my) * mask.width + mx];
            if (c == 0) continue;
            // A quarter clockwise: the line's top edge becomes the right edge.
            const int px = vertical ? x + (mask.height - 1 - my) : x + mx;
            const int py = vertical ? top + mx : top + my;
            if (px < 0 || py < 0 || px >= image.width || py >= image.height) continue;
            blend(image.at(px, py), color, c);
        }
}

std::string elideText(std::string_view text, double pixelSize, int width, FontWeight weight) {
    if (textWidth(text, pixelSize, weight) <= width) return std::string(text);
    std::string cut(text);
    while (!cut.empty()) {
        // Drop whole code points (continuation bytes with their lead byte).
        while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
        if (!cut.empty()) cut.pop_back();
        while (!cut.empty() && cut.back() == ' ') cut.pop_back();
        if (textWidth(cut + "…", pixelSize, weight) <= width) return cut + "…";
    }
    return {};
}

void fillRect(Image& image, int x, int y, int width, int height, Rgba color) {
    const int x0 = std::max(x, 0), y0 = std::max(y, 0);
    const int x1 = std::min(x + width, image.width), y1 = std::min(y + height, image.height);
    for (int yy = y0; yy < y1; ++yy)
        for (int xx = x0; xx < x1; ++xx) {
            if (color.a == 255)
                image.at(xx, yy) = color;
            else
                blend(image.at(xx, yy), Rgba{color.r, color.g, color.b, 255}, color.a);
        }
}

}  // namespace alibi::detail
