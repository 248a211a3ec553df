// A model run for the explorers (issue 29): a session's LiveModelParams (model/live_model.hpp)
// in, everything both explorers show out. The model's maps (A, its own slopes) go to a temporary
// .safetensors file in a private temporary folder, kept while the run is (so a view may reopen it
// with other options) and removed with its last copy; the attention-map views read it as they
// read a saved file (rows on demand, tokens on the axes and in the read-out), so memory stays
// bounded by one layer. With a slope change the text runs again as B; B's maps
// are compared with A's layer by layer as they come (never all held), giving each head's
// attention change; the loss per position of A and B is lossText's. The views' series and lines
// are made here too, so both explorers draw the same numbers.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/lm/run_report.hpp>
#include <alibi/model/live_model.hpp>
#include <alibi/render/plot.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace alibi::lm {

struct LiveRunOptions {
    ProgressFn progress;   // steps of the whole run (opening, pass A, pass B); false cancels
    unsigned threads = 0;  // 0: every core
    std::uint64_t budget = kDefaultMemoryBudget;
    std::string tempFolder;  // where A's maps are written a moment; "": $TMPDIR, else /tmp
};

struct LiveRun {
    std::shared_ptr<const AttentionMaps> maps;  // A's maps, with the tokens
    std::string mapsPath;                       // their file ("<tmp>/alibi-live-XXXXXX/<model>.safetensors")
    std::shared_ptr<const void> files;          // keeps the file; its folder goes with the last copy
    std::string model;                          // the folder's name ("license-bloom-tiny")
    LossReport loss;                            // A, and B when the change is not none
    int layers = 0, heads = 0;
    // Per (layer, head), layer-major: the mean over query rows of the total variation distance
    // 1/2 sum_j |P_B(i, j) - P_A(i, j)| between B's and A's attention rows (0: unchanged, 1:
    // disjoint), and its largest row. Empty without B.
    std::vector<double> meanChange, maxChange;
};

// Opens the folder, turns the text into tokens (its first `length` when set), runs A (and B) and
// opens A's maps. Errors are the core's refusals as they are (no ALiBi, unknown architecture,
// not a model folder, a length longer than the text, ...); a cancel gives ErrorCode::Cancelled.
[[nodiscard]] Result<LiveRun> runLive(const LiveModelParams& params, const LiveRunOptions& options = {});

// "license-bloom-tiny · BLOOM, 2 layers, 6 heads, ... · 37 tokens · mean loss A 3.81 nats".
[[nodiscard]] std::string liveSummary(const LiveRun& run);
// "A: the model — mean loss 3.812 · B: slopes x0.5 — 3.954 (B - A +0.142) · beyond the training
// length (positions 64 on): A 3.9, B 4.4", or the line for A alone.
[[nodiscard]] std::string liveLossLine(const LiveRun& run);
// Loss per position (x = the position p of the token predicted, y = nats): A, then B.
[[nodiscard]] std::vector<Series> liveLossSeries(const LiveRun& run);
// Each layer's attention change per head (x = head, y = mean total variation); empty without B.
[[nodiscard]] std::vector<Series> liveChangeSeries(const LiveRun& run);
// "largest change: layer 1 head 3 (mean TV 0.21, largest row 0.48)"; "" without B.
[[nodiscard]] std::string liveChangeLine(const LiveRun& run);

}  // namespace alibi::lm
