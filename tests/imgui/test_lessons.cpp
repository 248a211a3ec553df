// Guided lessons in the ImGui explorer (issue 13 item 1): each bundled lesson loads and steps
// through with Page Down, every step sets its parameters and opens its view (or notes the view
// this explorer lacks) and marks its highlight; Page Down works while a number is being typed, the
// arrows only when no widget is in use; "Back to the step" restores the step; a step is one undo.
#include "explorer_fixture.hpp"
#include "lesson_panel.hpp"
#include "panels.hpp"

#include <alibi/explore/lesson_state.hpp>
#include <alibi/io/lesson.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

namespace alibi::imgui {
namespace {

class Lessons : public ExplorerLogic {
public:
    void SetUp() override {
        ::setenv("ALIBI_DATA_DIR", ALIBI_SOURCE_ASSETS, 1);
        ::setenv("XDG_DATA_HOME", "/nonexistent-alibi-test", 1);  // no user lessons
        ExplorerLogic::SetUp();
    }

    // A button of the lesson strip's top bar: its place depends on the step title's width, so
    // the bar's first lines are searched at several columns.
    std::optional<ImVec2> findInBar(const char* label) {
        ImGuiWindow* w = ImGui::FindWindowByName("Lesson");
        if (w == nullptr) return std::nullopt;
        const ImGuiID id = w->GetID(label);
        ImGuiIO& io = ImGui::GetIO();
        for (float fx = 0.05f; fx < 1.0f; fx += 0.015f) {
            for (float y = w->Pos.y + 2; y < w->Pos.y + 3.0f * ImGui::GetFrameHeight(); y += 4.0f) {
                io.MousePos = ImVec2(w->Pos.x + w->Size.x * fx, y);
                frame();
                if (ImGui::GetCurrentContext()->HoveredId == id) return io.MousePos;
            }
        }
        return std::nullopt;
    }
    bool clickInBar(const char* label) {
        const auto at = findInBar(label);
        if (!at) return false;
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = *at;
        io.MouseDown[0] = true;
        frame();
        io.MouseDown[0] = false;
        frame();
        return true;
    }
};

TEST_F(Lessons, EveryLessonStepsThroughWithPageDown) {
    const auto entries = listLessons(lessonFolders());
    ASSERT_GE(entries.size(), 5u);
    for (const LessonEntry& entry : entries) {
        SCOPED_TRACE(entry.name);
        ASSERT_TRUE(entry.error.empty()) << entry.error;
        auto lesson = loadLesson(entry.path);
        ASSERT_TRUE(lesson);
        ASSERT_TRUE(m_explorer->openLesson(entry.name));
        for (std::size_t n = 0; n < lesson->steps.size(); ++n) {
            SCOPED_TRACE("step " + std::to_string(n + 1));
            const LessonStep& step = lesson->steps[n];
            settle();
            ASSERT_EQ(m_explorer->lessons().state()->index(), static_cast<int>(n));
            EXPECT_TRUE(explore::sameParameters(state().session, step.session));
            if (step.explorerView) {
                EXPECT_EQ(state().view, fromExplorerView(*step.explorerView));
                EXPECT_TRUE(state().lessonNote.empty());
            } else if (!step.attentionMaps.empty()) {
                // A step over a model's attention maps opens them at its layer, head and row.
                EXPECT_TRUE(state().lessonNote.empty()) << state().lessonNote;
                EXPECT_EQ(state().view, step.view == "fit-table" ? View::Fit : View::Maps);
                EXPECT_TRUE(framesUntil([&] { return m_explorer->model().maps.file && !state().maps.lessonTarget; }))
                    << "the step's attention maps never opened";
                const auto& file = m_explorer->model().maps.file;
                ASSERT_TRUE(file && file->maps);
                EXPECT_EQ(file->maps->layerInfo()[static_cast<std::size_t>(state().maps.layer)].number, step.layer);
                if (step.session.head >= 0) {
                    EXPECT_EQ(state().maps.head, step.session.head);
                }
                if (step.session.queryRow >= 0) {
                    EXPECT_EQ(state().maps.row, step.session.queryRow);
                }
            } else {
                EXPECT_NE(state().lessonNote.find(step.view), std::string::npos) << state().lessonNote;
            }
            const bool shown = step.explorerView.has_value();
            EXPECT_EQ(state().lessonMark.heads, shown ? step.highlight.heads : std::vector<int>{});
            EXPECT_EQ(state().lessonMark.cellHead,
                      shown && step.highlight.cell ? step.highlight.cellHead(step.session) : -1);
            if (n == 0) {
                EXPECT_TRUE(findInBar("Next >").has_value());
            }
            press(keys::kPageDown);
        }
        EXPECT_EQ(m_explorer->lessons().state()->index(), static_cast<int>(lesson->steps.size()) - 1);
        m_explorer->closeLesson();
        frame();
        EXPECT_FALSE(m_explorer->lessons().active());
    }
}

TEST_F(Lessons, PageKeysWorkWhileTypingArrowsOnlyWhenIdle) {
    ASSERT_TRUE(m_explorer->openLesson("alibi-in-five-steps"));
    settle();
    // A number half typed into H: Page Down still steps, and the typed text is dropped.
    ASSERT_TRUE(typeIntoSlider("H (heads)", "3"));
    ASSERT_TRUE(ImGui::GetIO().WantTextInput);
    press(keys::kPageDown);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 1);
    frame();
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 8);
    press(keys::kPageUp);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 0);
    // Typing again: the arrows move the text cursor, not the lesson.
    ASSERT_TRUE(typeIntoSlider("H (heads)", "1"));
    press(keys::kRight);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 0);
    press(kKeyEscape);
    frame();
    // After a click in the lesson strip the arrows step.
    ASSERT_TRUE(clickInBar("Next >"));
    EXPECT_EQ(m_explorer->lessons().state()->index(), 1);
    press(keys::kRight);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 2);
    press(keys::kLeft);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 1);
}

