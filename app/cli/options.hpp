// The flags shared by several subcommands, in ONE table (options.cpp: names, help, which
// commands take them, how their text is checked and applied) so every subcommand spells and
// documents them identically, turned into an alibi::Session applied on top of --config (or
// defaultSession()): a flag given on the command line wins.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/render/render.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace alibi::cli {

// One flag's raw text, kept as text so the CLI (not CLI11) words every conversion error.
struct Flag {
    std::string name;  // "--heads", for messages
    std::string value;
    CLI::Option* option = nullptr;
    [[nodiscard]] bool given() const { return option != nullptr && option->count() > 0; }
};

// Which groups a subcommand takes; each level includes the ones before it.
enum class FlagLevel { Slopes, Bias, Attention, Stats, Render };

struct SessionFlags {
    Flag config, preset, fromConfig, maxMemory, threads;
    Flag heads, scheme, maxBias, slopes, dtype, arith;            // slopes
    Flag seq, keys, mode, mask, layout;                           // bias
    Flag content, seed, sigma, dk, temperature;                   // attention
    Flag query, batchRow;                                         // stats, render
    Flag what, head, colormap, width, height, scale;              // render
    Flag reduce, logScale, pixelRatio;                            // render
    Flag bScheme, bMaxBias, bSlopes, bMode, bDtype, bMask;        // render --what compare: B
    Flag lengths, padding, documents, window, prefix, positions;  // batches (addBatchFlags)
};

// The session plus the few settings that live only on the command line.
struct Settings {
    Session session;
    unsigned threads = 0;            // 0: every core
    bool attentionDistance = false;  // render --what attention-distance
    BatchParams batch;               // --lengths, --padding, ... (bias, attention, stats, render)
    bool batchLayout = false;        // --layout bhqk or any batch flag: a (B, H, T, T) batch tensor even with B = 1
    std::int64_t batchRow = 0;       // stats, render --batch-row: the batch row measured or drawn
    Reduce reduce = Reduce::Auto;    // render --reduce: what a pixel covering several cells shows
    bool logScale = false;           // render --log-scale: attention colours on a log10 scale
    int pixelRatio = 1;              // render --pixel-ratio: PNG pixels per --width/--height pixel (1, 2, 4)
    CompareOverrides compareB;       // render --what compare: B (--b-scheme, ...; default geometric slopes)
};

// Registers a flag taking a value; `flag.name` becomes its long spelling, for messages.
void addFlag(CLI::App& cmd, Flag& flag, const std::string& names, const std::string& typeName, const std::string& help);

// --config and --max-memory: every subcommand takes them (addSessionFlags includes them).
void addCommonFlags(CLI::App& cmd, SessionFlags& flags);
void addSessionFlags(CLI::App& cmd, SessionFlags& flags, FlagLevel level);
// Padded and packed batches, windows and prefix-LM (bias, attention, stats, render).
void addBatchFlags(CLI::App& cmd, SessionFlags& flags);
[[nodiscard]] Result<Settings> buildSettings(const SessionFlags& flags);

// -o/--output, --format (and --allow-nonfinite for tensor exports).
struct OutputFlags {
    Flag output, format;
    bool allowNonFinite = false;
};
void addOutputFlags(CLI::App& cmd, OutputFlags& flags, std::span<const FileFormat> formats, bool required,
                    bool tensorExport);

// Where and in which format to write. `fallback` is the format when neither --format nor an
// output file decides (nullopt: -o is required).
struct OutputTarget {
    std::string path;  // "-" for stdout
    FileFormat format = FileFormat::Text;
    [[nodiscard]] bool toStdout() const { return path == "-"; }
};
[[nodiscard]] Result<OutputTarget> resolveOutput(const OutputFlags& flags, std::span<const FileFormat> formats,
                                                 std::optional<FileFormat> fallback);

// Whole text content to a file atomically, or to stdout for "-".
[[nodiscard]] Result<void> writeText(const std::string& path, std::string_view text);

// A flag's text without its leading and trailing spaces and tabs.
[[nodiscard]] std::string_view trim(std::string_view text);

// Number parsing with messages that name the flag.
[[nodiscard]] Result<std::int64_t> parseIntegerFlag(const Flag& flag);
[[nodiscard]] Result<double> parseNumberFlag(const Flag& flag);
// "2G", "512M", "1.5GiB", "1000000": binary multiples.
[[nodiscard]] Result<std::uint64_t> parseByteSize(const Flag& flag);

[[nodiscard]] bool isTextFormat(FileFormat format);

// --quiet: no progress bar and no notes on stderr (errors are always printed).
void setQuiet(bool quiet);
[[nodiscard]] bool quiet();

}  // namespace alibi::cli
