// Tests for <alibi/io/lesson.hpp>: every lesson in assets/lessons loads and each step's parameters
// are valid; a partial session changes only the keys it names; steps build on each other; every
// kind of bad lesson is refused with a message naming the file, the step and the field.
#include <alibi/io/lesson.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace alibi;

namespace {

const std::filesystem::path kLessons = ALIBI_LESSON_DIR;

std::string lessonWith(const std::string& steps, const std::string& extra = "") {
    return R"({"version": 1, "title": "T", )" + extra + R"("steps": )" + steps + "}";
}

void expectError(const std::string& json, std::initializer_list<const char*> fragments) {
    auto lesson = parseLesson(json, "my.lesson.json");
    ASSERT_FALSE(lesson) << "accepted: " << json;
    EXPECT_NE(lesson.error().message.find("my.lesson.json"), std::string::npos) << lesson.error().message;
    for (const char* f : fragments)
        EXPECT_NE(lesson.error().message.find(f), std::string::npos) << lesson.error().message << "\n  wanted: " << f;
}

}  // namespace

TEST(Lesson, EveryBundledLessonLoadsAndEveryStepIsValid) {
    const auto entries = listLessons({kLessons});
    ASSERT_GE(entries.size(), 5u);
    for (const auto& entry : entries) {
        SCOPED_TRACE(entry.path);
        EXPECT_TRUE(entry.error.empty()) << entry.error;
        EXPECT_FALSE(entry.description.empty());
        auto lesson = loadLesson(entry.path);
        ASSERT_TRUE(lesson) << lesson.error().message;
        EXPECT_FALSE(lesson->title.empty());
        EXPECT_FALSE(lesson->description.empty());
        for (std::size_t n = 0; n < lesson->steps.size(); ++n) {
            const LessonStep& step = lesson->steps[n];
            SCOPED_TRACE("step " + std::to_string(n + 1));
            EXPECT_TRUE(validateSession(step.session)) << validateSession(step.session).error().message;
            EXPECT_FALSE(step.text.empty());
            EXPECT_LE(step.text.size(), kMaxLessonTextBytes);
            const auto& ids = lessonViewIds();
            EXPECT_NE(std::find(ids.begin(), ids.end(), step.view), ids.end());
            EXPECT_EQ(step.session.view, step.explorerView);
            for (int h : step.highlight.heads) EXPECT_LT(h, step.session.attention.bias.slopes.heads);
            if (!step.attentionMaps.empty()) {
                EXPECT_TRUE(std::filesystem::is_regular_file(step.attentionMaps));
            }
        }
    }
}

TEST(Lesson, TheFiveLessonsTheIssueAsksFor) {
    for (const char* name : {"alibi-in-five-steps", "slopes", "train-short-test-long", "same-model-different-code",
                             "reading-a-real-model"}) {
        auto path = resolveLesson(name, {kLessons});
        ASSERT_TRUE(path) << path.error().message;
        EXPECT_TRUE(loadLesson(*path)) << *path;
    }
}

TEST(Lesson, FiveStepsShowsWhatItsTextSays) {
    auto lesson = loadLesson((kLessons / "01-alibi-in-five-steps.lesson.json").string());
    ASSERT_TRUE(lesson) << lesson.error().message;
    ASSERT_EQ(lesson->steps.size(), 6u);
    // Step 2: head 2 has m = 1/8, and the marked cell (12, 4) holds -1.
    const LessonStep& penalty = lesson->steps[1];
    EXPECT_EQ(penalty.view, "detail");
    auto slopes = computeSlopes(penalty.session.attention.bias.slopes);
    ASSERT_TRUE(slopes);
    EXPECT_EQ((*slopes)[2], 0.125);
    ASSERT_TRUE(penalty.highlight.cell);
    const auto [q, k] = *penalty.highlight.cell;
    EXPECT_EQ(-(*slopes)[2] * static_cast<double>(q - k), -1.0);
    // Step 4's marked cell is in the future of its query (masked).
    const LessonStep& mask = lesson->steps[3];
    ASSERT_TRUE(mask.highlight.cell);
    EXPECT_GT(mask.highlight.cell->second, mask.highlight.cell->first);
    // Steps build on each other: step 5 selects head 0, step 6 goes back to every head.
    EXPECT_EQ(lesson->steps[4].session.head, 0);
    EXPECT_EQ(lesson->steps[4].session.what, RenderWhat::Attention);
    EXPECT_EQ(lesson->steps[5].session.head, -1);
    EXPECT_EQ(lesson->steps[5].session.attention.bias.slopes.heads, 8);
}