TEST_F(Lessons, BackToTheStepAndOneUndoPerStep) {
    ASSERT_TRUE(m_explorer->openLesson("slopes"));
    settle();
    ASSERT_TRUE(m_explorer->lessonNext());  // H = 12
    const Session step = m_explorer->lessons().state()->step().session;
    const Session before = m_explorer->history().current();
    ASSERT_TRUE(typeIntoSlider("H (heads)", "5"));
    press(kKeyEnter);
    frame();
    ASSERT_EQ(state().session.attention.bias.slopes.heads, 5);
    EXPECT_TRUE(m_explorer->lessons().state()->changedFrom(state().session));
    ASSERT_TRUE(clickInBar("Back to the step"));
    EXPECT_TRUE(explore::sameParameters(state().session, step));
    EXPECT_FALSE(m_explorer->lessons().state()->changedFrom(state().session));
    m_explorer->undo();
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 5);
    m_explorer->undo();
    EXPECT_TRUE(explore::sameParameters(state().session, before));
}

TEST_F(Lessons, HelpLessonsListsAndOpens) {
    state().showLessons = true;
    frame();
    // The folders are read off the UI thread: frames go on until the list is in.
    for (int i = 0; i < 60000 && m_explorer->lessons().listing(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        frame();
    }
    frame();
    const auto path = resolveLesson("slopes", lessonFolders());
    ASSERT_TRUE(path);
    ASSERT_TRUE(click("Lessons", ("Slopes  (5 steps)##" + *path).c_str(), 0.2f));
    EXPECT_FALSE(state().showLessons);
    ASSERT_TRUE(m_explorer->lessons().active());
    EXPECT_EQ(m_explorer->lessons().state()->lesson().title, "Slopes");
    EXPECT_EQ(state().view, View::Curves);
}

// The area (pixels) of the last frame's triangles drawn in exactly `colour` by the windows whose
// names start with `window` (a window and its child windows, such as a scrolling table).
double colourArea(const char* window, ImU32 colour) {
    const ImDrawData* data = ImGui::GetDrawData();
    double area = 0;
    for (int l = 0; data != nullptr && l < data->CmdListsCount; ++l) {
        const ImDrawList* list = data->CmdLists[l];
        if (list->_OwnerName == nullptr || std::strncmp(list->_OwnerName, window, std::strlen(window)) != 0) continue;
        for (int i = 0; i + 2 < list->IdxBuffer.Size; i += 3) {
            const ImDrawVert& a = list->VtxBuffer[list->IdxBuffer[i]];
            const ImDrawVert& b = list->VtxBuffer[list->IdxBuffer[i + 1]];
            const ImDrawVert& c = list->VtxBuffer[list->IdxBuffer[i + 2]];
            if (a.col != colour || b.col != colour || c.col != colour) continue;
            area += std::abs((b.pos.x - a.pos.x) * (c.pos.y - a.pos.y) - (c.pos.x - a.pos.x) * (b.pos.y - a.pos.y)) / 2;
        }
    }
    return area;
}

// A step's heads and cell reach the stages (the key's bar in every stage, the heads' rows of the
// statistics), Compare (the heads' tiles, the cell) and the extrapolation (the heads' rows of the
// mass table, the curves thick when the shown head is marked), all in the lesson orange.
TEST_F(Lessons, HighlightReachesStagesCompareExtrapolation) {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("alibi-marks-" + std::to_string(::getpid()) + ".lesson.json");
    {
        std::ofstream out(file);
        out << R"({"version": 1, "title": "marks",
          "start": {"bias": {"heads": 8, "queries": 16}, "attention": {"content": "zero"}},
          "steps": [
            {"text": "stages", "view": "stages", "set": {"view": {"head": 2}, "attention": {"query": 12}},
             "highlight": {"heads": [2, 5], "cell": [12, 4]}},
            {"text": "stages, another row", "view": "stages", "set": {"attention": {"query": 11}}},
            {"text": "compare", "view": "compare", "highlight": {"heads": [1, 3], "cell": [12, 4]}},
            {"text": "compare, no mark", "view": "compare"},
            {"text": "extrapolation", "view": "extrapolation", "set": {"view": {"train_length": 8}},
             "highlight": {"heads": [2]}},
            {"text": "extrapolation, no mark", "view": "extrapolation"}
          ]})";
    }
    ASSERT_TRUE(m_explorer->openLesson(file.string()));
    std::filesystem::remove(file);
    settle();
    ASSERT_EQ(state().view, View::Stages);
    // Four orange bars (one per stage; stage 1 is all zero, so its mark is the column frame).
    const double stagesMarked = colourArea("Views", kLessonColor);
    EXPECT_GT(stagesMarked, 4 * 40.0);
    EXPECT_GT(colourArea("Per-head statistics", kLessonRowColor), 2 * 100.0);  // rows of heads 2 and 5
    ASSERT_TRUE(m_explorer->lessonNext());  // row 11: the cell is not in the row shown, no heads
    settle();
    EXPECT_EQ(colourArea("Views", kLessonColor), 0.0);
    EXPECT_EQ(colourArea("Per-head statistics", kLessonRowColor), 0.0);

    ASSERT_TRUE(m_explorer->lessonNext());
    settle();
    ASSERT_EQ(state().view, View::Compare);
    const double compareMarked = colourArea("Views", kLessonColor);
    EXPECT_GT(compareMarked, 500.0);  // two tile outlines and a cell frame
    ASSERT_TRUE(m_explorer->lessonNext());
    settle();
    EXPECT_EQ(colourArea("Views", kLessonColor), 0.0);

    ASSERT_TRUE(m_explorer->lessonNext());
    settle();
    ASSERT_EQ(state().view, View::Extrapolation);
    ASSERT_EQ(detailHead(state().session), 2);
    const ImU32 firstCurve = headColor(0, 5);  // T = L, the first of five lengths
    const double thick = colourArea("Views", firstCurve);
    EXPECT_GT(colourArea("Views", kLessonRowColor), 100.0);  // head 2's row
    ASSERT_TRUE(m_explorer->lessonNext());
    settle();
    const double thin = colourArea("Views", firstCurve);
    EXPECT_GT(thin, 0.0);
    EXPECT_GT(thick, 3 * thin);
    EXPECT_EQ(colourArea("Views", kLessonRowColor), 0.0);
}

