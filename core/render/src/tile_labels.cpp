// Which form of its label each tile of a grid shows.
#include <alibi/render/format.hpp>
#include <alibi/render/tile_labels.hpp>

#include <algorithm>

namespace alibi {

std::vector<std::string> tileLabelForms(const TileLabelParts& parts) {
    const std::string head = "h" + std::to_string(parts.head);
    const std::string name = parts.name.empty() ? head : parts.name;
    const std::string withSlope = parts.slope ? name + "  m = " + formatSlope(*parts.slope) : name;
    // "h3 1/16": the slope without its "m =", where the whole form is too wide (720p lesson grids).
    const std::string compact = parts.slope ? name + " " + formatSlope(*parts.slope) : name;
    std::vector<std::string> forms;
    if (parts.range) {
        forms.push_back(withSlope + "  " + *parts.range);
        if (parts.slope) {
            forms.push_back(compact + "  " + *parts.range);
            forms.push_back(name + "  " + *parts.range);
        }
    }
    if (parts.fitted) {
        const std::string fitted = formatValue(*parts.fitted);
        forms.push_back(name + "  m* = " + fitted + (parts.slope ? "  m = " + formatSlope(*parts.slope) : ""));
        forms.push_back(name + " m* " + fitted + (parts.slope ? " m " + formatSlope(*parts.slope) : ""));
    }
    if (parts.slope) {
        forms.push_back(withSlope);
        forms.push_back(compact);
    }
    forms.push_back(name);
    if (name != head) forms.push_back(head);
    forms.push_back(std::to_string(parts.head));
    return forms;
}

std::vector<std::string> chooseTileLabels(const std::vector<std::vector<std::string>>& forms,
                                          const std::function<bool(std::size_t, const std::string&)>& fits) {
    std::vector<std::string> chosen(forms.size());
    // A tile where not even its least form fits shows nothing, and does not hold the others back.
    std::vector<bool> shown(forms.size());
    std::size_t levels = 0;
    for (std::size_t n = 0; n < forms.size(); ++n) {
        shown[n] = !forms[n].empty() && fits(n, forms[n].back());
        if (shown[n]) levels = std::max(levels, forms[n].size());
    }
    const auto formAt = [&](std::size_t tile, std::size_t level) -> const std::string& {
        return forms[tile][std::min(level, forms[tile].size() - 1)];
    };
    for (std::size_t level = 0; level < levels; ++level) {
        bool everyTile = true;
        for (std::size_t n = 0; n < forms.size() && everyTile; ++n) everyTile = !shown[n] || fits(n, formAt(n, level));
        if (!everyTile) continue;
        for (std::size_t n = 0; n < forms.size(); ++n)
            if (shown[n]) chosen[n] = formAt(n, level);
        break;
    }
    return chosen;
}

}  // namespace alibi
