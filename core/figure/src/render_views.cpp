// See render_views.hpp.
#include <alibi/figure/render_views.hpp>

namespace alibi {

const std::vector<std::string_view>& renderViewNames() {
    static const std::vector<std::string_view> names = {
        "bias",     "attention",     "slopes", "distance",      "attention-distance",
        "schemes",  "slope-schemes", "stages", "extrapolation", "compare",
        "overview", "similarity",    "fit",    "row",           "heads"};
    return names;
}

std::string renderViewList() {
    std::string list;
    for (const std::string_view name : renderViewNames()) {
        if (!list.empty()) list += ", ";
        list += name;
    }
    return list;
}

}  // namespace alibi
