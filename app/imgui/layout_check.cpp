// See layout_check.hpp.
#include "layout_check.hpp"

#include <imgui_internal.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

namespace alibi::imgui {

namespace {

struct GlyphOf {
    const ImFontGlyph* glyph = nullptr;
    const ImFont* font = nullptr;
};

struct Hit {
    GlyphOf of;
    ImVec2 min, max;
    ImVec4 clip;
    bool trimmed = false;  // ImGui's fine clipping cut the glyph (its UVs moved)
    float scale = 1;
    const ImGuiWindow* window = nullptr;
    // Where ImGui's pen stood for this glyph and where it moves next (untrimmed glyphs): glyphs of
    // one text follow each other exactly so, a separate text starts elsewhere.
    float pen = 0, nextPen = 0;
};

void appendUtf8(std::string& out, unsigned c) {
    char buffer[5] = {};
    ImTextCharToUtf8(buffer, c);
    out += buffer;
}

const ImGuiWindow* windowOf(const ImDrawList* list) {
    for (const ImGuiWindow* w : GImGui->Windows)
        if (w->DrawList == list) return w;
    return nullptr;
}

// Whether `w` or a window around it shows a scroll bar along x (axis 0) or y (axis 1): text it
// cuts at that edge can be scrolled into view (a window without a bar cuts it for good).
bool scrolls(const ImGuiWindow* w, int axis) {
    for (; w != nullptr; w = w->ParentWindow)
        if (axis == 0 ? w->ScrollbarX : w->ScrollbarY) return true;
    return false;
}

std::vector<Hit> glyphHits(const ImDrawData& data) {
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    std::map<std::pair<float, float>, GlyphOf> byStart, byEnd;
    for (const ImFont* font : atlas->Fonts)
        for (const ImFontGlyph& g : font->Glyphs) {
            if (!g.Visible) continue;
            byStart[{g.U0, g.V0}] = {&g, font};
            byEnd[{g.U1, g.V1}] = {&g, font};
        }
    std::vector<Hit> hits;
    for (int l = 0; l < data.CmdListsCount; ++l) {
        const ImDrawList* list = data.CmdLists[l];
        const ImGuiWindow* window = windowOf(list);
        for (const ImDrawCmd& cmd : list->CmdBuffer) {
            if (cmd.UserCallback != nullptr || cmd.TextureId != atlas->TexID) continue;
            const unsigned end = cmd.IdxOffset + cmd.ElemCount;
            for (unsigned i = cmd.IdxOffset; i + 6 <= end;) {
                const auto at = [&](unsigned k) { return cmd.VtxOffset + static_cast<unsigned>(list->IdxBuffer[k]); };
                const unsigned a = at(i);
                const bool quad = at(i + 1) == a + 1 && at(i + 2) == a + 2 && at(i + 3) == a && at(i + 4) == a + 2 &&
                                  at(i + 5) == a + 3 && a + 3 < static_cast<unsigned>(list->VtxBuffer.Size);
                if (!quad) {
                    i += 3;
                    continue;
                }
                const ImDrawVert& v0 = list->VtxBuffer[static_cast<int>(a)];
                const ImDrawVert& v2 = list->VtxBuffer[static_cast<int>(a + 2)];
                GlyphOf of;
                bool trimmed = false;
                if (auto s = byStart.find({v0.uv.x, v0.uv.y}); s != byStart.end()) {
                    of = s->second;
                    trimmed = v2.uv.x != of.glyph->U1 || v2.uv.y != of.glyph->V1;
                } else if (auto e = byEnd.find({v2.uv.x, v2.uv.y}); e != byEnd.end()) {
                    of = e->second;
                    trimmed = true;
                }
                i += 6;
                if (of.glyph == nullptr) continue;
                Hit h;
                h.of = of;
                h.min = v0.pos;
                h.max = v2.pos;
                h.clip = cmd.ClipRect;
                h.trimmed = trimmed;
                const float w = of.glyph->X1 - of.glyph->X0;
                h.scale = !trimmed && w > 0 ? (h.max.x - h.min.x) / w : 1.0f;
                h.window = window;
                h.pen = h.min.x - of.glyph->X0 * h.scale;
                h.nextPen = h.pen + of.glyph->AdvanceX * h.scale;
                hits.push_back(h);
            }
        }
    }
    return hits;
}

struct Run {
    TextRun text;
    std::vector<const Hit*> hits;
};

std::vector<Run> runsOf(const std::vector<Hit>& hits) {
    std::vector<Run> runs;
    float lastX = 0, lastBase = 0, lastSize = 0;
    const ImGuiWindow* lastWindow = nullptr;
    ImVec4 lastClip{};
    for (const Hit& h : hits) {
        const float size = h.of.font->FontSize * h.scale;
        const float base = h.trimmed ? h.min.y : h.min.y - h.of.glyph->Y0 * h.scale;
        const float gap = h.min.x - lastX;
        const bool sameClip =
            h.clip.x == lastClip.x && h.clip.y == lastClip.y && h.clip.z == lastClip.z && h.clip.w == lastClip.w;
        const bool join = !runs.empty() && h.window == lastWindow && sameClip && std::fabs(base - lastBase) < 1.5f &&
                          std::fabs(size - lastSize) < 0.5f && gap > -0.5f * size && gap < 0.7f * size;
        if (!join) {
            runs.emplace_back();
            runs.back().text.min = h.min;
            runs.back().text.max = h.max;
            runs.back().text.clip = h.clip;
            runs.back().text.window = h.window != nullptr ? h.window->Name : "";
        } else if (gap > 0.2f * size) {
            runs.back().text.text += ' ';
        }
        Run& r = runs.back();
        appendUtf8(r.text.text, h.of.glyph->Codepoint);
        r.text.min = ImVec2(std::min(r.text.min.x, h.min.x), std::min(r.text.min.y, h.min.y));
        r.text.max = ImVec2(std::max(r.text.max.x, h.max.x), std::max(r.text.max.y, h.max.y));
        r.hits.push_back(&h);
        lastX = h.max.x;
        lastBase = base;
        lastSize = size;
        lastWindow = h.window;
        lastClip = h.clip;
    }
    return runs;
}

struct TextFields {
    int frame = -1;
    std::vector<ImVec4> rects;
};
TextFields& textFields() {
    static TextFields fields;
    return fields;
}

// A text field scrolls its text: what it trims is not lost.
bool inTextField(const Hit& h) {
    if (h.window != nullptr && std::string_view(h.window->Name).find("##custom") != std::string_view::npos) return true;
    const TextFields& fields = textFields();
    if (fields.frame != ImGui::GetFrameCount()) return false;
    // A multi-line field clips to its own child window; a single-line one draws in its window's
    // clip rectangle and trims its glyphs to the frame itself: either way the glyph is inside it.
    const auto inside = [](ImVec2 a, ImVec2 b, const ImVec4& r) {
        return a.x >= r.x - 1.5f && b.x <= r.z + 1.5f && a.y >= r.y - 1.5f && b.y <= r.w + 1.5f;
    };
    for (const ImVec4& r : fields.rects)
        if (inside(ImVec2(h.clip.x, h.clip.y), ImVec2(h.clip.z, h.clip.w), r) || inside(h.min, h.max, r)) return true;
    return false;
}

struct PlotSeen {
    std::string title;
    ImVec2 min, max;
    ImVec4 visible;  // the window's clip rectangle where it was drawn
    int yTickLabels = 0;
    bool cited = false;
};
struct AreaSeen {
    std::string name;
    ImVec2 min, max;
    ImVec4 visible;
};
struct MatrixSeen {
    std::string name;
    int cells = 0;
    float cellSize = 0;
    std::vector<bool> rows, columns;  // labelled
    std::vector<std::pair<std::string, ImVec2>> offCentre;
};
struct RowSeen {
    std::string table;
    int row = 0;
    float top = 0, bottom = 0, visibleTop = 0, visibleBottom = 0;
};
struct ColumnSeen {
    std::string table, column;
    float right = 0, visibleRight = 0;
};
struct LessonTextSeen {
    float textBottom = 0, roomBottom = 0, lineHeight = 0;
};
struct LabelsSeen {
    std::string picture;
    std::size_t tiles = 0, labelled = 0;
};
struct TileSeen {
    std::string picture;
    ImVec2 min, max;
    std::int64_t rows = 0, columns = 0;
};
struct Pictures {
    int frame = -1;
    std::vector<TileSeen> tiles;
    std::vector<LabelsSeen> tileLabels;
    std::vector<PlotSeen> plots;
    std::vector<AreaSeen> areas;
    std::vector<MatrixSeen> matrices;
    std::vector<RowSeen> markedRows;
    std::vector<LessonTextSeen> lessonTexts;
    std::vector<ColumnSeen> citedColumns;
};
// This frame's notes (older frames' are dropped on the first note of a new frame).
Pictures& pictures() {
    static Pictures p;
    if (p.frame != ImGui::GetFrameCount()) {
        p = {};
        p.frame = ImGui::GetFrameCount();
    }
    return p;
}

// A plot's x tick labels: the glyphs on the line under its frame (its axis title is a line
// lower), told apart by their pens; two labels closer than a quarter em, or over each other, are
// a problem.
void crowdedTicks(const PlotSeen& p, const std::vector<Hit>& hits, std::vector<LayoutProblem>& problems) {
    struct Label {
        std::string text;
        float min = 0, max = 0, size = 0, nextPen = 0;
    };
    std::vector<Label> labels;
    for (const Hit& h : hits) {
        if (h.trimmed || h.min.x < p.min.x - 25.0f || h.max.x > p.max.x + 1.0f) continue;
        const float size = h.of.font->FontSize * h.scale;
        const float top = h.min.y - h.of.glyph->Y0 * h.scale;  // the line's top
        if (top < p.max.y || top > p.max.y + 0.5f * size) continue;
        if (labels.empty() || std::fabs(h.pen - labels.back().nextPen) > 0.05f)
            labels.push_back({{}, h.min.x, h.max.x, size, 0});
        Label& l = labels.back();
        appendUtf8(l.text, h.of.glyph->Codepoint);
        l.max = std::max(l.max, h.max.x);
        l.nextPen = h.nextPen;
    }
    for (std::size_t i = 1; i < labels.size(); ++i) {
        const Label& a = labels[i - 1];
        const Label& b = labels[i];
        const float gap = std::max(a.min, b.min) - std::min(a.max, b.max);
        if (gap < 0.25f * std::max(a.size, b.size))
            problems.push_back({LayoutProblem::Kind::CrowdedTicks, a.text, b.text, p.title,
                                ImVec2(std::min(a.min, b.min), p.max.y), ImVec2(std::max(a.max, b.max), p.max.y)});
    }
}

// Windows whose items reach past the visible right edge with no horizontal scroll bar here or
// around: what lies past it cannot be seen at all.
void pastRightEdges(std::vector<LayoutProblem>& problems) {
    for (const ImGuiWindow* w : GImGui->Windows) {
        if (!w->Active || w->Hidden || w->SkipItems || scrolls(w, 0)) continue;
        if ((w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_ChildMenu)) != 0) continue;
        const float edge = w->InnerClipRect.Max.x;
        if (w->DC.CursorMaxPos.x > edge + 1.5f)
            problems.push_back(
                {LayoutProblem::Kind::PastEdge, w->Name,
                 fmt::format("items reach x {:.0f}, the window shows to {:.0f}", w->DC.CursorMaxPos.x, edge), w->Name,
                 ImVec2(edge, w->InnerClipRect.Min.y), ImVec2(w->DC.CursorMaxPos.x, w->InnerClipRect.Max.y)});
    }
}

}  // namespace

