// Issue 27, the s34 review of the five lessons on a 1280x720 projector (ImGui):
//  - lesson text breaks lines only at spaces, never inside a number ("2^(-1." / "5)");
//  - the curve plots carry a legend (the core's series labels), whole, at H = 8, 12 and 32, and
//    lesson 1 step 6's plot (attention against distance) is in view when the step is shown;
//  - the head detail grows to the room a lesson's strip leaves (a wide, short view);
//  - the head detail's colour bar is a smooth gradient, not one band per row of the map;
//  - Shift+Right queued in one slow frame with Shift's release steps T to a power of two;
//  - lesson 5 step 2 (the fit table) fills its table without a click.
#include "explorer_fixture.hpp"
#include "input_queue.hpp"
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "zoom.hpp"

#include <alibi/io/lesson.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/legend_layout.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace alibi::imgui {
namespace {

constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr int kLeftShift = 340;

class LectureViews : public ExplorerLogic {
public:
    void SetUp() override {
        ::setenv("ALIBI_DATA_DIR", ALIBI_SOURCE_ASSETS, 1);
        ::setenv("XDG_DATA_HOME", "/nonexistent-alibi-test", 1);  // no user lessons
        ExplorerLogic::SetUp();
    }

    // A 1280x720 projector in presentation mode: the interface text 1.6 times its size (as the
    // shell's presentation zoom makes it), the Parameters column folded away.
    void projector() {
        ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
        ImGui::GetIO().FontGlobalScale = 1.6f;
        m_explorer->setPresentation(true);
        frame();
        frame();
    }

    // Lesson 1 ("ALiBi in six steps") at `step` (1-based) on the projector, its views settled.
    void lessonOneAtStep(int step) {
        projector();
        ASSERT_TRUE(m_explorer->openLesson("01-alibi-in-five-steps"));
        for (int s = 2; s <= step; ++s) ASSERT_TRUE(m_explorer->lessonNext());
        settle();
        frame();
    }

    // The shell's fonts (DejaVu Sans and the lesson font): the layout check reads words back from
    // a proportional font's glyphs. False when the font is not installed.
    bool shellFonts() {
        if (!std::filesystem::exists(kFontFile)) return false;
        ImGuiIO& io = ImGui::GetIO();
        io.Fonts->Clear();
        io.Fonts->AddFontFromFileTTF(kFontFile, 15.0f, nullptr, explorerFontRanges());
        addLessonFont(*io.Fonts, kFontFile, 40.0f);
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        frame();
        return true;
    }
    // A text as the layout check reads it back (its words; the gaps between glyphs say where the
    // spaces are, so they are left out of the comparison).
    static std::string words(std::string_view text) {
        std::string out;
        for (char c : text)
            if (c != ' ') out += c;
        return out;
    }