TEST(Lesson, PartialSessionChangesOnlyWhatItNames) {
    Session base = defaultSession();
    base.attention.bias.mode = BiasMode::Mpt;
    base.attention.content.seed = 77;
    auto next = applyPartialSession(base, R"({"bias": {"heads": 12}, "view": {"head": 3}})");
    ASSERT_TRUE(next) << next.error().message;
    EXPECT_EQ(next->attention.bias.slopes.heads, 12);
    EXPECT_EQ(next->head, 3);
    EXPECT_EQ(next->attention.bias.mode, BiasMode::Mpt);
    EXPECT_EQ(next->attention.content.seed, 77u);
    EXPECT_EQ(next->attention.bias.queries, base.attention.bias.queries);
    // Slopes imply custom; naming another scheme drops them again.
    auto custom = applyPartialSession(base, R"({"bias": {"heads": 2, "slopes": [0.5, 0.25]}})");
    ASSERT_TRUE(custom) << custom.error().message;
    EXPECT_EQ(custom->attention.bias.slopes.scheme, SlopeScheme::Custom);
    auto back = applyPartialSession(*custom, R"({"bias": {"scheme": "press"}})");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->attention.bias.slopes.scheme, SlopeScheme::Press);
    EXPECT_TRUE(back->attention.bias.slopes.custom.empty());
    // Compare is replaced whole.
    auto compared = applyPartialSession(base, R"({"compare": {"max_bias": 4}})");
    ASSERT_TRUE(compared);
    auto replaced = applyPartialSession(*compared, R"({"compare": {"scheme": "linear"}})");
    ASSERT_TRUE(replaced);
    ASSERT_TRUE(replaced->compare);
    EXPECT_FALSE(replaced->compare->maxBias);
    EXPECT_EQ(replaced->compare->scheme, SlopeScheme::Linear);
}

TEST(Lesson, BadLessonsNameFileStepAndField) {
    const std::string ok = R"({"text": "Hello.", "view": "grid"})";
    expectError("{", {"JSON parse error"});
    expectError("[]", {"expected a JSON object"});
    expectError(R"({"title": "T", "steps": [)" + ok + "]}", {"`version`"});
    expectError(R"({"version": 2, "title": "T", "steps": [)" + ok + "]}", {"`version`", "expected 1"});
    expectError(lessonWith("[" + ok + "]", R"("colour": 1, )"), {"unknown field `colour`"});
    expectError(R"({"version": 1, "steps": [)" + ok + "]}", {"missing field `title`"});
    expectError(lessonWith("[]"), {"`steps`", "1 to 64"});
    expectError(lessonWith(R"([{"view": "grid"}])"), {"step 1", "missing field `text`"});
    expectError(lessonWith(R"([{"text": "", "view": "grid"}])"), {"step 1", "`text` is empty"});
    expectError(lessonWith(R"([{"text": "x"}])"), {"step 1", "field `view`"});
    expectError(lessonWith(R"([{"text": "x", "view": "heads"}])"),
                {"step 1", "unknown view 'heads'", "attention-grid"});
    expectError(
        lessonWith("[" + ok + R"(, {"title": "Two", "text": "x", "view": "grid", "set": {"bias": {"heads": 0}}}])"),
        {"step 2 (\"Two\")", "field `set.bias.heads`", "1 to 4096"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "set": {"bias": {"hedas": 4}}}])"),
                {"step 1", "unknown field `set.bias.hedas`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "set": {"version": 1}}])"), {"step 1", "`version`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "size": 3}])"), {"step 1", "unknown field `size`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "highlight": {"head": 8}}])"),
                {"step 1", "`highlight.head`", "0 to 7"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "highlight": {"head": 1, "cell": [16, 0]}}])"),
                {"step 1", "`highlight.cell`", "query from 0 to 15"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "highlight": {"cell": [1, 0]}}])"),
                {"step 1", "a cell belongs to a head"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "highlight": {"heads": []}}])"), {"`highlight.heads`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "highlight": {"colour": 1}}])"),
                {"unknown field `highlight.colour`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "attention_maps": "no/such/file.npy"}])"),
                {"step 1", "`attention_maps`", "no file 'no/such/file.npy'"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid", "layer": 2}])"),
                {"step 1", "`layer` needs `attention_maps`"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid"}])", R"("start": {"bias": {"mode": "sideways"}}, )"),
                {"field `start.bias.mode`", "unknown mode 'sideways'"});
}