void notePlot(const std::string& title, ImVec2 frameMin, ImVec2 frameMax, int yTickLabels, bool cited) {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    const ImVec4 visible = w != nullptr ? ImVec4(w->InnerClipRect.Min.x, w->InnerClipRect.Min.y, w->InnerClipRect.Max.x,
                                                 w->InnerClipRect.Max.y)
                                        : ImVec4(frameMin.x, frameMin.y, frameMax.x, frameMax.y);
    pictures().plots.push_back({title, frameMin, frameMax, visible, yTickLabels, cited});
}

void noteCitedArea(const std::string& name) {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    if (w == nullptr) return;
    const ImRect& v = w->InnerClipRect;
    pictures().areas.push_back(
        {name, w->DC.CursorStartPos, w->DC.CursorMaxPos, ImVec4(v.Min.x, v.Min.y, v.Max.x, v.Max.y)});
}

void noteTileLabels(const std::string& picture, std::size_t tiles, std::size_t labelled) {
    pictures().tileLabels.push_back({picture, tiles, labelled});
}

void noteMatrix(const std::string& name, int cells, float cellSize) {
    MatrixSeen m;
    m.name = name;
    m.cells = std::max(cells, 0);
    m.cellSize = cellSize;
    m.rows.assign(static_cast<std::size_t>(m.cells), false);
    m.columns.assign(static_cast<std::size_t>(m.cells), false);
    pictures().matrices.push_back(std::move(m));
}

