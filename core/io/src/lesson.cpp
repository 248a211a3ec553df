// Lesson files: strict reading (sizes, nesting, strings, known fields), each step's parameters
// computed once through the session reader (so a lesson obeys the same limits as a session file),
// and the lookup of lessons by name in the built-in and the user's folders.
#include <alibi/base/data_dir.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/lesson.hpp>
#include <alibi/io/output_file.hpp>

#include "json_fields.hpp"
#include "read_limits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <system_error>

namespace alibi {

namespace {

using detail::Json;
using detail::shown;

constexpr std::array<std::string_view, 15> kViewIds{
    "grid",
    "detail",
    "curves",
    "stages",
    "compare",
    "extrapolation",
    "diagnose",
    "stats",
    "attention-grid",
    "attention-detail",
    "attention-distance",
    "attention-row",
    "similarity",
    "fit-table",
    "schemes",
};

constexpr std::array<std::pair<char32_t, char32_t>, 11> kCharacterRanges{{
    {0x0020, 0x007E},  // Basic Latin
    {0x00A0, 0x017F},  // Latin-1 supplement, Latin Extended-A (× · ½ ² é ...)
    {0x0370, 0x03FF},  // Greek (α, θ, Σ ...)
    {0x1D00, 0x1DBF},  // Phonetic extensions (subscript ᵢ, superscript ᵀ ...)
    {0x2000, 0x206F},  // General punctuation (– — ‘ ’ “ ” … ′ ‖)
    {0x2070, 0x209F},  // Superscripts and subscripts (⁻ ⁸ ₕ ...)
    {0x2100, 0x214F},  // Letterlike symbols (ℓ)
    {0x2190, 0x21FF},  // Arrows (→ ⇒)
    {0x2200, 0x22FF},  // Mathematical operators (− √ ≈ ≤ ≥ ∞ ∑ ·)
    {0x2300, 0x23FF},  // Miscellaneous technical (⌊ ⌋ ⌈ ⌉)
    {0x2C60, 0x2C7F},  // Latin Extended-C (subscript ⱼ)
}};

constexpr const char* kSuffix = ".lesson.json";

Error lessonError(const std::string& source, const std::string& where, const std::string& what) {
    return Error{ErrorCode::BadInput,
                 where.empty() ? fmt::format("{}: {}", source, what) : fmt::format("{}: {}: {}", source, where, what)};
}

// A session reader's message in the lesson's words: its fields live under `set`.
std::string setMessage(const std::string& message, const char* section) {
    std::string m = message;
    const std::string prefix = fmt::format("field `{}.", section);
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"session field `", prefix},
                                   {"session: unknown field `", "unknown " + prefix},
                                   {"session section `", fmt::format("section `{}.", section)},
                                   {"session: ", ""}}) {
        if (m.rfind(from, 0) == 0) {
            m = to + m.substr(from.size());
            break;
        }
    }
    return m;
}

