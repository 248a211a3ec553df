// Drawing pieces several views share: the stale mark over a picture whose parameters have moved
// on, and the colour bar beside a heatmap (its range and ticks from the core's explore layer).
#pragma once

#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include "app_state.hpp"

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::imgui {

inline constexpr float kColorBarWidth = 14.0f;
inline constexpr float kColorBarGap = 8.0f;
inline const ImVec4 kErrorTextColor{1.0f, 0.42f, 0.36f, 1.0f};
// A view snapshot's `error` (the core words it for the CLI: "--arith hf-bloom ... --scheme
// geometric") in the explorers' words (explore::guiMessage, as the parameters panel shows its
// errors), in the error colour, wrapped at the view's edge.
void coreErrorText(std::string_view coreError);

// The explore layer's number format ("-0.5", "-inf", "NaN"; both zeros read "0").
[[nodiscard]] std::string valueText(double value);

// Dims [min, max] and writes the core's "updating..." (explore::progressText, with the fraction
// done when `progress` > 0) in its middle: the picture underneath belongs to older parameters.
// `secondsLeft` >= 0 adds the estimate; `refining`: the picture is a preview being refined, left
// undimmed with "preview, refining..." at its bottom edge (staleMarkRect), where no tile label
// sits (a grid's labels are above their tiles).
void drawStaleMark(ImVec2 min, ImVec2 max, float progress, float secondsLeft = -1.0f, bool refining = false);
// The box drawStaleMark draws around text of `textSize` with padding `pad` over [min, max].
struct MarkRect {
    ImVec2 min, max;
};
[[nodiscard]] MarkRect staleMarkRect(ImVec2 min, ImVec2 max, ImVec2 textSize, float pad, bool refining);

// Ticks a colour bar `height` pixels tall has room for.
[[nodiscard]] int colorBarTicks(float height);
// A vertical colour bar at `origin`: the gradient `texture` (may be null in tests), the bar's
// ticks at their exact positions (ends labelled exactly), its title above and the masked swatch
// below when the bar has one.
void drawColorBar(ImTextureID texture, ImVec2 origin, float height, const alibi::ColorBar& bar);
// The bar to the right of an image at `imageOrigin` of `imageSize`, leaving a line above for its
// title and one below for the masked swatch.
void drawColorBarBeside(ImTextureID texture, ImVec2 imageOrigin, ImVec2 imageSize, const alibi::ColorBar& bar);
// A bar for a fixed [lo, hi] (differences, errors).
void drawColorBar(ImTextureID texture, ImVec2 origin, float height, double lo, double hi, const char* title);
// The side of the colour bar's masked and fully-masked swatches: 0.7 of a text line (10 px at least).
[[nodiscard]] float colorBarSwatchSize();
// Width the colour bar and its labels take.
[[nodiscard]] float colorBarWidth();
// Width `bar` takes with its own tick labels and title, no swatches (a bar of a fixed range: the
// similarity matrix's, whose room colorBarWidth's widest labels would take from the matrix).
[[nodiscard]] float colorBarWidth(const alibi::ColorBar& bar);
// Each tile's label in the band the core left free above it (tileLabelRoom), as the head grid and
// the figures write them: forms[n] are tile n's forms, most telling first (the core's
// tileLabelForms from its head where absent); one form for every tile, the first that fits them
// all (the core's chooseTileLabels); a tile where none fits shows none. Without a band a line tall (the core clamps the
// band in a short picture), "h3" goes over the tile's top-right corner on a dark backing (a causal map's masked
// corner), unless a line is more than half the tile's height.
// Returns where each label went (screen coordinates).
std::vector<TileLabelPlace> drawTileLabels(const std::vector<HeatmapTile>& tiles,
                                           const std::vector<std::vector<std::string>>& forms, ImVec2 origin);
// Notes each tile of a heatmap picture drawn at `origin` (its image pixels scaled zoomX x zoomY on
// the screen), each showing rows x columns cells, for the layout check's square-cell rule.
void noteHeatmapTiles(const std::string& picture, const std::vector<HeatmapTile>& tiles, ImVec2 origin,
                      std::int64_t rows, std::int64_t columns, float zoomX = 1.0f, float zoomY = 1.0f);
// The label band a text line needs (what the views ask the core to leave above each tile).
[[nodiscard]] int tileLabelBand();
// Puts the next item on the current line when `nextWidth` pixels still fit there, else on the
// next line (a row of buttons at a presentation font wraps instead of running off the edge).
void sameLineIfFits(float nextWidth, float spacing = -1.0f);
// The width of a button labelled `label` (its text and frame padding).
[[nodiscard]] float buttonWidth(const char* label);
// The width of a check box labelled `label` (its square, the gap and the text).
[[nodiscard]] float checkboxWidth(const char* label);

// `text` wrapped at the content region's right edge by the core's rule (explore::wrapLines: breaks
// only at ordinary spaces and '\n', never after a '.' inside a number as ImGui's own word wrap
// does, never at a U+00A0). In the current text colour.
void textWrappedAtSpaces(std::string_view text);
// The same, `width` pixels wide from the cursor.
void textWrappedAtSpaces(std::string_view text, float width);
// The same, `width` pixels wide, each line `lineGap` pixels further from the next than a font
// size (the lesson text's pitch, lessonLineGap).
void textWrappedAtSpaces(std::string_view text, float width, float lineGap);
// The height such wrapped text takes, `width` pixels wide (its lines, as drawn).
[[nodiscard]] float wrappedTextHeight(std::string_view text, float width);
// A read-out of " · " phrases ("head 0 · query i = 3 · ... · position p_i = i + K - Q = 15"),
// `width` pixels wide from the cursor: broken only between its phrases (explore::keepPhrasesWhole),
// so no phrase is split ("... =" / "15", lesson 4 step 5).
void textWrappedAtPhrases(std::string_view text, float width);

// The last item's rectangle and the clip rectangle it was drawn in (where it is really visible).
[[nodiscard]] MapsShown lastItemShown();

// BeginChild for a child window of text: ImGui gives a child without a border no padding, so a
// line starting at its left edge loses the ink a glyph draws left of its origin ("T", "J" of the
// large fonts); this one keeps a few pixels of padding at its sides. End it with ImGui::EndChild.
bool beginTextChild(const char* id, ImVec2 size, ImGuiWindowFlags flags = 0);

// A modal prompt for a path (ImGui has no file dialog): `help` lines, a field editing `path`,
// Open and Cancel (Escape). Draws nothing unless `open`; returns true on Open (or Enter), and
// clears `open` when the prompt closes either way.
bool pathPrompt(const char* title, std::initializer_list<const char*> help, const char* fieldId, std::string& path,
                bool& open);

}  // namespace alibi::imgui