void noteMatrixLabel(const std::string& name, bool row, int cell, float labelCentre, float labelExtent,
                     float cellCentre) {
    for (MatrixSeen& m : pictures().matrices) {
        if (m.name != name || cell < 0) continue;
        if (cell < m.cells) (row ? m.rows : m.columns)[static_cast<std::size_t>(cell)] = true;
        // Off its cell's centre by more than a quarter of a cell, or a row label over two rows:
        // it reads as the next one's.
        if (std::fabs(labelCentre - cellCentre) > std::max(1.0f, m.cellSize * 0.25f) ||
            (row && labelExtent > m.cellSize + 1.0f))
            m.offCentre.emplace_back(fmt::format("{} {}: label {:.0f} px over a {:.0f} px cell", row ? "row" : "column",
                                                 cell, labelExtent, m.cellSize),
                                     ImVec2(labelCentre, cellCentre));
    }
}

void noteMarkedTableRow(const std::string& table, int row, float top, float bottom, float visibleTop,
                        float visibleBottom) {
    pictures().markedRows.push_back({table, row, top, bottom, visibleTop, visibleBottom});
}

void noteCitedColumn(const std::string& table, const std::string& column, float right, float visibleRight) {
    pictures().citedColumns.push_back({table, column, right, visibleRight});
}

