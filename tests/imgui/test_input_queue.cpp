// Input is never dropped (issue 27): with ImGui 1.86's sampled key state, two Page Up presses
// 30 ms apart inside one slow frame moved the lesson one step, and a click shorter than a frame
// was lost. The shell's queue (app/imgui/input_queue.hpp) feeds ImGui one state change per frame;
// here the events a slow frame's glfwPollEvents would deliver are queued at once, with the same
// 30 ms between them, and the Explorer must handle every one.
#include "explorer_fixture.hpp"
#include "input_queue.hpp"

#include <alibi/explore/length_control.hpp>
#include <alibi/explore/lesson_state.hpp>

#include <chrono>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace alibi::imgui {
namespace {

class QueuedInput : public ExplorerLogic {
public:
    void SetUp() override {
        ::setenv("ALIBI_DATA_DIR", ALIBI_SOURCE_ASSETS, 1);
        ::setenv("XDG_DATA_HOME", "/nonexistent-alibi-test", 1);  // no user lessons
        ExplorerLogic::SetUp();
    }

    // A frame as the shell runs it: the queue's share of the input first.
    void queuedFrame() {
        m_queue.applyFrame(ImGui::GetIO());
        ImGui::NewFrame();
        m_queue.applyRepeats(ImGui::GetIO());
        m_explorer->frame();
        ImGui::Render();
        m_explorer->framePresented();
    }
    // Frames until the queue is empty (each takes at least one event), and one more.
    int drain() {
        int frames = 0;
        while (m_queue.pending() && frames < 100) {
            queuedFrame();
            ++frames;
        }
        queuedFrame();
        return frames;
    }
    // A "slow frame": a frame, then the events a person makes while the next one would still be
    // drawing, `gapMs` apart in real time.
    void slowFrameWith(std::initializer_list<InputEvent> events, int gapMs) {
        queuedFrame();
        for (const InputEvent& e : events) {
            m_queue.push(e);
            std::this_thread::sleep_for(std::chrono::milliseconds(gapMs / 2));
        }
    }