    // The text runs the last frame drew.
    static std::vector<TextRun> runs() { return textRuns(*ImGui::GetDrawData()); }
    static std::vector<LayoutProblem> problems() { return checkTextLayout(*ImGui::GetDrawData()); }
};

// Every step of every bundled lesson, at every width from 300 to 1500 px, in the lesson font
// (DejaVu Sans, as the shell builds it) at its default size and at presentation sizes: each line
// ends where the text has a space or a paragraph break. ImGui's own word wrap, on the same texts,
// breaks after a '.' inside a number at some of these widths (what the review saw).
// Every step of every bundled lesson, in the lesson font at the sizes presentation mode shows
// it and at the text widths from a 1280x720 window's down to a narrow one: no line ends with an
// operator ("mₕ =" | "2^(−8(h+1)/H)", "2^(−0.5) ≈" | "0.707", "/ Σₖ" | "e^s(i, k)") or starts
// with one ("L" | "= 64"): the panel wraps with the core's keepFormulasWhole. Failed before it
// did (the s38 review's lines).
TEST_F(LectureViews, LessonFormulasStayWhole) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    const auto endsWith = [](std::string_view s, std::string_view tail) {
        return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
    };
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(ALIBI_SOURCE_ASSETS) + "/lessons")) {
        auto lesson = loadLesson(entry.path().string());
        ASSERT_TRUE(lesson) << entry.path();
        for (std::size_t s = 0; s < lesson->steps.size(); ++s) {
            for (float scale : {0.45f, 0.6f, 0.75f, 1.0f}) {
                for (float width = 500; width <= 1280; width += 5) {
                    const auto lines = lessonLines(lesson->steps[s].text, scale, width);
                    for (std::size_t l = 0; l < lines.size(); ++l) {
                        const std::string_view line = lines[l].text;
                        ++checked;
                        if (!lines[l].endsParagraph) {
                            // An operator standing alone; a path's '/' ("scripts/" |
                            // "make_example_attention.py", a word wider than the line) is no operator.
                            for (std::string_view op : {" =", " ≈", " /"})
                                EXPECT_FALSE(endsWith(line, op))
                                    << lesson->title << " step " << s + 1 << " at " << width << " px, scale " << scale
                                    << ": '" << line << "' | '" << lines[l + 1].text << "'";
                        }
                        if (l > 0 && !lines[l - 1].endsParagraph) {
                            for (std::string_view op : {"=", "≈"})
                                EXPECT_FALSE(line.starts_with(op))
                                    << lesson->title << " step " << s + 1 << " at " << width << " px, scale " << scale
                                    << ": '" << lines[l - 1].text << "' | '" << line << "'";
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 1000);
}

TEST_F(LectureViews, LessonTextBreaksOnlyAtSpaces) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    ImGuiIO& io = ImGui::GetIO();
    ASSERT_EQ(io.Fonts->Fonts.Size, 2);
    ImFont* font = io.Fonts->Fonts[1];

    int imguiSplits = 0;
    int checkedLines = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(ALIBI_SOURCE_ASSETS) + "/lessons")) {
        auto lesson = loadLesson(entry.path().string());
        ASSERT_TRUE(lesson) << entry.path();
        for (const LessonStep& step : lesson->steps) {
            // As the panel wraps it: the core's keepFormulasWhole puts U+00A0 where a space must
            // not break (LessonFormulasStayWhole checks that it does).
            const std::string text = explore::keepFormulasWhole(step.text);
            for (float scale : {0.6f, 0.75f, 1.0f}) {
                for (float width = 300; width <= 1500; width += 7) {
                    const auto lines = lessonLines(text, scale, width);
                    std::size_t at = 0;  // where the next line starts in the text (the lines are its pieces)
                    for (const explore::WrappedLine& line : lines) {
                        ++checkedLines;
                        at = text.find(line.text, at);
                        ASSERT_NE(at, std::string::npos) << "'" << line.text << "' is not a piece of the text";
                        const auto end = at + line.text.size();
                        at = end;
                        // At a space; or, inside a run wider than the whole line (the core's
                        // wrapLines), at one of its no-break spaces or after a '/', '|', '-', '('
                        // or en dash, never inside a number or a name.
                        const auto wordStart = text.rfind(' ', end) == std::string::npos ? 0 : text.rfind(' ', end) + 1;
                        const auto wordEnd = std::min(text.find_first_of(" \n", end), text.size());
                        const float size = font->FontSize * scale;
                        const bool wideRun =
                            font->CalcTextSizeA(size, FLT_MAX, 0.0f, text.data() + wordStart, text.data() + wordEnd).x >
                            width;
                        const bool atSpace = end == text.size() || text[end] == ' ' || text[end] == '\n';
                        const bool atRunBreak =
                            text.compare(end, 2, "\u00a0") == 0 ||
                            std::string_view("/|-(").find(text[end - 1]) != std::string_view::npos ||
                            (end >= 3 && text.compare(end - 3, 3, "\u2013") == 0);
                        ASSERT_TRUE(atSpace || (wideRun && atRunBreak))
                            << "a line ends inside a word at width " << width << ": '" << line.text << "' | '"
                            << text.substr(end, 12) << "'";
                        // A line of several words fits its width.
                        if (line.text.find(' ') != std::string_view::npos) {
                            EXPECT_LE(font->CalcTextSizeA(size, FLT_MAX, 0.0f, line.text.data(),
                                                          line.text.data() + line.text.size())
                                          .x,
                                      width + 0.5f);
                        }
                    }
                    // ImGui's wrap of the same paragraphs, for the record that the texts can split.
                    std::size_t start = 0;
                    while (start < text.size()) {
                        const std::size_t stop = std::min(text.find('\n', start), text.size());
                        const char* s = text.data() + start;
                        const char* e = text.data() + stop;
                        while (s < e) {
                            const char* next = font->CalcWordWrapPositionA(scale, s, e, width);
                            if (next == s) ++next;
                            if (next < e && next > s && next[-1] == '.' &&
                                std::isdigit(static_cast<unsigned char>(*next)))
                                ++imguiSplits;
                            s = next;
                            while (s < e && *s == ' ') ++s;
                        }
                        start = stop + 1;
                    }
                }
            }
        }
    }
    EXPECT_GT(checkedLines, 10000);
    EXPECT_GT(imguiSplits, 0) << "ImGui's own wrap never split a number: the test texts do not exercise the case";
}

// The legend of the bias and attention plots: every head's label (the core's), whole and clear of
// every other text, at H = 8 and 12; at H = 32 every label or, when the room holds fewer, a note
// saying how many are listed. On a wide screen and on the projector.
TEST_F(LectureViews, CurvePlotsHaveWholeLegends) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    for (bool onProjector : {false, true}) {
        if (onProjector) projector();
        state().view = View::Curves;
        for (int heads : {8, 12, 32}) {
            state().session.attention.bias.slopes.heads = heads;
            settle();
            frame();
            const CurvesResult* curves = m_explorer->model().curves.get();
            ASSERT_NE(curves, nullptr);
            ASSERT_EQ(curves->attention.size(), static_cast<std::size_t>(heads));
            std::set<std::string> labels;
            for (const Series& s : curves->attention) labels.insert(words(s.label));
            for (const Series& s : curves->bias) labels.insert(words(s.label));
            // Where whole names do not fit, the legend lists brief ones ("h3").
            if (heads > 12)
                for (const Series& s : curves->attention) labels.insert(words(briefLegendName(s.label)));
            std::multiset<std::string> drawn;
            int notes = 0;
            for (const TextRun& run : runs()) {
                if (labels.contains(words(run.text))) drawn.insert(words(run.text));
                if (words(run.text).find("of" + std::to_string(heads) + "listed") != std::string::npos) ++notes;
            }
            const std::string where =
                (onProjector ? "1280x720 presentation, H = " : "1600x1000, H = ") + std::to_string(heads);
            if (heads <= 12) {
                // Every head listed (the bias and attention plots' labels are the same words; the
                // lower plot may be scrolled out of view, so one whole legend is asked for).
                for (const Series& s : curves->attention)
                    EXPECT_GE(drawn.count(words(s.label)), 1u) << where << ": " << s.label;
                EXPECT_EQ(notes, 0) << where;
            } else {
                EXPECT_GE(drawn.size(), 8u) << where;
            }
            // No legend entry is cut or overlaps another text.
            for (const LayoutProblem& p : problems())
                EXPECT_FALSE(labels.contains(words(p.text)) || labels.contains(words(p.other)))
                    << where << ": " << p.describe();
        }
    }
}