// The next code point of valid UTF-8 (nlohmann's parser has checked the encoding).
char32_t nextCodePoint(std::string_view s, std::size_t& i) {
    const auto c = static_cast<unsigned char>(s[i++]);
    if (c < 0x80) return c;
    const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    char32_t cp = c & (0x3F >> extra);
    for (int k = 0; k < extra && i < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
    return cp;
}

bool allowedCodePoint(char32_t cp) {
    for (const auto& [lo, hi] : kCharacterRanges)
        if (cp >= lo && cp <= hi) return true;
    return false;
}

// A string field: present (when required), a string, at most `maxBytes`, one line unless
// `multiline`, and only characters the explorers' fonts can show.
Result<std::string> readText(const Json& object, const char* key, std::size_t maxBytes, bool required, bool multiline,
                             const std::string& source, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) {
        if (required) return std::unexpected(lessonError(source, where, fmt::format("missing field `{}`", key)));
        return std::string{};
    }
    if (!it->is_string())
        return std::unexpected(
            lessonError(source, where, fmt::format("field `{}`: expected a string, got {}", key, shown(*it))));
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > maxBytes)
        return std::unexpected(
            lessonError(source, where,
                        fmt::format("field `{}`: {} bytes, at most {} (a step's text is a few sentences)", key,
                                    s.size(), maxBytes)));
    if (required && s.find_first_not_of(" \n") == std::string::npos)
        return std::unexpected(lessonError(source, where, fmt::format("field `{}` is empty", key)));
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t at = i;
        const char32_t cp = nextCodePoint(s, i);
        if (cp == U'\n' && multiline) continue;
        // Inside the allowed ranges but refused (issue 25): a bidirectional control reorders
        // the text after it ("m = 1/8" shows as "m = 8/1" in one explorer and not the other),
        // and a line or paragraph separator breaks a one-line field or runs words together.
        if (isBidiControl(cp))
            return std::unexpected(lessonError(
                source, where,
                fmt::format("field `{}`: character U+{:04X} at byte {} is a bidirectional control character, which "
                            "reorders the text around it (\"m = 1/8\" can show as \"m = 8/1\"); remove it",
                            key, static_cast<std::uint32_t>(cp), at)));
        if (cp == 0x2028 || cp == 0x2029)
            return std::unexpected(
                lessonError(source, where,
                            fmt::format("field `{}`: character U+{:04X} at byte {} is a {} separator; {}", key,
                                        static_cast<std::uint32_t>(cp), at, cp == 0x2028 ? "line" : "paragraph",
                                        multiline ? "start a paragraph with '\\n' instead"
                                                  : "this field is one line: remove it (a space separates words)")));
        if (!allowedCodePoint(cp))
            return std::unexpected(lessonError(
                source, where,
                fmt::format("field `{}`: character U+{:04X} at byte {} is not one the explorers can show (use Latin, "
                            "Greek, punctuation, super-/subscripts, arrows and mathematical operators{})",
                            key, static_cast<std::uint32_t>(cp), at, multiline ? "; '\\n' starts a paragraph" : "")));
    }
    return s;
}

Result<int> readHead(const Json& v, const std::string& path, const Session& session, const std::string& source,
                     const std::string& where) {
    const int heads = session.attention.bias.slopes.heads;
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= heads)
        return std::unexpected(
            lessonError(source, where,
                        fmt::format("field `{}`: expected a head from 0 to {} (the step has H = {}), got {}", path,
                                    heads - 1, heads, shown(v))));
    return static_cast<int>(v.get<std::int64_t>());
}

Result<LessonHighlight> readHighlight(const Json& h, const Session& session, const std::string& source,
                                      const std::string& where) {
    if (!h.is_object())
        return std::unexpected(
            lessonError(source, where, fmt::format("field `highlight`: expected an object, got {}", shown(h))));
    for (const auto& [key, value] : h.items())
        if (key != "head" && key != "heads" && key != "cell")
            return std::unexpected(
                lessonError(source, where,
                            fmt::format("unknown field `highlight.{}` (known fields here: head, heads, cell)",
                                        detail::excerpt(key))));
    if (h.contains("head") && h.contains("heads"))
        return std::unexpected(lessonError(source, where, "field `highlight`: give `head` or `heads`, not both"));
    LessonHighlight out;
    if (h.contains("head")) {
        auto head = readHead(h["head"], "highlight.head", session, source, where);
        if (!head) return std::unexpected(head.error());
        out.heads.push_back(*head);
    }
    if (h.contains("heads")) {
        const Json& list = h["heads"];
        if (!list.is_array() || list.empty() || list.size() > kMaxHighlightHeads)
            return std::unexpected(
                lessonError(source, where,
                            fmt::format("field `highlight.heads`: expected a list of 1 to {} heads, got {}",
                                        kMaxHighlightHeads, shown(list))));
        for (std::size_t k = 0; k < list.size(); ++k) {
            auto head = readHead(list[k], fmt::format("highlight.heads[{}]", k), session, source, where);
            if (!head) return std::unexpected(head.error());
            out.heads.push_back(*head);
        }
    }
    if (h.contains("cell")) {
        const Json& c = h["cell"];
        const std::int64_t Q = session.attention.bias.queries, K = session.attention.bias.keyCount();
        const auto bad = [&] {
            return std::unexpected(lessonError(
                source, where,
                fmt::format("field `highlight.cell`: expected [query, key] with query from 0 to {} and key from 0 "
                            "to {} (the step has Q = {}, K = {}), got {}",
                            Q - 1, K - 1, Q, K, c.is_array() && c.size() == 2 ? c.dump() : shown(c))));
        };
        if (!c.is_array() || c.size() != 2 || !c[0].is_number_integer() || !c[1].is_number_integer()) return bad();
        const auto q = c[0].get<std::int64_t>(), k = c[1].get<std::int64_t>();
        if (q < 0 || q >= Q || k < 0 || k >= K) return bad();
        out.cell = std::pair{q, k};
        if (out.heads.empty() && session.head < 0)
            return std::unexpected(lessonError(
                source, where,
                "field `highlight.cell`: a cell belongs to a head: give `highlight.head`, or select one with "
                "`set.view.head`"));
    }
    return out;
}

