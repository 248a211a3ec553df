// Step bookkeeping of a lesson being shown (see lesson_state.hpp).
#include <alibi/explore/lesson_state.hpp>
#include <alibi/explore/snapshot.hpp>

#include <fmt/format.h>

namespace alibi::explore {

bool sameParameters(const Session& a, const Session& b) {
    return a.attention == b.attention && a.queryRow == b.queryRow && a.what == b.what && a.head == b.head &&
           a.colormap == b.colormap && a.scale == b.scale && a.trainLength == b.trainLength && a.batch == b.batch &&
           a.batchRow == b.batchRow && a.compare.value_or(geometricCompare()) == b.compare.value_or(geometricCompare());
}

LessonMark lessonMark(const LessonStep& step, LessonMarkScope scope) {
    const bool maps = !step.explorerView && !step.attentionMaps.empty();
    if (maps != (scope == LessonMarkScope::AttentionMaps)) return {};
    LessonMark mark;
    mark.heads = step.highlight.heads;
    if (step.highlight.cell) {
        mark.cellHead = step.highlight.cellHead(step.session);
        mark.query = step.highlight.cell->first;
        mark.key = step.highlight.cell->second;
    }
    return mark;
}

std::string LessonState::counter() const {
    return fmt::format("{} / {}", m_index + 1, count());
}

}  // namespace alibi::explore