// A legend with more entries than its room (the core's plan, render/legend_layout.hpp): brief
// names ("h13") first; then the kept entries (a lesson's heads), evenly spaced others from the
// first to the last, and the note's slot; with room, every entry under its whole name.
TEST_F(LectureViews, LegendListsFewerEntriesWithANote) {
    frame();
    std::vector<LegendEntry> entries;
    for (int h = 0; h < 32; ++h) entries.push_back({"head " + std::to_string(h) + " (m = 0.5)", 0, h == 13});
    const float line = ImGui::GetTextLineHeight();
    const LegendLayout brief = legendLayout(entries, ImVec2(900, 14 * line));
    EXPECT_TRUE(brief.brief);
    EXPECT_FALSE(brief.note);
    EXPECT_EQ(brief.shown.size(), entries.size());
    const LegendLayout small = legendLayout(entries, ImVec2(900, 8 * line));
    EXPECT_TRUE(small.note);
    ASSERT_GE(small.columns, 1);
    EXPECT_EQ(static_cast<int>(small.shown.size()), small.rows * small.columns - 1);
    EXPECT_LT(small.shown.size(), entries.size());
    EXPECT_EQ(small.shown.front(), 0);
    EXPECT_EQ(small.shown.back(), 31);
    EXPECT_NE(std::find(small.shown.begin(), small.shown.end(), 13), small.shown.end());
    EXPECT_LE(small.width, 0.45f * 900 + 1);
    const LegendLayout big = legendLayout(entries, ImVec2(900, 40 * line));
    EXPECT_FALSE(big.note);
    EXPECT_FALSE(big.brief);
    EXPECT_EQ(big.shown.size(), entries.size());
    // The height plotHeightForLegend asks for lists every entry.
    const LegendLayout tall = legendLayout(entries, ImVec2(900, plotHeightForLegend(entries, 900, 1e6f)));
    EXPECT_FALSE(tall.note);
    EXPECT_EQ(tall.shown.size(), entries.size());
}

