// Tests for <alibi/explore/lesson_state.hpp>: stepping stops at both ends, the counter, and
// "changed since the step" ignoring what the window alone shows.
#include <alibi/explore/lesson_state.hpp>
#include <alibi/explore/snapshot.hpp>

#include <gtest/gtest.h>

using namespace alibi;

namespace {

Lesson threeSteps() {
    auto lesson = parseLesson(R"({"version": 1, "title": "Three", "steps": [
        {"text": "one", "view": "grid"},
        {"text": "two", "view": "curves", "set": {"bias": {"heads": 12}}},
        {"text": "three", "view": "detail", "set": {"view": {"head": 3}}}]})",
                              "three.lesson.json");
    EXPECT_TRUE(lesson) << lesson.error().message;
    return *lesson;
}

}  // namespace

TEST(LessonState, StepsStopAtBothEnds) {
    explore::LessonState state(threeSteps());
    EXPECT_EQ(state.counter(), "1 / 3");
    EXPECT_TRUE(state.atFirst());
    EXPECT_FALSE(state.previous());
    EXPECT_TRUE(state.next());
    EXPECT_TRUE(state.next());
    EXPECT_EQ(state.counter(), "3 / 3");
    EXPECT_TRUE(state.atLast());
    EXPECT_FALSE(state.next());
    EXPECT_EQ(state.index(), 2);
    EXPECT_EQ(state.step().session.attention.bias.slopes.heads, 12);  // step 2's set carries on
    EXPECT_EQ(state.step().session.head, 3);
    EXPECT_FALSE(state.go(7));
    EXPECT_TRUE(state.go(0));
    EXPECT_EQ(state.step().session.attention.bias.slopes.heads, 8);
}

TEST(LessonState, ChangedIgnoresWhatOnlyTheWindowShows) {
    explore::LessonState state(threeSteps());
    Session current = state.step().session;
    EXPECT_FALSE(state.changedFrom(current));
    current.view = ExplorerView::Stages;  // another tab
    current.width = 333;
    current.compare = explore::geometricCompare();  // the default B, written out
    EXPECT_FALSE(state.changedFrom(current));
    current.attention.bias.slopes.maxBias = 4;
    EXPECT_TRUE(state.changedFrom(current));
}