// An attention-map file named by a step: absolute, else in the lesson's folder, else in a data folder.
Result<std::string> resolveDataFile(const std::string& name, const std::filesystem::path& baseDir,
                                    const std::string& source, const std::string& where) {
    std::vector<std::filesystem::path> tried;
    const std::filesystem::path p(name);
    if (p.is_absolute()) {
        tried.push_back(p);
    } else {
        // The lesson's folder, then the data folder holding it (assets/lessons -> assets/attention).
        if (!baseDir.empty()) {
            tried.push_back(baseDir / p);
            tried.push_back(baseDir.parent_path() / p);
        }
        for (const auto& dir : dataDirs()) tried.push_back(dir / p);
    }
    for (const auto& candidate : tried) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec))
            return std::filesystem::weakly_canonical(candidate, ec).string();
    }
    return std::unexpected(lessonError(
        source, where,
        fmt::format("field `attention_maps`: no file '{}' (looked {}; a relative path is read from the lesson's folder "
                    "or the data folder, e.g. \"attention/trained-like-4x8x64.npy\")",
                    detail::excerpt(name, 200),
                    tried.empty() ? std::string("nowhere")
                                  : fmt::format("in {} place(s), first {}", tried.size(), tried.front().string()))));
}

std::string lessonName(const std::filesystem::path& path) {
    std::string file = path.filename().string();
    if (file.size() > std::string_view(kSuffix).size() && file.ends_with(kSuffix))
        file.resize(file.size() - std::string_view(kSuffix).size());
    return file;
}

// "03-train-short-test-long" -> "train-short-test-long": the number only orders the menu.
std::string_view withoutNumber(std::string_view name) {
    std::size_t i = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
    if (i > 0 && i < name.size() && name[i] == '-') return name.substr(i + 1);
    return name;
}

}  // namespace

std::span<const std::string_view> lessonViewIds() {
    return kViewIds;
}