// Lesson 1 step 6 is about attention against distance: on the projector its plot is in view.
TEST_F(LectureViews, LessonOneStepSixShowsTheAttentionPlot) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    ASSERT_NO_FATAL_FAILURE(lessonOneAtStep(6));
    ASSERT_EQ(state().view, View::Curves);
    bool seen = false;
    for (const TextRun& run : runs()) {
        if (words(run.text) != "attentionvsdistance") continue;
        // Inside the window it is drawn in (not scrolled away below its bottom).
        seen = run.min.y >= run.clip.y - 0.5f && run.max.y <= run.clip.w + 0.5f;
    }
    EXPECT_TRUE(seen) << "the plot of attention against distance is not in view";
}

// Lesson 2 step 4 ("alibi_bias_max") and lesson 4 step 2 ("build_alibi_tensor") on the projector:
// an underscore's ink (the lowest of the font's glyphs) clears the next line's tallest glyph by a
// quarter of the font's size at least (kLessonLineClearance; the s40 brief: at 1280x720 they read
// as touching, 4 px apart at 37 px, 0.11 of it, the lines a font size apart). Each pair of lines of the lesson text, as
// the layout check reads them back: the gap from the one's ink bottom to the next one's ink top.
TEST_F(LectureViews, LessonLinesClearEachOther) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    for (const auto& [name, step, word] : {std::tuple{"02-slopes", 4, "alibi_bias_max"},
                                           std::tuple{"04-same-model-different-code", 2, "build_alibi_tensor"}}) {
        projector();
        ASSERT_TRUE(m_explorer->openLesson(name));
        for (int s = 2; s <= step; ++s) ASSERT_TRUE(m_explorer->lessonNext());
        settle();
        frame();
        std::vector<TextRun> lines;
        for (const TextRun& run : runs())
            if (run.window.find("lesson text") != std::string::npos) lines.push_back(run);
        std::sort(lines.begin(), lines.end(), [](const TextRun& a, const TextRun& b) { return a.min.y < b.min.y; });
        ASSERT_GE(lines.size(), 2u) << name;
        bool underscoreAbove = false;  // the word's line has a line under it
        ImFont* font = ImGui::GetIO().Fonts->Fonts[1];
        for (std::size_t n = 0; n + 1 < lines.size(); ++n) {
            const float size = font->FontSize * m_explorer->lessons().shownScale();
            const float gap = lines[n + 1].min.y - lines[n].max.y;
            EXPECT_GE(gap, kLessonLineClearance * size)
                << name << " step " << step << ": '" << lines[n].text << "' over '" << lines[n + 1].text << "', " << gap
                << " px apart at " << size << " px";
            if (lines[n].text.find(word) != std::string::npos) underscoreAbove = true;
        }
        EXPECT_TRUE(underscoreAbove) << name << ": '" << word << "' is not on a line with another under it";
        m_explorer->closeLesson();
        frame();
    }
}

// Lesson 1 step 2 on the projector: the lesson strip leaves the views a wide, short room; the head
// detail takes its whole height (its read-out and notes beside it, not under it), its cells square
// (issue 27: never stretched, not even for their numbers). Its cells zoomed to the cited one for
// their numbers (L7), the whole cells shown leave less than a cell of the height.
TEST_F(LectureViews, HeadDetailGrowsToTheRoom) {
    ASSERT_NO_FATAL_FAILURE(lessonOneAtStep(2));
    ASSERT_EQ(state().view, View::Detail);
    const ScreenRect r = state().detailRect;
    const AppState::DetailCells& cells = state().detailCells;
    ImGuiWindow* views = ImGui::FindWindowByName("Views");
    ASSERT_NE(views, nullptr);
    const float bottom = views->InnerClipRect.Max.y;
    ASSERT_GT(cells.queryCount, 0);
    const float cell = r.height / static_cast<float>(cells.queryCount);
    // The picture reaching the view's bottom (within a cell, and the read-out's three lines and
    // a line of spacing where it goes under the picture: the zoom to the cited cell may take every
    // key at 64 px cells, 3 rows, over the read-out); square cells.
    EXPECT_TRUE(squareCells(r.width, r.height, cells.queryCount, cells.keyCount))
        << r.width << " x " << r.height << " px";
    EXPECT_GE(r.y + r.height, bottom - cell - 4.0f * ImGui::GetTextLineHeightWithSpacing())
        << "picture " << r.height << " px tall";
    EXPECT_GT(r.height + cell, 0.6f * (bottom - views->InnerClipRect.Min.y));
}

