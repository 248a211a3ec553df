// One draw function per panel, each in its own panel_*.cpp. A panel draws the Model and edits the
// AppState; it never computes ALiBi numbers itself (the core does, through the Explorer's workers),
// and it never touches the graphics API (textures arrive as ImTextureID in the Model).
#pragma once

#include <alibi/explore/view_titles.hpp>

#include "app_state.hpp"
#include "model.hpp"

namespace alibi::imgui {

void drawParametersPanel(AppState& state, const Model& model);
void drawGridPanel(AppState& state, const Model& model);
void drawCurvesPanel(AppState& state, const Model& model);
void drawStatsPanel(AppState& state, const Model& model);
void drawFrameTimePanel(AppState& state, const Model& model);
void drawSessionPanel(AppState& state, const Model& model);
void drawExportPanel(AppState& state, const Model& model);

// The centre panel: a tab per view (the Qt explorer's tabs), each drawn by its own function.
void drawViewsPanel(AppState& state, const Model& model);
// How the view tabs fit a row `width` wide (the core's explore::fitTabRow): the full titles, else
// the short names, else the short names in a smaller font (never scroll arrows, never a cut name).
[[nodiscard]] explore::TabRowFit tabTitlesFor(float width);
void drawDetailView(AppState& state, const Model& model);
void drawStagesView(AppState& state, const Model& model);
void drawCompareView(AppState& state, const Model& model);
void drawExtrapolationView(AppState& state, const Model& model);
void drawDiagnoseView(AppState& state, const Model& model);
// The key under the Diagnose map's caption when its tiles are a batch's (labels "b1 h3").
inline constexpr const char* kBatchTilesKey = "Tiles: b = batch row, h = head (b1 h3: batch row 1, head 3).";
// ALiBi beside the other position schemes (panel_position_schemes.cpp).
void drawPositionSchemesView(AppState& state, const Model& model);
// A trained model's saved attention maps: the file, the layer's heads (or every layer) and the
// side pictures (one head, attention vs distance with the prior, one row, head similarity).
void drawMapsView(AppState& state, const Model& model);
void drawMapsSide(AppState& state, const Model& model);
// The side tab's room (em) for its text in a column beside its plot: the vs-distance and row
// tabs' column at least 12 and 14 em and their plot 14 and 12 em.
inline constexpr float kSideColumnLayout = 26.0f;
// The Maps view's two heads mode (panel_maps_two_heads.cpp).
void drawMapsTwoHeads(AppState& state, const Model& model);
// The per-head fit table of every layer: run, cancel, sort, export.
void drawFitView(AppState& state, const Model& model);
// A BLOOM, MPT or Falcon checkpoint run on the user's text: folder, text, B's slope change, Run and
// Cancel, and A against B (panel_live.cpp).
void drawModelView(AppState& state, const Model& model);
// Help > What is ALiBi? (the same text as the Qt explorer's).
void drawHelpText();

// A colour per head shared by every panel (curves, table swatches), so a head is recognisable.
[[nodiscard]] ImU32 headColor(int head, int heads, float alpha = 1.0f);
// The highlight colour of the hovered head.
inline constexpr ImU32 kHighlightColor = IM_COL32(255, 96, 64, 255);

}  // namespace alibi::imgui