// Lesson 5 over a model's attention maps (the core's LessonMarkScope::AttentionMaps): step 2
// marks layer 0's heads 0-3 in the fit table, step 3 frames cell [63, 0] of layer 1's head 4 in
// the head picture; the explorer's own views mark nothing meanwhile.
TEST_F(Lessons, LessonFiveMarksTheMapsViews) {
    ASSERT_TRUE(m_explorer->openLesson("05-reading-a-real-model"));
    settle();
    ASSERT_TRUE(m_explorer->lessonNext());
    ASSERT_TRUE(framesUntil([&] { return m_explorer->model().maps.file && !state().maps.lessonTarget; }));
    state().maps.runFit = true;  // "Fit every layer"
    ASSERT_TRUE(framesUntil([&] { return m_explorer->model().maps.fit != nullptr; }));
    settle();
    ASSERT_EQ(state().view, View::Fit);
    EXPECT_EQ(state().maps.lessonMark.heads, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(state().maps.lessonLayer, 0);
    EXPECT_TRUE(state().lessonMark.empty());
    // Four rows in the lesson orange (each at least a text line tall and a few columns wide).
    const double rows = colourArea("Views", kLessonRowColor);
    const float line = ImGui::GetTextLineHeight();
    EXPECT_GT(rows, 4 * line * 200.0) << rows;
    EXPECT_LT(rows, 6 * (line + 8) * 4000.0) << rows;

    ASSERT_TRUE(m_explorer->lessonNext());
    ASSERT_TRUE(framesUntil([&] { return !state().maps.lessonTarget; }));
    settle();
    ASSERT_TRUE(framesUntil([&] {
        const auto& head = m_explorer->model().maps.head;
        return head && head->request.layer == 1 && head->request.head == 4 && !m_explorer->model().maps.headPending;
    }));
    frame();
    EXPECT_TRUE(state().maps.lessonMark.marksCell(4, 63, 0));
    EXPECT_EQ(colourArea("Views", kLessonRowColor), 0.0);  // step 2's rows are gone
    EXPECT_GT(colourArea("Views", kLessonColor), 20.0);    // the cell's frame
    m_explorer->closeLesson();
    frame();
    EXPECT_EQ(colourArea("Views", kLessonColor), 0.0);
}

// Issue 25: a 64-step lesson in the user's folder whose steps name a file with a 16 MiB header
// kept the window black for more than 100 s: Help > Lessons loaded every lesson, opening every
// step's file, on the UI thread. The list now reads titles only, off the UI thread; the lesson
// opens without reading its steps' files; the step that shows the file opens it on a worker and
// says what is wrong with it.
TEST_F(Lessons, ALessonNamingALargeHeaderFileListsAndOpensWithoutReadingIt) {
    char pattern[] = "/tmp/alibi-imgui-lessons-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    const std::filesystem::path home(pattern);
    const auto folder = home / "alibi-explorer" / "lessons";
    std::filesystem::create_directories(folder);
    const auto big = home / "big-header.safetensors";
    {
        std::ofstream out(big, std::ios::binary);
        const std::uint64_t n = std::uint64_t{16} << 20;
        for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
        const std::string head = R"({"__metadata__": {"x": ")";
        out << head << std::string(n - head.size() - 1, 'a') << '{';  // the string never closes
    }
    std::string steps;
    for (int i = 0; i < 64; ++i)
        steps += std::string(i ? "," : "") + R"({"text": "Step.", "view": "attention-grid", "attention_maps": ")" +
                 big.string() + R"("})";
    std::ofstream(folder / "zz-big.lesson.json")
        << R"({"version": 1, "title": "Big headers", "steps": [)" << steps << "]}";
    ::setenv("XDG_DATA_HOME", home.c_str(), 1);

    state().showLessons = true;
    frame();
    for (int i = 0; i < 60000 && m_explorer->lessons().listing(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        frame();
    }
    const auto& entries = m_explorer->lessons().entries();
    const auto listed =
        std::find_if(entries.begin(), entries.end(), [](const LessonEntry& e) { return e.title == "Big headers"; });
    ASSERT_NE(listed, entries.end());
    EXPECT_TRUE(listed->error.empty()) << listed->error;
    EXPECT_EQ(listed->steps, 64u);
    state().showLessons = false;

    ASSERT_TRUE(m_explorer->openLesson((folder / "zz-big.lesson.json").string()));
    EXPECT_EQ(state().view, View::Maps);
    settle();
    EXPECT_FALSE(m_explorer->model().maps.file);
    EXPECT_NE(state().errorPopup.find(big.filename().string()), std::string::npos) << state().errorPopup;
    state().errorPopup.clear();
    EXPECT_TRUE(m_explorer->lessonNext());
    settle();
    std::filesystem::remove_all(home);
}

TEST_F(Lessons, UnknownLessonNamesTheOnesThereAre) {
    auto missing = m_explorer->openLesson("rope");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("alibi-in-five-steps"), std::string::npos);
    EXPECT_FALSE(m_explorer->lessons().active());
}

}  // namespace
}  // namespace alibi::imgui
