// The explorer's look at a zoom: its base style, and the fonts built at the zoomed pixel size with
// every style size scaled alike (View > Zoom, presentation mode). GL-free, so the window shell
// and the tests that lay the explorer out at a projector's size build the same fonts.
#pragma once

#include <imgui.h>

namespace alibi::imgui {

// The style every zoom scales (rounding, padding, spacing as the explorer draws them at 1x).
[[nodiscard]] ImGuiStyle explorerBaseStyle();

// Rebuilds the font atlas at `zoom` (DejaVu Sans and the lesson font, or ImGui's own font when
// DejaVu is not installed) and sets the current style to `base` scaled by `zoom`. The renderer's
// font texture must be recreated afterwards (the shell does; a test calls GetTexDataAsRGBA32).
void applyZoom(const ImGuiStyle& base, float zoom);

// The main font's characters (applyZoom's): Latin-1 and the Greek letters, punctuation, arrows and
// maths signs the core's texts use. A test building its own atlas uses them too, or it reads "τ" as "?".
[[nodiscard]] const ImWchar* explorerFontRanges();

}  // namespace alibi::imgui
