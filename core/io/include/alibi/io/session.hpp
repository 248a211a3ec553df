// Session files (*.alibi.json): every parameter as one JSON document with a `version` field,
// read and written identically by the CLI and both GUIs.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/io/read_progress.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/live_model.hpp>
#include <alibi/model/params.hpp>
#include <alibi/model/view_options.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

inline constexpr int kSessionVersion = 1;

// The explorer views a session can open on (both GUIs map these to their own tabs or panels).
enum class ExplorerView { Grid, Detail, Curves, Stages, Compare, Extrapolation, Diagnose, Stats, PositionSchemes };
// "grid", "detail", "curves", "stages", "compare", "extrapolation", "diagnose", "stats",
// "position-schemes" (ALiBi beside RoPE, sinusoidal, T5, KERPLE, Sandwich).
[[nodiscard]] std::string_view explorerViewName(ExplorerView view);
[[nodiscard]] std::optional<ExplorerView> parseExplorerView(std::string_view name);

// Compare's B: the session's own parameters (A) with some replaced; unset means "same as A".
struct CompareOverrides {
    std::optional<SlopeScheme> scheme;
    std::optional<double> maxBias;
    std::optional<DType> dtype;
    std::optional<BiasMode> mode;
    std::optional<MaskValue> mask;
    std::vector<double> custom;  // scheme Custom: B's slopes, one per head of A
    friend bool operator==(const CompareOverrides&, const CompareOverrides&) = default;
};

// B's bias parameters: A's with the overrides applied.
[[nodiscard]] BiasParams applyOverrides(const BiasParams& a, const CompareOverrides& b);

struct Session {
    AttentionParams attention;   // bias + content parameters
    std::int64_t queryRow = -1;  // -1: the last row
    RenderWhat what = RenderWhat::Bias;
    int head = -1;  // -1: every head (grid)
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    int width = 1024, height = 768;  // render size
    std::int64_t trainLength = 0;    // extrapolation view; 0: use the sequence length
    std::uint64_t maxMemory = kDefaultMemoryBudget;
    BatchParams batch;          // section `batch` (alibi bias); inactive: one sequence
    std::int64_t batchRow = 0;  // `batch.row`: the batch row the explorers show
    // The view the explorer shows (JSON `view.open`); nullopt: chosen from `what` (see openView).
    std::optional<ExplorerView> view;
    // Compare's B (JSON section `compare`); nullopt: the explorer's default B.
    std::optional<CompareOverrides> compare;
    // A language model run on the user's text, with B's slope change (JSON section `model`,
    // written only when it differs from the default: no model, the default text).
    LiveModelParams live;

    friend bool operator==(const Session&, const Session&) = default;
};

// The view to open: `view` when set, else the curves for `what` = slopes, else the grid (so
// files written before `view.open` existed still open on what they show).
[[nodiscard]] ExplorerView openView(const Session& session);

// The built-in default: H = 8, T = 16, causal, press, -1e9, f32, viridis.
[[nodiscard]] Session defaultSession();

// Parses a session document; an unknown or invalid field gives an error naming the field
// ("session field `bias.mode`: unknown mode 'foo' (expected causal, symmetric, ...)").
// Missing fields keep their defaults.
[[nodiscard]] Result<Session> parseSession(std::string_view json);
[[nodiscard]] std::string serializeSession(const Session& session);

// What loadSession is told besides the path.
struct SessionReadOptions {
    // The read's progress (the file read, then parsed; a session file may be 16 MiB) and its
    // cancel: either stops it with ErrorCode::Cancelled, as the user's Ctrl+C does.
    ReadOptions read;
    // When set, receives the file's bytes as read (the explorers hash them, to notice later that
    // the file changed on disk since it was opened).
    std::string* bytes = nullptr;
};

[[nodiscard]] Result<Session> loadSession(const std::string& path, const SessionReadOptions& options);
[[nodiscard]] Result<Session> loadSession(const std::string& path);
[[nodiscard]] Result<void> saveSession(const Session& session, const std::string& path);

// Validates everything the session holds (delegates to validateAttention etc.).
[[nodiscard]] Result<void> validateSession(const Session& session);

// The `alibi loss` command line that runs the session's model on its text with its slope change
// (A and B loss per position); "" when no model is set.
[[nodiscard]] std::string liveCliCommand(const LiveModelParams& live);

// The `alibi` command line that reproduces the session's tensor.
[[nodiscard]] std::string cliCommand(const Session& session, std::string_view subcommand, std::string_view output);

}  // namespace alibi