TEST(Lesson, StringsAreBoundedAndShowable) {
    expectError(lessonWith(R"([{"text": ")" + std::string(kMaxLessonTextBytes + 1, 'a') + R"(", "view": "grid"}])"),
                {"step 1", "`text`", "at most 2000"});
    expectError(lessonWith(R"([{"text": "tab\there", "view": "grid"}])"), {"step 1", "U+0009"});
    expectError(lessonWith(R"([{"text": "emoji 😀", "view": "grid"}])"), {"step 1", "U+1F600"});
    expectError(lessonWith(R"([{"title": "two\nlines", "text": "x", "view": "grid"}])"),
                {"step 1", "`title`", "U+000A"});
    // Formulas in Unicode are what lessons are for.
    auto lesson = parseLesson(
        lessonWith(R"([{"text": "mₕ = 2^(−8(h+1)/H) · √dₖ ≈ θ ≤ ∞ → ⌊x⌋\nSecond paragraph.", "view": "grid"}])"),
        "my.lesson.json");
    EXPECT_TRUE(lesson) << lesson.error().message;
    // Invalid UTF-8 and deep nesting are refused before any walk over the document.
    expectError(lessonWith("[{\"text\": \"\xff\", \"view\": \"grid\"}]"), {"JSON parse error"});
    expectError(std::string(100, '[') + std::string(100, ']'), {"nested more than 64"});
    expectError(lessonWith(R"([{"text": "x", "view": "grid"}])") + std::string(kMaxLessonBytes, ' '), {"bytes"});
}

TEST(Lesson, ResolveByNameNumberOrPath) {
    auto numbered = resolveLesson("02-slopes", {kLessons});
    auto bare = resolveLesson("slopes", {kLessons});
    ASSERT_TRUE(numbered);
    ASSERT_TRUE(bare);
    EXPECT_EQ(*numbered, *bare);
    auto path = resolveLesson((kLessons / "02-slopes.lesson.json").string(), {});
    ASSERT_TRUE(path);
    auto missing = resolveLesson("rope", {kLessons});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no lesson 'rope'"), std::string::npos);
    EXPECT_NE(missing.error().message.find("alibi-in-five-steps"), std::string::npos) << missing.error().message;
}