bool isBidiControl(char32_t cp) {
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

std::span<const std::pair<char32_t, char32_t>> lessonCharacterRanges() {
    return kCharacterRanges;
}

Result<Session> applyPartialSession(const Session& base, std::string_view partial) {
    if (detail::jsonDepth(partial) > detail::kMaxJsonDepth)
        return fail(ErrorCode::BadInput, fmt::format("nested more than {} levels deep", detail::kMaxJsonDepth));
    Json set;
    try {
        set = Json::parse(partial.begin(), partial.end());
    } catch (const std::exception& e) {
        return fail(ErrorCode::BadInput,
                    fmt::format("not JSON: {}", detail::excerpt(detail::parseErrorDetail(e.what()), 160)));
    }
    if (!set.is_object())
        return fail(ErrorCode::BadInput, fmt::format("expected an object of session sections, got {}", shown(set)));
    Json doc = Json::parse(serializeSession(base));
    for (const auto& [section, value] : set.items()) {
        if (section == "version")
            return fail(ErrorCode::BadInput, "`version` belongs to the lesson, not to a step's parameters");
        if (section == "compare" || !value.is_object() || !doc.contains(section) || !doc[section].is_object()) {
            doc[section] = value;  // replaced whole (or refused below by the session reader)
            continue;
        }
        Json& target = doc[section];
        for (const auto& [key, v] : value.items()) target[key] = v;
        if (section == "bias") {
            // The base's custom slopes contradict a newly named scheme; new slopes imply custom.
            if (value.contains("scheme") && !value.contains("slopes")) target.erase("slopes");
            if (value.contains("slopes") && !value.contains("scheme")) target.erase("scheme");
        }
    }
    // A base written before recipe 2 of the generator keeps its recipe (serializeSession wrote it).
    auto session = parseSession(doc.dump());
    if (!session) return std::unexpected(session.error());
    return session;
}

Result<Lesson> parseLesson(std::string_view text, const std::string& source, const std::filesystem::path& baseDir) {
    if (text.size() > kMaxLessonBytes)
        return std::unexpected(lessonError(
            source, "", fmt::format("{} bytes, more than a lesson's {} bytes", text.size(), kMaxLessonBytes)));
    if (detail::jsonDepth(text) > detail::kMaxJsonDepth)
        return std::unexpected(
            lessonError(source, "",
                        fmt::format("not a lesson: the JSON is nested more than {} levels deep (a lesson has 5)",
                                    detail::kMaxJsonDepth)));
    Json root;
    try {
        root = Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        return std::unexpected(lessonError(source, "",
                                           fmt::format("not a lesson: JSON parse error at byte {}: {}", e.byte,
                                                       detail::excerpt(detail::parseErrorDetail(e.what()), 160))));
    } catch (const std::exception& e) {
        return std::unexpected(
            lessonError(source, "", fmt::format("not a lesson: {}", detail::excerpt(e.what(), 160))));
    }
    try {
        if (!root.is_object())
            return std::unexpected(lessonError(
                source, "",
                fmt::format("not a lesson: expected a JSON object with `title` and `steps`, got {}", shown(root))));
        for (const auto& [key, value] : root.items())
            if (key != "version" && key != "title" && key != "description" && key != "start" && key != "steps")
                return std::unexpected(lessonError(
                    source, "",
                    fmt::format("unknown field `{}` (known fields here: version, title, description, start, steps)",
                                detail::excerpt(key))));
        if (!root.contains("version") || !root["version"].is_number_integer() ||
            root["version"].get<std::int64_t>() != kLessonVersion)
            return std::unexpected(lessonError(
                source, "",
                fmt::format("field `version`: expected {} (this program reads lessons of version {}), got {}",
                            kLessonVersion, kLessonVersion,
                            root.contains("version") ? shown(root["version"]) : "nothing")));
        Lesson lesson;
        lesson.path = source;
        lesson.name = lessonName(source);
        auto title = readText(root, "title", kMaxLessonTitleBytes, true, false, source, "");
        if (!title) return std::unexpected(title.error());
        lesson.title = *title;
        auto description = readText(root, "description", kMaxLessonTextBytes, false, true, source, "");
        if (!description) return std::unexpected(description.error());
        lesson.description = *description;

        Session current = defaultSession();
        if (root.contains("start")) {
            auto start = applyPartialSession(current, root["start"].dump());
            if (!start) return std::unexpected(lessonError(source, "", setMessage(start.error().message, "start")));
            current = *start;
        }
        if (!root.contains("steps"))
            return std::unexpected(lessonError(source, "", "missing field `steps` (a list of steps)"));
        const Json& steps = root["steps"];
        if (!steps.is_array() || steps.empty() || steps.size() > kMaxLessonSteps)
            return std::unexpected(lessonError(
                source, "",
                fmt::format("field `steps`: expected a list of 1 to {} steps, got {}", kMaxLessonSteps, shown(steps))));
        for (std::size_t n = 0; n < steps.size(); ++n) {
            const Json& s = steps[n];
            std::string where = fmt::format("step {}", n + 1);
            if (!s.is_object())
                return std::unexpected(lessonError(source, where, fmt::format("expected an object, got {}", shown(s))));
            for (const auto& [key, value] : s.items())
                if (key != "title" && key != "text" && key != "set" && key != "view" && key != "highlight" &&
                    key != "attention_maps" && key != "layer")
                    return std::unexpected(lessonError(
                        source, where,
                        fmt::format("unknown field `{}` (known fields here: title, text, set, view, highlight, "
                                    "attention_maps, layer)",
                                    detail::excerpt(key))));
            LessonStep step;
            auto stepTitle = readText(s, "title", kMaxLessonTitleBytes, false, false, source, where);
            if (!stepTitle) return std::unexpected(stepTitle.error());
            step.title = *stepTitle;
            if (!step.title.empty()) where += fmt::format(" (\"{}\")", detail::excerpt(step.title, 60));
            auto stepText = readText(s, "text", kMaxLessonTextBytes, true, true, source, where);
            if (!stepText) return std::unexpected(stepText.error());
            step.text = *stepText;
            if (!s.contains("view") || !s["view"].is_string())
                return std::unexpected(
                    lessonError(source, where,
                                fmt::format("field `view`: expected a view id ({}), got {}", fmt::join(kViewIds, ", "),
                                            s.contains("view") ? shown(s["view"]) : "nothing")));
            step.view = s["view"].get<std::string>();
            if (std::find(kViewIds.begin(), kViewIds.end(), step.view) == kViewIds.end())
                return std::unexpected(lessonError(source, where,
                                                   fmt::format("field `view`: unknown view '{}' (expected {})",
                                                               detail::excerpt(step.view), fmt::join(kViewIds, ", "))));
            step.explorerView = parseExplorerView(step.view);
            if (s.contains("set")) {
                auto next = applyPartialSession(current, s["set"].dump());
                if (!next) return std::unexpected(lessonError(source, where, setMessage(next.error().message, "set")));
                current = *next;
            }
            current.view = step.explorerView;
            step.session = current;
            if (s.contains("highlight")) {
                auto highlight = readHighlight(s["highlight"], current, source, where);
                if (!highlight) return std::unexpected(highlight.error());
                step.highlight = *highlight;
            }
            if (s.contains("attention_maps")) {
                auto name = readText(s, "attention_maps", 4096, true, false, source, where);
                if (!name) return std::unexpected(name.error());
                auto resolved = resolveDataFile(*name, baseDir, source, where);
                if (!resolved) return std::unexpected(resolved.error());
                step.attentionMaps = *resolved;
                // Only found here, not opened: a lesson lists and loads without reading any
                // attention-map header (a legal one may be 100 MB; issue 25). The explorers open
                // the file, off their UI thread, when a step shows it, and say there if the file
                // cannot be read or has no such layer; checkLessonFiles() checks every step now.
                if (s.contains("layer")) {
                    if (!s["layer"].is_number_integer() || s["layer"].get<std::int64_t>() < 0 ||
                        s["layer"].get<std::int64_t>() > kMaxAttentionLayers)
                        return std::unexpected(
                            lessonError(source, where,
                                        fmt::format("field `layer`: expected a layer number from 0 to {}, got {}",
                                                    kMaxAttentionLayers, shown(s["layer"]))));
                    step.layer = static_cast<int>(s["layer"].get<std::int64_t>());
                    step.layerGiven = true;
                }
            } else if (s.contains("layer")) {
                return std::unexpected(
                    lessonError(source, where, "field `layer` needs `attention_maps` (the file it is a layer of)"));
            }
            lesson.steps.push_back(std::move(step));
        }
        return lesson;
    } catch (const std::exception& e) {
        // Every access above is type-checked first; this only guards against a library surprise.
        return std::unexpected(
            lessonError(source, "", fmt::format("not a lesson: {}", detail::excerpt(e.what(), 160))));
    }
}

Result<Lesson> loadLesson(const std::string& path) {
    auto text = readFileText(path, kMaxLessonBytes);
    if (!text) return std::unexpected(text.error());
    return parseLesson(*text, path, std::filesystem::path(path).parent_path());
}

std::filesystem::path userLessonDir() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "alibi-explorer" / "lessons";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".local" / "share" / "alibi-explorer" / "lessons";
    return {};
}