// Lesson 1 step 2 on the projector (the s35 review's D7, issue 27 L7): the step quotes the marked
// cell's -1/8 x 8 = -1. Its 16 x 16 square cells are too small for their numbers at 1280x720, so
// the detail zooms to the marked cell [12, 4]: its number, -1.000, in it, its neighbours' in
// theirs, and the shown rows and columns numbered (key 4 need not be counted).
TEST_F(LectureViews, HeadDetailPrintsTheMarkedCellsNumber) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    ASSERT_NO_FATAL_FAILURE(lessonOneAtStep(2));
    ASSERT_EQ(state().view, View::Detail);
    const ScreenRect r = state().detailRect;
    const AppState::DetailCells& cells = state().detailCells;
    ASSERT_TRUE(cells.numbers);
    ASSERT_GT(cells.keyCount, 4);
    ASSERT_GT(cells.queryCount, 1);
    const float cellW = r.width / static_cast<float>(cells.keyCount),
                cellH = r.height / static_cast<float>(cells.queryCount);
    ASSERT_TRUE(squareCells(r.width, r.height, cells.queryCount, cells.keyCount))
        << r.width << " x " << r.height << " px";
    // The cell: query 12 (row), key 4 (column); its value -m (i - j) = -1/8 * 8 = -1.
    const float cellLeft = r.x + static_cast<float>(4 - cells.firstKey) * cellW, cellRight = cellLeft + cellW;
    const float rowMid = r.y + (static_cast<float>(12 - cells.firstQuery) + 0.5f) * cellH;
    bool marked = false, widen = false;
    int rowNumbers = 0, columnNumbers = 0;
    const auto count = [](const std::string& text) {
        std::istringstream in(text);
        int n = 0;
        for (std::string word; in >> word;)
            if (!word.empty() && word.find_first_not_of("0123456789") == std::string::npos) ++n;
        return n;
    };
    std::set<std::string> columns;
    for (const TextRun& run : runs()) {
        const ImVec2 mid((run.min.x + run.max.x) / 2, (run.min.y + run.max.y) / 2);
        // "-1.000" in the cell (the read-back joins a row's numbers into one run: on row 12 only
        // key 4 holds -1).
        if (run.text.find("-1.000") != std::string::npos && std::fabs(mid.y - rowMid) < cellH * 0.5f &&
            run.min.x < cellRight && run.max.x > cellLeft)
            marked = true;
        if (words(run.text).starts_with("Widenthewindow")) widen = true;
        if (mid.x < r.x && mid.y > r.y && mid.y < r.y + r.height) rowNumbers += count(run.text);
        if (run.max.y <= r.y && run.min.y > r.y - 2 * cellH - 4 && mid.x > r.x && mid.x < r.x + r.width) {
            columnNumbers += count(run.text);
            std::istringstream in(run.text);
            for (std::string word; in >> word;) columns.insert(word);
        }
    }
    EXPECT_TRUE(marked) << "no -1 in the marked cell [12, 4]";
    EXPECT_FALSE(widen);
    EXPECT_EQ(rowNumbers, cells.queryCount);
    EXPECT_GE(columnNumbers, std::min<std::int64_t>(cells.keyCount, 8));
    EXPECT_TRUE(columns.contains("4")) << "key 4 numbered";
}

