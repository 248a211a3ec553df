// One figure job for both explorers' File > Export figure: a request naming any view's figure
// (a session view, a diagnosis, the attention maps' grid, overview, profile, row or similarity
// matrix) at a size, scale and format, turned into the file's bytes (PNG or SVG) with progress and
// cancel, and written atomically. The explorers only build the request; what is drawn, and the
// refusals, are decided here.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/head_compare.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace alibi {

struct FigureJobRequest {
    enum class Kind { View, Diagnosis, Maps, MapsOverview, MapsProfile, MapsRow, Similarity, MapsHeads };
    Kind kind = Kind::View;
    ViewFigureRequest view;  // Kind::View (its progress callback is the job's)
    // Kind::Diagnosis: the tensor (given, or read from `tensorPath`, or the buggy example
    // `example`), its diagnosis (computed when not given) and its name in the figure's title.
    std::shared_ptr<const Tensor> tensor;
    std::optional<Diagnosis> diagnosis;
    std::string tensorPath, example, source;
    // The attention maps kinds: the maps and what of them is drawn (MapsOverview ignores the layer
    // and head; MapsRow reads its row from the maps, on the job's thread).
    std::shared_ptr<const AttentionMaps> maps;
    MapsHeatmapParams mapsParams;  // Maps, MapsOverview; MapsRow: its layerIndex and head
    HeadFit headFit;               // MapsProfile: the head's fit, on the rows it summed
    std::int64_t fitFirstRow = 0, fitLastRow = -1;
    std::int64_t rowQuery = 0;  // MapsRow: the query row and the priors drawn beside it
    explore::HeadSlopes rowSlopes;
    DistanceMatrix distances;  // Similarity: the matrix, its head order and title
    std::vector<int> similarityOrder;
    std::string similarityTitle;
    // MapsHeads: the two heads (compared again on the job's thread; the fits handed in are the
    // view's) in mapsParams.colormap.
    explore::HeadCompareRequest headCompare;
    int width = 0, height = 0;  // the figure at 1x (Kind::View: view.session's)
    int scale = 1;              // PNG pixels per layout pixel: 1, 2, 4
    bool svg = false;           // SVG: views drawn from lines and text only
};

struct FigureFile {
    std::string bytes;          // the PNG or SVG file's content
    int width = 0, height = 0;  // PNG pixels, SVG user units
};

// Whether `kind` can be written as SVG (views drawn from lines and text).
[[nodiscard]] bool figureSvgOffered(const FigureJobRequest& request);
// The figure's file content; `progress` reports and cancels (ErrorCode::Cancelled).
[[nodiscard]] Result<FigureFile> renderFigureJob(const FigureJobRequest& request, const ProgressFn& progress = {});
// The same, written to `path` atomically (the file is opened first, so a folder that cannot be
// written fails before the drawing; nothing is left on failure or cancel).
[[nodiscard]] Result<FigureFile> writeFigureJob(const FigureJobRequest& request, const std::string& path,
                                                const ProgressFn& progress = {});

}  // namespace alibi