std::vector<std::filesystem::path> lessonFolders() {
    std::vector<std::filesystem::path> folders;
    if (auto builtIn = findDataDir("lessons")) folders.push_back(*builtIn);
    if (auto user = userLessonDir(); !user.empty()) folders.push_back(user);
    return folders;
}

Result<void> checkLessonFiles(const Lesson& lesson, const std::function<bool()>& cancelled) {
    for (std::size_t n = 0; n < lesson.steps.size(); ++n) {
        const LessonStep& step = lesson.steps[n];
        if (step.attentionMaps.empty()) continue;
        const std::string where = fmt::format("step {}", n + 1);
        AttentionOpenOptions options;
        options.cancelled = cancelled;
        auto maps = AttentionMaps::open(step.attentionMaps, options);
        if (!maps) {
            if (maps.error().code == ErrorCode::Cancelled) return std::unexpected(maps.error());
            return std::unexpected(
                lessonError(lesson.path, where, fmt::format("field `attention_maps`: {}", maps.error().message)));
        }
        if (step.layerGiven && !maps->layerIndexOf(step.layer))
            return std::unexpected(lessonError(lesson.path, where,
                                               fmt::format("field `layer`: {} has no layer {} ({} layer(s))",
                                                           step.attentionMaps, step.layer, maps->layers())));
    }
    return {};
}