void noteLessonText(float textBottom, float roomBottom, float lineHeight) {
    pictures().lessonTexts.push_back({textBottom, roomBottom, lineHeight});
}

void noteHeatmapTile(const std::string& picture, ImVec2 min, ImVec2 max, std::int64_t rows, std::int64_t columns) {
    pictures().tiles.push_back({picture, min, max, rows, columns});
}

bool squareCells(float width, float height, std::int64_t rows, std::int64_t columns) {
    if (rows <= 0 || columns <= 0 || width <= 0 || height <= 0) return true;  // nothing drawn
    const double r = static_cast<double>(rows), c = static_cast<double>(columns);
    const double ratio = (width / c) / (height / r);
    if (std::fabs(ratio - 1.0) <= kSquareCellTolerance) return true;
    return std::fabs(width - height * c / r) <= 1.0 || std::fabs(height - width * r / c) <= 1.0;
}

void noteTextField() {
    TextFields& fields = textFields();
    if (fields.frame != ImGui::GetFrameCount()) {
        fields.frame = ImGui::GetFrameCount();
        fields.rects.clear();
    }
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    fields.rects.push_back(ImVec4(a.x, a.y, b.x, b.y));
}

std::string LayoutProblem::describe() const {
    const char* what = "overlaps";
    switch (kind) {
        case Kind::Cut:
            what = "cut";
            break;
        case Kind::ClippedInFrame:
            what = "clipped in its frame";
            break;
        case Kind::Overlap:
            break;
        case Kind::FewTicks:
            what = "plot's y axis labels fewer than two values";
            break;
        case Kind::SmallPlot:
            what = "plot smaller than its minimum height";
            break;
        case Kind::OffCentre:
            what = "matrix label off its cell's centre";
            break;
        case Kind::Unlabelled:
            what = "matrix row or column, or picture tile, without its label";
            break;
        case Kind::HiddenRow:
            what = "table row a lesson step marks not in view";
            break;
        case Kind::EmptyStrip:
            what = "lesson strip taller than its text";
            break;
        case Kind::StretchedCells:
            what = "heatmap cells not square";
            break;
        case Kind::CrowdedTicks:
            what = "plot's x tick labels crowded";
            break;
        case Kind::OffScreen:
            what = "cited plot or picture not wholly in view";
            break;
        case Kind::PastEdge:
            what = "items past the window's right edge, no horizontal scroll";
            break;
    }
    std::string s = fmt::format("{} [{}] \"{}\" at ({:.0f}, {:.0f})-({:.0f}, {:.0f})", what, window, text, min.x, min.y,
                                max.x, max.y);
    if (kind == Kind::Overlap)
        s += fmt::format(" with \"{}\"", other);
    else if (!other.empty())
        s += fmt::format(" ({})", other);
    return s;
}

