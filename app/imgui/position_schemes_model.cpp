// Request and result of the position-schemes view.
#include "position_schemes_model.hpp"

namespace alibi::imgui {

PositionSchemesParams positionSchemesRequest(const AppState& state) {
    PositionSchemesParams p;
    p.slopes = state.session.attention.bias.slopes;
    p.maxDistance = state.schemesMaxDistance;
    p.quantity = state.schemesQuantity;
    return p;
}

std::shared_ptr<const PositionSchemesResult> computePositionSchemes(const PositionSchemesParams& request) {
    auto result = std::make_shared<PositionSchemesResult>();
    result->request = request;
    if (auto schemes = positionSchemeCurves(request))
        result->schemes = std::move(*schemes);
    else
        result->error = schemes.error().message;
    return result;
}

}  // namespace alibi::imgui