Result<LessonSummary> readLessonSummary(const std::string& path) {
    auto text = readFileText(path, kMaxLessonBytes);
    if (!text) return std::unexpected(text.error());
    if (detail::jsonDepth(*text) > detail::kMaxJsonDepth)
        return std::unexpected(lessonError(
            path, "", fmt::format("not a lesson: the JSON is nested more than {} levels deep", detail::kMaxJsonDepth)));
    Json root;
    try {
        root = Json::parse(*text);
    } catch (const std::exception& e) {
        return std::unexpected(lessonError(
            path, "", fmt::format("not a lesson: {}", detail::excerpt(detail::parseErrorDetail(e.what()), 160))));
    }
    if (!root.is_object())
        return std::unexpected(lessonError(path, "", "not a lesson: expected a JSON object with `title` and `steps`"));
    LessonSummary summary;
    auto title = readText(root, "title", kMaxLessonTitleBytes, true, false, path, "");
    if (!title) return std::unexpected(title.error());
    summary.title = std::move(*title);
    auto description = readText(root, "description", kMaxLessonTextBytes, false, true, path, "");
    if (!description) return std::unexpected(description.error());
    summary.description = std::move(*description);
    const auto steps = root.find("steps");
    if (steps == root.end() || !steps->is_array() || steps->empty() || steps->size() > kMaxLessonSteps)
        return std::unexpected(
            lessonError(path, "", fmt::format("field `steps`: expected a list of 1 to {} steps", kMaxLessonSteps)));
    summary.steps = steps->size();
    return summary;
}

std::vector<LessonEntry> listLessons(const std::vector<std::filesystem::path>& folders) {
    std::vector<LessonEntry> entries;
    for (std::size_t f = 0; f < folders.size(); ++f) {
        std::error_code ec;
        std::vector<std::filesystem::path> files;
        for (std::filesystem::directory_iterator it(folders[f], ec), end; !ec && it != end; it.increment(ec)) {
            const std::string file = it->path().filename().string();
            if (file.ends_with(kSuffix) && it->is_regular_file(ec)) files.push_back(it->path());
            if (files.size() > 1000) break;  // a lessons folder, not a data set
        }
        std::sort(files.begin(), files.end());
        for (const auto& path : files) {
            LessonEntry e;
            e.name = lessonName(path);
            e.path = path.string();
            e.user = f > 0;
            // Titles only: each step is read (and its files looked at) when the lesson is opened.
            if (auto summary = readLessonSummary(e.path)) {
                e.title = std::move(summary->title);
                e.description = std::move(summary->description);
                e.steps = summary->steps;
            } else {
                e.error = summary.error().message;
            }
            entries.push_back(std::move(e));
        }
    }
    return entries;
}

Result<std::string> resolveLesson(std::string_view nameOrPath, const std::vector<std::filesystem::path>& folders) {
    std::error_code ec;
    const std::string given(nameOrPath);
    if (given.find('/') != std::string::npos || given.ends_with(".json")) {
        if (std::filesystem::is_regular_file(given, ec)) return given;
        if (given.find('/') != std::string::npos)
            return fail(ErrorCode::BadInput, fmt::format("no lesson file '{}'", detail::excerpt(given, 200)));
    }
    std::string names;
    for (const auto& folder : folders) {
        for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string file = it->path().filename().string();
            if (!file.ends_with(kSuffix)) continue;
            const std::string name = lessonName(it->path());
            if (name == given || withoutNumber(name) == withoutNumber(given) || file == given)
                return it->path().string();
        }
    }
    for (const auto& entry : listLessons(folders))
        names += (names.empty() ? "" : ", ") + std::string(withoutNumber(entry.name));
    return fail(ErrorCode::BadInput,
                fmt::format("no lesson '{}' (lessons: {}; or give the path of a .lesson.json file)",
                            detail::excerpt(given, 120), names.empty() ? std::string("none found") : names));
}

}  // namespace alibi
