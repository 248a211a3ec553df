// A lesson being shown: which step is current, the parameters that step sets, and whether the
// user has changed them since ("Back to the step" restores them). GUI-neutral: both explorers
// keep one of these and apply `step().session` through their normal edit path (one undo step).
#pragma once

#include <alibi/io/lesson.hpp>

#include <string>

namespace alibi::explore {

// The same parameters, whatever the window shows: everything a step may set except the view,
// the render size and the memory budget (Compare's B unset and the default B are the same).
[[nodiscard]] bool sameParameters(const Session& a, const Session& b);

class LessonState {
public:
    explicit LessonState(Lesson lesson) : m_lesson(std::move(lesson)) {}

    [[nodiscard]] const Lesson& lesson() const { return m_lesson; }
    [[nodiscard]] int index() const { return m_index; }
    [[nodiscard]] int count() const { return static_cast<int>(m_lesson.steps.size()); }
    [[nodiscard]] const LessonStep& step() const { return m_lesson.steps[static_cast<std::size_t>(m_index)]; }
    [[nodiscard]] bool atFirst() const { return m_index == 0; }
    [[nodiscard]] bool atLast() const { return m_index + 1 >= count(); }

    // Moves to another step; false (and no move) past either end.
    bool next() { return go(m_index + 1); }
    bool previous() { return go(m_index - 1); }
    bool go(int index) {
        if (index < 0 || index >= count()) return false;
        m_index = index;
        return true;
    }

    // "3 / 7".
    [[nodiscard]] std::string counter() const;
    // The user changed the parameters the current step set (Back to the step would restore them).
    [[nodiscard]] bool changedFrom(const Session& current) const { return !sameParameters(current, step().session); }

private:
    Lesson m_lesson;
    int m_index = 0;
};

}  // namespace alibi::explore