std::vector<TextRun> textRuns(const ImDrawData& data) {
    const std::vector<Hit> hits = glyphHits(data);
    std::vector<TextRun> out;
    for (Run& r : runsOf(hits)) out.push_back(std::move(r.text));
    return out;
}

std::vector<LayoutProblem> checkTextLayout(const ImDrawData& data) {
    const std::vector<Hit> hits = glyphHits(data);
    const std::vector<Run> runs = runsOf(hits);
    std::vector<LayoutProblem> problems;
    constexpr float tol = 0.5f;
    for (const Run& r : runs) {
        bool cut = false, trimmed = false;
        for (const Hit* h : r.hits) {
            const bool outX = h->min.x < h->clip.x - tol || h->max.x > h->clip.z + tol;
            const bool outY = h->min.y < h->clip.y - tol || h->max.y > h->clip.w + tol;
            cut = cut || (outX && !scrolls(h->window, 0)) || (outY && !scrolls(h->window, 1));
            trimmed = trimmed || (h->trimmed && !inTextField(*h));
        }
        // ImGui's ellipsis (a tab or a label shortened to fit) ends a run with U+2026.
        const bool elided = r.text.text.size() > 3 && r.text.text.ends_with("\xE2\x80\xA6");
        if (cut || trimmed || elided)
            problems.push_back({cut || elided ? LayoutProblem::Kind::Cut : LayoutProblem::Kind::ClippedInFrame,
                                r.text.text,
                                {},
                                r.text.window,
                                r.text.min,
                                r.text.max});
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        for (std::size_t j = i + 1; j < runs.size(); ++j) {
            const TextRun& a = runs[i].text;
            const TextRun& b = runs[j].text;
            // Only what is shown counts: each rectangle within its clip rectangle.
            const auto shown = [](const TextRun& t) {
                return ImVec4(std::max(t.min.x, t.clip.x), std::max(t.min.y, t.clip.y), std::min(t.max.x, t.clip.z),
                              std::min(t.max.y, t.clip.w));
            };
            const ImVec4 sa = shown(a), sb = shown(b);
            const float w = std::min(sa.z, sb.z) - std::max(sa.x, sb.x);
            const float h = std::min(sa.w, sb.w) - std::max(sa.y, sb.y);
            if (w > 1.0f && h > 1.0f)
                problems.push_back(
                    {LayoutProblem::Kind::Overlap, a.text, b.text, a.window, ImVec2(sa.x, sa.y), ImVec2(sa.z, sa.w)});
        }
    // The pictures' notes (only this frame's: a view not drawn this frame noted nothing).
    const Pictures& seen = pictures();  // this frame's (a frame with no notes starts empty)
    for (const PlotSeen& p : seen.plots) {
        if (p.yTickLabels < 2)
            problems.push_back({LayoutProblem::Kind::FewTicks, p.title, fmt::format("{} tick label(s)", p.yTickLabels),
                                "", p.min, p.max});
        if (!p.cited && p.max.y - p.min.y < kMinPlotHeight)
            problems.push_back({LayoutProblem::Kind::SmallPlot, p.title,
                                fmt::format("{:.0f} px tall, {:.0f} wanted", p.max.y - p.min.y, kMinPlotHeight), "",
                                p.min, p.max});
        // A cited plot scrolled out of its window (the s39 review's F2b: the Row plot under the
        // tab's text, only its axis title showing) is not seen by the room however tall it is.
        if (p.cited && (p.min.x < p.visible.x - 1.0f || p.min.y < p.visible.y - 1.0f || p.max.x > p.visible.z + 1.0f ||
                        p.max.y > p.visible.w + 1.0f))
            problems.push_back({LayoutProblem::Kind::OffScreen, p.title,
                                fmt::format("frame to y {:.0f}, its window shows to y {:.0f}", p.max.y, p.visible.w),
                                "", p.min, p.max});
        if (p.cited && p.max.y - p.min.y < kMinCitedPlotHeight)
            problems.push_back({LayoutProblem::Kind::SmallPlot, p.title,
                                fmt::format("{:.0f} px tall, {:.0f} wanted", p.max.y - p.min.y, kMinCitedPlotHeight),
                                "", p.min, p.max});
    }
    for (const AreaSeen& a : seen.areas)
        // Above the part shown is not allowed either, scroll bar or not: a tab scrolled to its
        // cited plot left the tab bar, the plot's title and its picker out of view (the s40
        // brief); below it the picture's key or the plot's axis title would be cut.
        if (a.min.y < a.visible.y - 1.0f || a.max.y > a.visible.w + 1.0f || a.max.x > a.visible.z + 1.0f)
            problems.push_back({LayoutProblem::Kind::OffScreen, a.name,
                                fmt::format("items from y {:.0f} to {:.0f}, shown from {:.0f} to {:.0f}", a.min.y,
                                            a.max.y, a.visible.y, a.visible.w),
                                "", a.min, a.max});
    for (const PlotSeen& p : seen.plots) crowdedTicks(p, hits, problems);
    pastRightEdges(problems);
    for (const MatrixSeen& m : seen.matrices) {
        for (const auto& [which, at] : m.offCentre)
            problems.push_back({LayoutProblem::Kind::OffCentre, m.name + " " + which,
                                fmt::format("label centre {:.1f}, cell centre {:.1f}", at.x, at.y), "", at, at});
        for (int c = 0; c < m.cells; ++c) {
            if (!m.rows[static_cast<std::size_t>(c)])
                problems.push_back({LayoutProblem::Kind::Unlabelled, m.name, fmt::format("row {}", c), "", {}, {}});
            if (!m.columns[static_cast<std::size_t>(c)])
                problems.push_back({LayoutProblem::Kind::Unlabelled, m.name, fmt::format("column {}", c), "", {}, {}});
        }
    }
    constexpr float slack = 1.0f;
    for (const RowSeen& r : seen.markedRows)
        if (r.top < r.visibleTop - slack || r.bottom > r.visibleBottom + slack)
            problems.push_back({LayoutProblem::Kind::HiddenRow, r.table,
                                fmt::format("row {} at y {:.0f} to {:.0f}, visible {:.0f} to {:.0f}", r.row, r.top,
                                            r.bottom, r.visibleTop, r.visibleBottom),
                                "", ImVec2(0, r.top), ImVec2(0, r.bottom)});
    for (const ColumnSeen& c : seen.citedColumns)
        if (c.right > c.visibleRight + 1.0f)
            problems.push_back({LayoutProblem::Kind::OffScreen, c.table + " column " + c.column,
                                fmt::format("header to x {:.0f}, the table shows to x {:.0f}", c.right, c.visibleRight),
                                "", ImVec2(c.visibleRight, 0), ImVec2(c.right, 0)});
    for (const LessonTextSeen& t : seen.lessonTexts)
        if (t.roomBottom - t.textBottom > t.lineHeight + 4.0f)  // the strip's rounding
            problems.push_back({LayoutProblem::Kind::EmptyStrip, "lesson text",
                                fmt::format("{:.0f} px empty under it, a line is {:.0f} px",
                                            t.roomBottom - t.textBottom, t.lineHeight),
                                "", ImVec2(0, t.textBottom), ImVec2(0, t.roomBottom)});
    for (const LabelsSeen& l : seen.tileLabels)
        if (l.labelled < l.tiles)
            problems.push_back({LayoutProblem::Kind::Unlabelled,
                                l.picture,
                                fmt::format("{} of {} tiles labelled", l.labelled, l.tiles),
                                "",
                                {},
                                {}});
    for (const TileSeen& t : seen.tiles) {
        const float w = t.max.x - t.min.x, h = t.max.y - t.min.y;
        if (!squareCells(w, h, t.rows, t.columns))
            problems.push_back(
                {LayoutProblem::Kind::StretchedCells, t.picture,
                 fmt::format("{} x {} cells in {:.1f} x {:.1f} px: 1 cell = {:.2f} x {:.2f} px", t.rows, t.columns, w,
                             h, w / static_cast<float>(t.columns), h / static_cast<float>(t.rows)),
                 "", t.min, t.max});
    }
    return problems;
}

}  // namespace alibi::imgui
