// Explorer views as finished figures (render/view_figure.hpp). Placeholder: the implementation
// lands on branch s4-figures.
#include <alibi/render/view_figure.hpp>

namespace alibi {

bool viewHasFigure(ExplorerView view) {
    return view != ExplorerView::Stats && view != ExplorerView::Diagnose;
}

bool viewFigureIsVector(ExplorerView view) {
    return view == ExplorerView::Curves || view == ExplorerView::Stages || view == ExplorerView::Extrapolation ||
           view == ExplorerView::PositionSchemes;
}

Result<Image> renderViewFigurePng(const ViewFigureRequest&) {
    return fail(ErrorCode::Internal, "view figures are not implemented yet");
}

Result<std::string> renderViewFigureSvg(const ViewFigureRequest&) {
    return fail(ErrorCode::Internal, "view figures are not implemented yet");
}

std::string viewFigureFileName(const ViewFigureRequest& request, bool svg) {
    return std::string(explorerViewName(request.view)) + (svg ? ".svg" : ".png");
}

Result<Image> renderDiagnosisFigure(const DiagnosisFigureRequest&) {
    return fail(ErrorCode::Internal, "diagnosis figures are not implemented yet");
}

}  // namespace alibi