// Issue 25: a bidirectional control character made "m = 1/8" read "m = 8/1" in one explorer, and a
// line separator in a one-line title ran its words together. Both are refused, naming the field.
TEST(Lesson, BidiControlsAndLineSeparatorsAreRefused) {
    // U+202E RIGHT-TO-LEFT OVERRIDE in the text, as the issue's example.
    expectError(lessonWith("[{\"text\": \"m = \xe2\x80\xae"
                           "1/8\", \"view\": \"grid\"}]"),
                {"step 1", "field `text`", "U+202E", "bidirectional"});
    // Every one of them, in the lesson's title and a step's title.
    for (const char* bidi : {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae",
                             "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"}) {
        expectError(
            R"({"version": 1, "title": "A)" + std::string(bidi) + R"(B", "steps": [{"text": "x", "view": "grid"}]})",
            {"field `title`", "bidirectional"});
        expectError(lessonWith(R"([{"title": "A)" + std::string(bidi) + R"(B", "text": "x", "view": "grid"}])"),
                    {"step 1", "field `title`", "bidirectional"});
    }
    // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR in a one-line title, and in the text.
    expectError(lessonWith("[{\"title\": \"two\xe2\x80\xa8words\", \"text\": \"x\", \"view\": \"grid\"}]"),
                {"step 1", "field `title`", "U+2028", "line separator", "one line"});
    expectError(lessonWith("[{\"text\": \"one\xe2\x80\xa9two\", \"view\": \"grid\"}]"),
                {"step 1", "field `text`", "U+2029", "paragraph separator"});
    expectError(R"({"version": 1, "title": "T", "description": "a)"
                "\xe2\x80\xae"
                R"(b", "steps": [{"text": "x", "view": "grid"}]})",
                {"field `description`", "U+202E"});
    // The rest of General Punctuation stays allowed (dashes, quotes, the ellipsis).
    auto ok = parseLesson(lessonWith("[{\"title\": \"\xe2\x80\x94 \xe2\x80\x9cquoted\xe2\x80\x9d\xe2\x80\xa6\", "
                                     "\"text\": \"x\", \"view\": \"grid\"}]"),
                          "my.lesson.json");
    EXPECT_TRUE(ok) << ok.error().message;
}

// Issue 25: Help > Lessons loaded every lesson, opening every step's attention-map file, on the UI
// thread. The list reads titles only and loading a lesson finds its files without opening them:
// a step naming a file with a damaged 16 MiB header lists and loads, and checkLessonFiles (what
// an author runs) is what reports the damage, naming the step.
TEST(Lesson, ListingAndLoadingNeverOpenAttentionMapFiles) {
    const auto dir = std::filesystem::temp_directory_path() / ("alibi-lesson-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto big = dir / "big-header.safetensors";
    {
        std::ofstream out(big, std::ios::binary);
        const std::uint64_t n = std::uint64_t{16} << 20;
        for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
        const std::string head = R"({"__metadata__": {"x": ")";
        out << head << std::string(n - head.size() - 1, 'a') << '{';  // the string never closes
    }
    std::string steps;
    for (int i = 0; i < 64; ++i)
        steps += std::string(i ? "," : "") + R"({"text": "x", "view": "attention-grid", "attention_maps": ")" +
                 big.string() + R"(", "layer": 3})";
    {
        std::ofstream out(dir / "big.lesson.json");
        out << R"({"version": 1, "title": "Big headers", "description": "d", "steps": [)" << steps << "]}";
    }
    const auto entries = listLessons({dir});
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_TRUE(entries[0].error.empty()) << entries[0].error;
    EXPECT_EQ(entries[0].title, "Big headers");
    EXPECT_EQ(entries[0].steps, 64u);
    auto lesson = loadLesson((dir / "big.lesson.json").string());
    ASSERT_TRUE(lesson) << lesson.error().message;
    EXPECT_EQ(lesson->steps[0].layer, 3);
    EXPECT_TRUE(lesson->steps[0].layerGiven);
    auto checked = checkLessonFiles(*lesson);
    ASSERT_FALSE(checked);
    EXPECT_NE(checked.error().message.find("step 1"), std::string::npos) << checked.error().message;
    EXPECT_NE(checked.error().message.find("`attention_maps`"), std::string::npos) << checked.error().message;
    // A cancel asked for stops the header read (the GUIs' Cancel, a newer open).
    auto cancelled = checkLessonFiles(*lesson, [] { return true; });
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, ErrorCode::Cancelled) << cancelled.error().message;
    // A layer out of range is still refused when the lesson is read.
    std::ofstream(dir / "bad.lesson.json")
        << R"({"version": 1, "title": "T", "steps": [{"text": "x", "view": "attention-grid", "attention_maps": ")"
        << big.string() << R"(", "layer": -1}]})";
    auto bad = loadLesson((dir / "bad.lesson.json").string());
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("field `layer`"), std::string::npos) << bad.error().message;
    std::filesystem::remove_all(dir);
}
