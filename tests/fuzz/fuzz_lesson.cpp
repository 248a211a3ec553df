// libFuzzer target for the lesson reader (*.lesson.json): any text must give a lesson or a clean
// error naming the file, never a crash, a hang or a leak. Every step of a lesson that parses
// holds a valid session, its highlight lies inside that step's tensor, and applying an empty
// partial session to it changes nothing (a step is exactly what the reader computed).
#include <alibi/io/lesson.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto lesson = alibi::parseLesson(text, "fuzz.lesson.json");
    if (!lesson) {
        if (lesson.error().message.find("fuzz.lesson.json") == std::string::npos) __builtin_trap();
        return 0;
    }
    for (const alibi::LessonStep& step : lesson->steps) {
        if (!alibi::validateSession(step.session)) __builtin_trap();
        for (int h : step.highlight.heads)
            if (h < 0 || h >= step.session.attention.bias.slopes.heads) __builtin_trap();
        auto same = alibi::applyPartialSession(step.session, "{}");
        if (!same || !(*same == step.session)) __builtin_trap();
    }
    return 0;
}
