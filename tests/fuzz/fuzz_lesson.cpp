// libFuzzer target for the lesson reader (*.lesson.json): any text must give a lesson or a clean
// error naming the file, never a crash, a hang or a leak. Every step of a lesson that parses
// holds a valid session, its highlight lies inside that step's tensor, and applying an empty
// partial session to it changes nothing (a step is exactly what the reader computed). No text of a
// lesson that parses holds a bidirectional control or a line/paragraph separator (issue 25).
#include <alibi/io/lesson.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069 (bidirectional controls) and
// U+2028, U+2029 (separators), found by their UTF-8 bytes.
bool holdsRefusedCharacter(std::string_view s) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        const auto a = static_cast<unsigned char>(s[i]), b = static_cast<unsigned char>(s[i + 1]);
        if (a == 0xD8 && b == 0x9C) return true;
        if (i + 2 >= s.size() || a != 0xE2) continue;
        const auto c = static_cast<unsigned char>(s[i + 2]);
        if (b == 0x80 && (c == 0x8E || c == 0x8F || (c >= 0xA8 && c <= 0xAE))) return true;
        if (b == 0x81 && c >= 0xA6 && c <= 0xA9) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto lesson = alibi::parseLesson(text, "fuzz.lesson.json");
    if (!lesson) {
        if (lesson.error().message.find("fuzz.lesson.json") == std::string::npos) __builtin_trap();
        return 0;
    }
    if (holdsRefusedCharacter(lesson->title) || holdsRefusedCharacter(lesson->description)) __builtin_trap();
    for (const alibi::LessonStep& step : lesson->steps) {
        if (holdsRefusedCharacter(step.title) || holdsRefusedCharacter(step.text)) __builtin_trap();
        if (!alibi::validateSession(step.session)) __builtin_trap();
        for (int h : step.highlight.heads)
            if (h < 0 || h >= step.session.attention.bias.slopes.heads) __builtin_trap();
        auto same = alibi::applyPartialSession(step.session, "{}");
        if (!same || !(*same == step.session)) __builtin_trap();
    }
    return 0;
}