    InputQueue m_queue;
};

TEST_F(QueuedInput, OneStateChangePerKeyPerFrame) {
    ImGuiIO& io = ImGui::GetIO();
    InputQueue q;
    q.push(InputEvent::key(keys::kPageUp, true));
    q.push(InputEvent::key(keys::kPageUp, false));
    q.push(InputEvent::key(keys::kPageUp, true));
    q.push(InputEvent::key(keys::kPageUp, false));
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_TRUE(io.KeysDown[keys::kPageUp]);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_FALSE(io.KeysDown[keys::kPageUp]);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_TRUE(io.KeysDown[keys::kPageUp]);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_FALSE(q.pending());
    // Different keys change in the same frame; Shift is a modifier from the keys' state.
    q.push(InputEvent::key(340, true));
    q.push(InputEvent::key(keys::kRight, true));
    EXPECT_EQ(q.applyFrame(io), 2u);
    EXPECT_TRUE(io.KeyShift);
    EXPECT_TRUE(io.KeysDown[keys::kRight]);
    q.push(InputEvent::key(340, false));
    q.push(InputEvent::key(keys::kRight, false));
    q.applyFrame(io);
    EXPECT_FALSE(io.KeyShift);
    // A press at one place, a move and the release at another (a quick drag): the cursor arrives
    // a frame before the press, the press is seen where it happened in a frame of its own, the
    // move after it waits for the next frame and the release for the one after.
    q.push(InputEvent::move(10, 20));
    q.push(InputEvent::button(0, true));
    q.push(InputEvent::move(300, 400));
    q.push(InputEvent::button(0, false));
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_FALSE(io.MouseDown[0]);
    EXPECT_EQ(io.MousePos.x, 10.0f);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_TRUE(io.MouseDown[0]);
    EXPECT_EQ(io.MousePos.x, 10.0f);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_TRUE(io.MouseDown[0]);
    EXPECT_EQ(io.MousePos.x, 300.0f);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_FALSE(io.MouseDown[0]);
    // A move to where the cursor already is does not hold the press back.
    q.push(InputEvent::move(300, 400));
    q.push(InputEvent::button(0, true));
    EXPECT_EQ(q.applyFrame(io), 2u);
    EXPECT_TRUE(io.MouseDown[0]);
    q.push(InputEvent::button(0, false));
    q.applyFrame(io);
    // A click (press and release at one place): down for one frame, up the next.
    q.push(InputEvent::button(0, true));
    q.push(InputEvent::button(0, false));
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_TRUE(io.MouseDown[0]);
    EXPECT_EQ(q.applyFrame(io), 1u);
    EXPECT_FALSE(io.MouseDown[0]);
    EXPECT_FALSE(q.pending());
}

TEST_F(QueuedInput, TwoPageUpPresses30msApartInOneSlowFrameMoveTwoSteps) {
    ASSERT_TRUE(m_explorer->openLesson("alibi-in-five-steps"));
    settle();
    for (int i = 0; i < 3; ++i) press(keys::kPageDown);
    ASSERT_EQ(m_explorer->lessons().state()->index(), 3);
    // Both presses and releases arrive while one frame is drawing (as after a 480 ms frame).
    slowFrameWith({InputEvent::key(keys::kPageUp, true), InputEvent::key(keys::kPageUp, false),
                   InputEvent::key(keys::kPageUp, true), InputEvent::key(keys::kPageUp, false)},
                  30);
    EXPECT_EQ(drain(), 4);
    EXPECT_EQ(m_explorer->lessons().state()->index(), 1);
    // Sampled once per frame instead (ImGui 1.86's own way), the same two presses are one
    // "down" frame: one step. This is what the queue is for.
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[keys::kPageDown] = true;
    frame();
    io.KeysDown[keys::kPageDown] = false;
    frame();
    EXPECT_EQ(m_explorer->lessons().state()->index(), 2);
}

// The s35 flake (imgui_input_shift_slow_frames under load): xdotool's shift+Page Down is Shift
// down, Page Down down, Shift up, Page Down up, a few ms apart. When a slow frame's poll fell
// between the Shift up and the Page Down up, the next frame saw Page Down still held, without
// Shift, 300 ms after its press by the frames' clock: past io.KeyRepeatDelay (0.275 s), so ImGui
// repeated the key and the lesson stepped. A key held over a slow frame is one press; a key
// repeats when the system sends its repeats (GLFW_REPEAT), never because a frame was slow.
TEST_F(QueuedInput, AKeyHeldOverASlowFrameIsOnePress) {
    ASSERT_TRUE(m_explorer->openLesson("alibi-in-five-steps"));
    settle();
    ImGuiIO& io = ImGui::GetIO();
    const auto step = [this] { return m_explorer->lessons().state()->index(); };
    ASSERT_EQ(step(), 0);
    io.DeltaTime = 0.3f;  // every frame 300 ms, as ALIBI_SLOW_FRAME_MS=300 makes them
    constexpr int kShift = 340;
    m_queue.push(InputEvent::key(kShift, true, 0));
    m_queue.push(InputEvent::key(keys::kPageDown, true, kModShift));
    queuedFrame();
    m_queue.push(InputEvent::key(kShift, false, kModShift));
    queuedFrame();  // Shift released, Page Down held (its release not polled yet)
    queuedFrame();
    m_queue.push(InputEvent::key(keys::kPageDown, false, 0));
    drain();
    EXPECT_EQ(step(), 0) << "shift+Page Down stepped the lesson (held over a slow frame, seen as a repeat)";
    // A plain Page Down held over two slow frames: one step.
    m_queue.push(InputEvent::key(keys::kPageDown, true, 0));
    queuedFrame();
    queuedFrame();
    queuedFrame();
    m_queue.push(InputEvent::key(keys::kPageDown, false, 0));
    drain();
    EXPECT_EQ(step(), 1);
    // The system's repeats step it, each frame's repeats once (a held key's repeats come every
    // 40 ms or so: one step each would run on long after the key's release).
    m_queue.push(InputEvent::key(keys::kPageDown, true, 0));
    queuedFrame();
    EXPECT_EQ(step(), 2);
    m_queue.push(InputEvent::keyRepeat(keys::kPageDown, 0));
    queuedFrame();
    EXPECT_EQ(step(), 3);
    for (int n = 0; n < 7; ++n) m_queue.push(InputEvent::keyRepeat(keys::kPageDown, 0));
    queuedFrame();
    EXPECT_EQ(step(), 4);
    EXPECT_FALSE(m_queue.pending());
    queuedFrame();  // held, no repeat
    m_queue.push(InputEvent::key(keys::kPageDown, false, 0));
    drain();
    EXPECT_EQ(step(), 4);
    io.DeltaTime = 1.0f / 60.0f;
}

TEST_F(QueuedInput, AQuickClickOnAMenuIsNotLost) {
    frame();
    // The View menu's place in the main menu bar: found by hovering, as a person aims.
    ImGuiWindow* bar = ImGui::FindWindowByName("##MainMenuBar");
    ASSERT_NE(bar, nullptr);
    // BeginMenuBar pushes "##menubar" onto the ID stack before the menus' labels.
    const ImGuiID viewMenu = ImHashStr("View", 0, bar->GetID("##menubar"));
    std::optional<ImVec2> at;
    for (float x = bar->Pos.x + 2; x < bar->Pos.x + bar->Size.x && !at; x += 4) {
        m_queue.push(InputEvent::move(x, bar->Pos.y + bar->Size.y / 2));
        drain();
        if (ImGui::GetCurrentContext()->HoveredId == viewMenu) at = ImVec2(x, bar->Pos.y + bar->Size.y / 2);
    }
    ASSERT_TRUE(at.has_value());
    // Press and release inside one slow frame (a 20 ms click): the menu opens.
    slowFrameWith({InputEvent::button(0, true), InputEvent::button(0, false)}, 20);
    drain();
    const ImGuiWindow* menu = ImGui::FindWindowByName("##Menu_00");
    ASSERT_NE(menu, nullptr) << "the View menu did not open";
    EXPECT_TRUE(menu->Active);
}

// The s35 review's N2: a click on one tab, then a move onto another and a click there, all while
// one frame draws: the view ends on the second tab. ImGui 1.86's tabs ignore a press unless the
// previous frame hovered nothing or the same tab; the queue lets the cursor arrive a frame before.
TEST_F(QueuedInput, QuickClicksOnTwoTabsEndOnTheSecond) {
    frame();
    ImGuiTabBar* views = nullptr;
    for (ImGuiTabBar& bar : ImGui::GetCurrentContext()->TabBars.Buf)
        if (bar.Tabs.Size == static_cast<int>(std::size(kAllViews))) views = &bar;
    ASSERT_NE(views, nullptr);
    // The centre of view `view`'s tab (its label ends with "###" and the view's slug).
    const auto tab = [views](View view) -> std::optional<ImVec2> {
        for (const ImGuiTabItem& item : views->Tabs)
            if (std::string_view(views->GetTabName(&item)).ends_with("###" + std::string(viewSlug(view))))
                return ImVec2(views->BarRect.Min.x + item.Offset - views->ScrollingAnim + item.Width / 2,
                              (views->BarRect.Min.y + views->BarRect.Max.y) / 2);
        return std::nullopt;
    };
    const auto extrapolation = tab(View::Extrapolation), detail = tab(View::Detail), stages = tab(View::Stages),
               grid = tab(View::Grid), curves = tab(View::Curves);
    ASSERT_TRUE(extrapolation && detail && stages && grid && curves);
    ASSERT_EQ(state().view, View::Grid);
    slowFrameWith({InputEvent::move(extrapolation->x, extrapolation->y), InputEvent::button(0, true),
                   InputEvent::button(0, false), InputEvent::move(detail->x, detail->y), InputEvent::button(0, true),
                   InputEvent::button(0, false)},
                  30);
    drain();
    frame();
    EXPECT_EQ(state().view, View::Detail);
    for (ImVec2 p : {*stages, *grid, *curves}) {
        m_queue.push(InputEvent::move(p.x, p.y));
        m_queue.push(InputEvent::button(0, true));
        m_queue.push(InputEvent::button(0, false));
    }
    drain();
    frame();
    EXPECT_EQ(state().view, View::Curves);
}

// The fine T control (issue 27): the fine slider is linear over a window of lengths with a pixel
// per value at least, and once a T slider is clicked the arrows step T by 1, Shift+arrows to the
// next power of two (the core's rule, explore/length_control.hpp).
TEST_F(QueuedInput, FineLengthSliderAndArrowKeys) {
    ImGuiWindow* panel = ImGui::FindWindowByName("Parameters");
    ASSERT_NE(panel, nullptr);
    const ImGuiID fine = panel->GetID("T, fine");
    state().session.attention.bias.queries = 1000;
    frame();
    frame();
    const explore::LinearWindow w = state().lengthWindow;
    EXPECT_LE(w.lo, 1000);
    EXPECT_GE(w.hi, 1000);
    ASSERT_TRUE(click("Parameters", "T, fine", 0.3f));
    settle();
    const std::int64_t clicked = state().session.attention.bias.queries;
    EXPECT_EQ(ImGui::GetFocusID(), fine);
    EXPECT_GE(clicked, w.lo);
    EXPECT_LE(clicked, w.hi);
    press(keys::kRight);
    EXPECT_EQ(state().session.attention.bias.queries, clicked + 1);
    press(keys::kLeft);
    press(keys::kLeft);
    EXPECT_EQ(state().session.attention.bias.queries, clicked - 1);
    press(keys::kRight, false, true);
    const std::int64_t up = state().session.attention.bias.queries;
    EXPECT_EQ(up & (up - 1), 0) << up << " is not a power of two";
    EXPECT_GT(up, clicked - 1);
    EXPECT_LE(up, 2 * (clicked - 1));
    // The slider's window holds the new T (it followed it).
    frame();
    EXPECT_LE(state().lengthWindow.lo, up);
    EXPECT_GE(state().lengthWindow.hi, up);
}

}  // namespace
}  // namespace alibi::imgui
