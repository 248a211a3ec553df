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

}  // namespace

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
    const char* what = kind == Kind::Cut ? "cut" : kind == Kind::ClippedInFrame ? "clipped in its frame" : "overlaps";
    std::string s = fmt::format("{} [{}] \"{}\" at ({:.0f}, {:.0f})-({:.0f}, {:.0f})", what, window, text, min.x, min.y,
                                max.x, max.y);
    if (kind == Kind::Overlap) s += fmt::format(" with \"{}\"", other);
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
    return problems;
}

}  // namespace alibi::imgui
