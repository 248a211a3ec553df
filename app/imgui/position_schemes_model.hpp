// The position-schemes view's request and result: the core's curves (position_schemes.hpp) for
// the session's slopes and the view's D and quantity. Computed by the Explorer when the request
// changes while the view is shown; the panel only draws the result.
#pragma once

#include "app_state.hpp"

#include <alibi/model/position_schemes.hpp>

#include <memory>
#include <string>

namespace alibi::imgui {

struct PositionSchemesResult {
    PositionSchemesParams request;
    PositionSchemes schemes;
    std::string error;  // the core's message when the request is refused
};

[[nodiscard]] PositionSchemesParams positionSchemesRequest(const AppState& state);
// O(D * 64) work: instant for the D the view offers, so it runs on the UI thread.
[[nodiscard]] std::shared_ptr<const PositionSchemesResult> computePositionSchemes(const PositionSchemesParams& request);

}  // namespace alibi::imgui
