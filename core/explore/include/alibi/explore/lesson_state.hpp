// A lesson being shown: which step is current, the parameters that step sets, and whether the
// user has changed them since ("Back to the step" restores them). GUI-neutral: both explorers
// keep one of these and apply `step().session` through their normal edit path (one undo step).
#pragma once

#include <alibi/io/lesson.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace alibi::explore {

// The same parameters, whatever the window shows: everything a step may set except the view,
// the render size and the memory budget (Compare's B unset and the default B are the same).
[[nodiscard]] bool sameParameters(const Session& a, const Session& b);

// What a step points at, as the views draw it: heads (tiles outlined, table rows marked, curves
// emphasised) and one cell (query, key) of cellHead (-1: no cell). Both explorers draw exactly
// this; neither reads a step's highlight itself.
struct LessonMark {
    std::vector<int> heads;
    int cellHead = -1;
    std::int64_t query = 0, key = 0;

    [[nodiscard]] bool empty() const { return heads.empty() && cellHead < 0; }
    [[nodiscard]] bool marksHead(int head) const { return std::find(heads.begin(), heads.end(), head) != heads.end(); }
    [[nodiscard]] bool marksCell(int head, std::int64_t q, std::int64_t k) const {
        return cellHead >= 0 && head == cellHead && q == query && k == key;
    }
    friend bool operator==(const LessonMark&, const LessonMark&) = default;
};

// Which views a mark is for. A step's heads and cell belong to the view it opens: the
// explorer's own views (grid, detail, curves, stages, compare, extrapolation) for a step that
// opens one of them, a model's attention-map views (grid, head, distance and rows, fit table)
// for a step over attention maps. The other views get an empty mark, so a model's head 4 is
// never outlined in the ALiBi grid beside it.
enum class LessonMarkScope { ExplorerViews, AttentionMaps };
[[nodiscard]] LessonMark lessonMark(const LessonStep& step, LessonMarkScope scope);

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