// The s35 review's D8: with a per-head colour scale the grid's subtitle (its per-head note) ran off
// the view's right edge at 1280x720 in presentation mode (the layout check cannot see glyphs ImGui
// does not draw at all); it wraps at spaces, every word shown.
TEST_F(LectureViews, GridSubtitleIsWholeWithAPerHeadScale) {
    if (!shellFonts()) GTEST_SKIP() << kFontFile << " is not installed";
    projector();
    state().session.what = RenderWhat::Attention;
    state().session.scale = ScaleMode::PerHead;
    state().view = View::Grid;
    settle();
    frame();
    const GridResult* grid = m_explorer->model().grid.get();
    ASSERT_NE(grid, nullptr);
    ASSERT_NE(grid->subtitle.find("per-head"), std::string::npos) << grid->subtitle;
    std::string shown;
    for (const TextRun& run : runs()) {
        if (!run.window.starts_with("Views")) continue;
        // Only what is inside the window it is drawn in.
        if (run.max.x <= run.clip.z + 0.5f && run.min.x >= run.clip.x - 0.5f) shown += words(run.text);
    }
    EXPECT_NE(shown.find(words(grid->subtitle)), std::string::npos) << "shown: " << shown;
}

// Issue 27's "ImGui head cells are drawn 1.12 x 2.84 px": the layout check reports a heatmap tile
// whose cells are not square (beyond 2 %, or a pixel's rounding of a small tile), and lets square
// ones be.
TEST_F(LectureViews, LayoutCheckReportsStretchedCells) {
    const auto stretched = [this](ImVec2 size, std::int64_t rows, std::int64_t columns) {
        frame();
        noteHeatmapTile("tile", ImVec2(10, 10), ImVec2(10 + size.x, 10 + size.y), rows, columns);
        int n = 0;
        for (const LayoutProblem& p : problems())
            if (p.kind == LayoutProblem::Kind::StretchedCells) ++n;
        return n;
    };
    EXPECT_EQ(stretched(ImVec2(1.12f * 128, 2.84f * 128), 128, 128), 1);  // the cells
    EXPECT_EQ(stretched(ImVec2(300, 300), 16, 16), 0);
    EXPECT_EQ(stretched(ImVec2(600, 300), 16, 32), 0);  // 16 queries x 32 keys
    EXPECT_EQ(stretched(ImVec2(600, 300), 16, 16), 1);  // the head detail widened for its numbers
    EXPECT_EQ(stretched(ImVec2(305, 300), 16, 16), 0);  // within 2 %
    EXPECT_EQ(stretched(ImVec2(308, 300), 16, 16), 1);
    EXPECT_EQ(stretched(ImVec2(21, 20), 16, 16), 0);  // a pixel's rounding of a 20 px tile
    EXPECT_EQ(stretched(ImVec2(23, 20), 16, 16), 1);
    EXPECT_TRUE(squareCells(0, 0, 16, 16));  // nothing drawn
}

