// Lesson files (*.lesson.json, docs/LESSONS.md): a guided walk through the explorers for a
// class. A lesson is a title and an ordered list of steps; each step has a short text, the
// parameters it sets (a partial session: the keys of a session file, only those it changes),
// the view it opens and what it highlights. Read as strictly as session files: a bad step is an
// error naming the file, the step and the field.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/io/session.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alibi {

inline constexpr int kLessonVersion = 1;
// Limits of a lesson file: a lesson is read aloud, not a data set.
inline constexpr std::size_t kMaxLessonBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxLessonSteps = 64;
inline constexpr std::size_t kMaxLessonTitleBytes = 120;
inline constexpr std::size_t kMaxLessonTextBytes = 2000;
inline constexpr std::size_t kMaxHighlightHeads = 16;

// The view ids a step may open: the explorer views of session files (grid, detail, curves,
// stages, compare, extrapolation, diagnose, stats) and the views of attention maps and position
// schemes ("attention-grid", "attention-detail", "attention-distance", "attention-row",
// "similarity", "fit-table", "schemes"), which an explorer without them shows as a note.
[[nodiscard]] std::span<const std::string_view> lessonViewIds();

// The Unicode ranges (first, last code point, inclusive) lesson text may use: Latin, Greek,
// punctuation, super- and subscripts, arrows and mathematical operators. Both explorers' fonts
// hold them (the ImGui explorer loads exactly these glyphs), so every formula shows.
[[nodiscard]] std::span<const std::pair<char32_t, char32_t>> lessonCharacterRanges();
// Bidirectional control characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069):
// inside those ranges but refused in every lesson field, as are the line and paragraph separators
// U+2028 and U+2029; the message names the field.
[[nodiscard]] bool isBidiControl(char32_t cp);

// What a step points at: heads (outlined in the grid, emphasised as curves in plots) and one
// cell (query, key) of the first of them (or, without heads, of the step's selected head).
struct LessonHighlight {
    std::vector<int> heads;
    std::optional<std::pair<std::int64_t, std::int64_t>> cell;  // (query, key)
    [[nodiscard]] bool empty() const { return heads.empty() && !cell; }
    [[nodiscard]] int cellHead(const Session& session) const { return !heads.empty() ? heads.front() : session.head; }
    friend bool operator==(const LessonHighlight&, const LessonHighlight&) = default;
};

struct LessonStep {
    std::string title;  // a few words ("The distance penalty")
    std::string text;   // a few sentences, '\n' separates paragraphs
    std::string view;   // one of lessonViewIds()
    // The view as an explorer view when it is one (else an attention-map or schemes view).
    std::optional<ExplorerView> explorerView;
    LessonHighlight highlight;
    // An attention-map file to open with this step (absolute, resolved when loaded); empty: none.
    std::string attentionMaps;
    int layer = 0;            // the layer number of attentionMaps the views show (checked when the file opens)
    bool layerGiven = false;  // the step named its layer (else the file's first layer is shown)
    // The parameters this step shows: the lesson's start with every step's `set` up to and
    // including this one applied in order, so a step never depends on what the user touched.
    // Its `view` is explorerView.
    Session session;
};

struct Lesson {
    std::string path;  // the file it was read from ("" when parsed from text)
    std::string name;  // the file name without ".lesson.json" (what --lesson takes)
    std::string title;
    std::string description;  // one or two sentences for the list of lessons
    std::vector<LessonStep> steps;
};

// Parses a lesson document. `source` names it in messages; relative `attention_maps` paths are
// looked up in `baseDir` (the lesson's folder) and then in the data folders (base/data_dir.hpp).
[[nodiscard]] Result<Lesson> parseLesson(std::string_view json, const std::string& source,
                                         const std::filesystem::path& baseDir = {});
[[nodiscard]] Result<Lesson> loadLesson(const std::string& path);

// `base` with the keys of the partial session `partial` (a JSON object with the sections of a
// session file) replaced, validated like a session file. Within `bias`, `attention`, `view` and
// `batch` only the named keys change; a `compare` section replaces B whole. Naming a scheme
// other than custom drops the base's custom slopes; naming slopes implies scheme custom.
[[nodiscard]] Result<Session> applyPartialSession(const Session& base, std::string_view partial);

// Where lessons are found: the built-in folder (data folder `lessons`) and the user's own
// ($XDG_DATA_HOME/alibi-explorer/lessons, default ~/.local/share/alibi-explorer/lessons).
[[nodiscard]] std::filesystem::path userLessonDir();
[[nodiscard]] std::vector<std::filesystem::path> lessonFolders();

// Opens every attention-map file the steps name and checks the step's layer is in it: what a
// lesson's author runs before a class (loading a lesson does not open them). `cancelled` stops
// a long header read.
[[nodiscard]] Result<void> checkLessonFiles(const Lesson& lesson, const std::function<bool()>& cancelled = {});

// What a menu of lessons shows: the title, the description and the number of steps, read without
// reading the steps (cheap whatever the steps name).
struct LessonSummary {
    std::string title;
    std::string description;
    std::size_t steps = 0;
};
[[nodiscard]] Result<LessonSummary> readLessonSummary(const std::string& path);

// One file of a lessons folder, for a menu: its title, or why it cannot be read.
struct LessonEntry {
    std::string name;
    std::string path;
    std::string title;  // empty when the file is broken
    std::string description;
    std::size_t steps = 0;
    std::string error;  // the loader's message when it is broken
    bool user = false;  // from the user's folder
};
// Every *.lesson.json of `folders`, sorted by file name within each folder (built-in lessons are
// numbered "01-..." so they list in teaching order). Reads each file's summary only (title,
// description, step count): a broken step shows when the lesson is opened.
[[nodiscard]] std::vector<LessonEntry> listLessons(const std::vector<std::filesystem::path>& folders);
// A lesson name ("03-train-short-test-long", or without its number "train-short-test-long") or a
// path to a lesson file: the file to load, or an error listing the lessons there are.
[[nodiscard]] Result<std::string> resolveLesson(std::string_view nameOrPath,
                                                const std::vector<std::filesystem::path>& folders);

}  // namespace alibi
