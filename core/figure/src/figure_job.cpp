// The figure job: every explorer figure from one request, as PNG or SVG bytes.
#include <alibi/figure/figure_job.hpp>
#include <alibi/figure/head_compare_figure.hpp>

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/render/png.hpp>

namespace alibi {
namespace {

using Kind = FigureJobRequest::Kind;

bool isMapsPlot(Kind kind) {
    return kind == Kind::MapsProfile || kind == Kind::MapsRow;
}

// The line plots of the maps view's side tabs.
Result<PlotFigure> mapsPlotFigure(const FigureJobRequest& r) {
    if (r.kind == Kind::MapsProfile)
        return fitProfileFigure(r.headFit, *r.maps, r.fitFirstRow, r.fitLastRow, r.width, r.height);
    return mapsRowFigure(*r.maps, r.mapsParams.layerIndex, r.mapsParams.head, r.rowQuery, r.rowSlopes, r.width,
                         r.height);
}

Result<Image> diagnosisImage(const FigureJobRequest& r, const std::function<bool()>& cancelled) {
    std::shared_ptr<const Tensor> tensor = r.tensor;
    if (!tensor) {
        Result<Tensor> read = r.tensorPath.empty() ? buildBuggyExample(r.example) : [&]() -> Result<Tensor> {
            auto loaded = loadTensor(r.tensorPath);
            if (!loaded) return std::unexpected(loaded.error());
            return std::move(loaded->tensor);
        }();
        if (!read) return std::unexpected(read.error());
        tensor = std::make_shared<const Tensor>(std::move(*read));
    }
    if (cancelled()) return fail(ErrorCode::Cancelled, "cancelled");
    std::optional<Diagnosis> diagnosis = r.diagnosis;
    if (!diagnosis) {
        auto found = diagnose(*tensor);
        if (!found) return std::unexpected(found.error());
        diagnosis = std::move(*found);
    }
    if (cancelled()) return fail(ErrorCode::Cancelled, "cancelled");
    DiagnosisFigureRequest request;
    request.tensor = tensor.get();
    request.diagnosis = &*diagnosis;
    request.source = r.source;
    request.width = r.width;
    request.height = r.height;
    request.scale = r.scale;
    return renderDiagnosisFigure(request);
}

}  // namespace

bool figureSvgOffered(const FigureJobRequest& request) {
    return request.kind == Kind::View || isMapsPlot(request.kind);
}

Result<FigureFile> renderFigureJob(const FigureJobRequest& r, const ProgressFn& progress) {
    const auto cancelled = [&progress] { return progress && !progress(0, 0); };
    if ((r.kind != Kind::View && r.kind != Kind::Diagnosis && r.kind != Kind::Similarity) && !r.maps)
        return fail(ErrorCode::InvalidArgument, "no attention maps are open: open a file of attention maps first");
    if (r.svg) {
        if (!figureSvgOffered(r))
            return fail(ErrorCode::InvalidArgument,
                        "this figure is a heatmap, drawn as PNG only; pick PNG 1x, 2x or 4x");
        Result<std::string> svg = fail(ErrorCode::Internal, "no figure drawn");
        if (r.kind == Kind::View) {
            ViewFigureRequest request = r.view;
            request.progress = progress;
            svg = renderViewFigureSvg(request);
        } else if (auto figure = mapsPlotFigure(r)) {
            svg = plotFigureSvg(*figure);
        } else {
            return std::unexpected(figure.error());
        }
        if (!svg) return std::unexpected(svg.error());
        const bool view = r.kind == Kind::View;
        return FigureFile{std::move(*svg), view ? r.view.session.width : r.width,
                          view ? r.view.session.height : r.height};
    }
    Result<Image> image = fail(ErrorCode::Internal, "no figure drawn");
    switch (r.kind) {
        case Kind::View: {
            ViewFigureRequest request = r.view;
            request.progress = progress;
            image = renderViewFigurePng(request);
            break;
        }
        case Kind::Diagnosis:
            image = diagnosisImage(r, cancelled);
            break;
        case Kind::Maps:
        case Kind::MapsOverview: {
            // Rows of a large file come from disk: the job's progress and cancel reach the drawing.
            MapsHeatmapParams params = r.mapsParams;
            params.progress = progress;
            image = r.kind == Kind::Maps ? renderAttentionMapsFigure(*r.maps, params, 0, r.scale)
                                         : renderAttentionOverviewFigure(*r.maps, params, 0, r.scale);
            break;
        }
        case Kind::MapsProfile:
        case Kind::MapsRow: {
            auto figure = mapsPlotFigure(r);
            if (!figure) return std::unexpected(figure.error());
            if (cancelled()) return fail(ErrorCode::Cancelled, "cancelled");
            image = plotFigurePng(*figure, r.scale);
            break;
        }
        case Kind::MapsHeads: {
            explore::HeadCompareRequest request = r.headCompare;
            request.progress = progress;
            auto compared = explore::compareHeads(*r.maps, request);
            if (!compared) return std::unexpected(compared.error());
            auto figure =
                renderHeadCompareFigure(*r.maps, *compared, {r.mapsParams.colormap, r.width, r.height, r.scale});
            if (!figure) return std::unexpected(figure.error());
            image = std::move(figure->image);
            break;
        }
        case Kind::Similarity:
            image = renderSimilarityFigure(r.distances, r.similarityOrder, r.similarityTitle, Colormap::Magma, r.width,
                                           r.height, r.scale);
            break;
    }
    if (!image) return std::unexpected(image.error());
    if (cancelled()) return fail(ErrorCode::Cancelled, "cancelled");
    auto png = encodePng(*image);
    if (!png) return std::unexpected(png.error());
    return FigureFile{std::string(png->begin(), png->end()), image->width, image->height};
}

Result<FigureFile> writeFigureJob(const FigureJobRequest& request, const std::string& path,
                                  const ProgressFn& progress) {
    auto out = OutputFile::open(path);
    if (!out) return std::unexpected(out.error());
    auto file = renderFigureJob(request, progress);
    if (!file) return std::unexpected(file.error());
    if (auto written = out->write(std::string_view(file->bytes)); !written) return std::unexpected(written.error());
    if (auto committed = out->commit(); !committed) return std::unexpected(committed.error());
    return file;
}

}  // namespace alibi