// The head detail's colour bar at Q = 4 (lesson 4 step 5): a gradient of many colours, not one
// flat band per row of the map.
TEST_F(LectureViews, DetailColourBarIsAGradient) {
    state().session.attention.bias.queries = 4;
    state().session.attention.bias.keys = 16;
    state().session.head = 0;
    state().view = View::Detail;
    settle();
    frame();
    const GridResult* detail = m_explorer->model().detail.get();
    ASSERT_NE(detail, nullptr);
    ASSERT_EQ(detail->heatmap.image.height, 4);  // the map: one pixel row per query
    const Image& bar = detail->colorBar;
    std::set<std::uint32_t> colours;
    for (int y = 0; y < bar.height; ++y) {
        const Rgba c = bar.at(0, y);
        colours.insert((std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b);
    }
    EXPECT_GE(colours.size(), 100u) << "the bar has " << colours.size() << " colours";
    // High at the top, low at the bottom: the colour map's ends.
    const Rgba top = colormapColor(state().session.colormap, 1.0), low = colormapColor(state().session.colormap, 0.0);
    EXPECT_EQ(bar.at(0, 0).r, top.r);
    EXPECT_EQ(bar.at(0, bar.height - 1).g, low.g);
}

// xdotool's shift+Right sends Shift down, Right down, Shift up, Right up; when the first three
// land in one frame, Right was seen without Shift (T 100 -> 101, not 128: 4 of 16 trials).
TEST_F(LectureViews, QueuedShiftArrowKeepsItsShift) {
    ImGuiIO& io = ImGui::GetIO();
    {
        InputQueue q;
        q.push(InputEvent::key(kLeftShift, true));
        q.push(InputEvent::key(keys::kRight, true));
        q.push(InputEvent::key(kLeftShift, false));
        q.push(InputEvent::key(keys::kRight, false));
        q.applyFrame(io);
        EXPECT_TRUE(io.KeysDown[keys::kRight]);
        EXPECT_TRUE(io.KeyShift) << "Right was seen without the Shift it was pressed with";
        q.applyFrame(io);
        q.applyFrame(io);
        EXPECT_FALSE(q.pending());
        EXPECT_FALSE(io.KeyShift);
        EXPECT_FALSE(io.KeysDown[keys::kRight]);
    }
    {
        // A key carrying its modifiers (GLFW's mods) with no modifier key event of its own.
        InputQueue q;
        q.push(InputEvent::key(keys::kRight, true, kModShift));
        q.push(InputEvent::key(keys::kRight, false, kModShift));
        q.applyFrame(io);
        EXPECT_TRUE(io.KeyShift);
        q.applyFrame(io);
        EXPECT_FALSE(io.KeyShift);
        // Shift+Right then a plain Right in one batch: each press with its own modifiers.
        q.push(InputEvent::key(kLeftShift, true, 0));
        q.push(InputEvent::key(keys::kRight, true, kModShift));
        q.push(InputEvent::key(keys::kRight, false, kModShift));
        q.push(InputEvent::key(kLeftShift, false, kModShift));
        q.push(InputEvent::key(keys::kRight, true, 0));
        q.push(InputEvent::key(keys::kRight, false, 0));
        std::vector<bool> shiftAtPress;
        for (int f = 0; f < 8 && q.pending(); ++f) {
            const bool wasDown = io.KeysDown[keys::kRight];
            q.applyFrame(io);
            if (!wasDown && io.KeysDown[keys::kRight]) shiftAtPress.push_back(io.KeyShift);
        }
        EXPECT_EQ(shiftAtPress, (std::vector<bool>{true, false}));
    }

    // End to end, as the reviewer did: T typed as 100, then shift+Right's four events in one
    // slow frame: T becomes 128.
    ASSERT_TRUE(typeIntoSlider("T (queries)", "100"));
    press(kKeyEnter);
    settle();
    ASSERT_EQ(state().session.attention.bias.queries, 100);
    InputQueue q;
    frame();
    q.push(InputEvent::key(kLeftShift, true, 0));
    q.push(InputEvent::key(keys::kRight, true, kModShift));
    q.push(InputEvent::key(kLeftShift, false, kModShift));
    q.push(InputEvent::key(keys::kRight, false, 0));
    for (int f = 0; f < 6; ++f) {
        q.applyFrame(io);
        frame();
    }
    EXPECT_EQ(state().session.attention.bias.queries, 128);
}

// Lesson 5 step 2 quotes the fit table's numbers: the table fills itself (in the background, with
// the view's progress), with the configured m the lesson pairs.
TEST_F(LectureViews, LessonFitTableFillsItself) {
    ASSERT_TRUE(m_explorer->openLesson("05-reading-a-real-model"));
    settle();
    ASSERT_TRUE(m_explorer->lessonNext());
    ASSERT_EQ(state().view, View::Fit);
    ASSERT_TRUE(framesUntil([&] { return m_explorer->model().maps.fit != nullptr; })) << "the fit never started";
    settle();
    const FitTableResult& fit = *m_explorer->model().maps.fit;
    ASSERT_FALSE(fit.fits.empty());
    EXPECT_FALSE(m_explorer->model().maps.configured.empty()) << "no configured prior paired";
    // Each layer's 8 heads; layer 0's head 0 fits m* = 0.486 (the step's text), against 1/2.
    const HeadFit& h0 = fit.fits.front();
    EXPECT_EQ(h0.layer, 0);
    EXPECT_EQ(h0.head, 0);
    EXPECT_NEAR(h0.slope, 0.486, 0.0005);
    ASSERT_TRUE(h0.configuredSlope.has_value()) << "the configured m column is empty";
    EXPECT_DOUBLE_EQ(*h0.configuredSlope, 0.5);
    ASSERT_EQ(fit.request.configured.size(), 8u);
    EXPECT_DOUBLE_EQ(fit.request.configured[0], 0.5);
    // Going back and forth does not start it again (the table is there).
    ASSERT_TRUE(m_explorer->lessonNext());
    ASSERT_TRUE(m_explorer->lessonPrevious());
    frame();
    EXPECT_FALSE(m_explorer->model().maps.fitRunning);
}

}  // namespace
}  // namespace alibi::imgui
