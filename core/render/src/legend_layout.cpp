// The legend's plan (see the header).
#include <alibi/render/legend_layout.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace alibi {
namespace {

// Columns of `columnWidth` that fit `room` (at least one: a legend is never dropped whole).
int columnsThatFit(double columnWidth, const LegendRoom& room) {
    return std::max(1, static_cast<int>(std::floor(room.width / std::max(columnWidth, 1.0))));
}

double widest(std::span<const LegendEntryWidths> entries, bool brief) {
    double w = 0;
    for (const LegendEntryWidths& e : entries) w = std::max(w, brief ? e.brief : e.full);
    return w;
}

// `slots` entries of `n`: the kept ones, then the first, the last and evenly spaced others.
std::vector<int> chooseEntries(std::span<const LegendEntryWidths> entries, int slots) {
    const int n = static_cast<int>(entries.size());
    std::vector<bool> take(entries.size(), false);
    int taken = 0;
    for (int i = 0; i < n && taken < slots; ++i)
        if (entries[static_cast<std::size_t>(i)].keep) take[static_cast<std::size_t>(i)] = true, ++taken;
    const int rest = slots - taken;
    for (int k = 0; k < rest; ++k) {
        // Spread over [0, n - 1]; an entry already taken gives way to the next free one.
        int i = rest > 1 ? static_cast<int>(std::lround(static_cast<double>(k) * (n - 1) / (rest - 1))) : 0;
        while (i < n && take[static_cast<std::size_t>(i)]) ++i;
        if (i >= n) i = 0;
        while (i < n && take[static_cast<std::size_t>(i)]) ++i;
        if (i < n) take[static_cast<std::size_t>(i)] = true;
    }
    std::vector<int> shown;
    for (int i = 0; i < n; ++i)
        if (take[static_cast<std::size_t>(i)]) shown.push_back(i);
    return shown;
}

}  // namespace

LegendPlan planLegend(std::span<const LegendEntryWidths> entries, const LegendRoom& room) {
    LegendPlan plan;
    const int n = static_cast<int>(entries.size());
    if (n == 0) return plan;
    const int rows = std::max(1, room.rows);
    for (const bool brief : {false, true}) {
        const double columnWidth = widest(entries, brief) + room.swatch;
        const int columns = columnsThatFit(columnWidth, room);
        // Whole names only where one column of them fits the room: a wider column squeezed a
        // small plot to a quarter of its panel (Qt lesson 1 step 3 at 1280x720).
        const bool fits = n <= rows * columns && (brief || columnWidth <= room.width);
        if (fits || brief) {
            plan.brief = brief;
            plan.columnWidth = columnWidth;
            plan.columns = columns;
            if (n <= rows * columns) break;
            // Too many even under brief names: the note takes the last slot.
            plan.note = true;
            plan.columnWidth = std::max(columnWidth, room.noteWidth + room.swatch);
            plan.columns = columnsThatFit(plan.columnWidth, room);
        }
    }
    const int capacity = rows * plan.columns - (plan.note ? 1 : 0);
    if (plan.note) {
        plan.shown = chooseEntries(entries, std::max(1, capacity));
    } else {
        for (int i = 0; i < n; ++i) plan.shown.push_back(i);
    }
    const int lines = static_cast<int>(plan.shown.size()) + (plan.note ? 1 : 0);
    plan.columns = std::min(plan.columns, (lines + rows - 1) / rows);
    plan.rows = (lines + plan.columns - 1) / plan.columns;
    return plan;
}

int legendRowsForAll(std::span<const LegendEntryWidths> entries, const LegendRoom& room) {
    if (entries.empty()) return 0;
    const int n = static_cast<int>(entries.size());
    const int columns = columnsThatFit(widest(entries, false) + room.swatch, room);
    return (n + columns - 1) / columns;
}

std::string briefLegendName(std::string_view name) {
    constexpr std::string_view head = "head ";
    if (!name.starts_with(head)) return std::string(name);
    std::size_t end = head.size();
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == head.size() || (end < name.size() && name[end] != ' ')) return std::string(name);
    return "h" + std::string(name.substr(head.size(), end - head.size()));
}

std::string legendNote(std::size_t shown, std::size_t total) {
    return fmt::format("{} of {} listed", shown, total);
}

LegendRoom sharedLegendRoom(std::span<const LegendRoom> rooms) {
    if (rooms.empty()) return {};
    LegendRoom shared = rooms.front();
    for (const LegendRoom& room : rooms.subspan(1)) {
        shared.width = std::min(shared.width, room.width);
        shared.rows = std::min(shared.rows, room.rows);
        shared.swatch = std::max(shared.swatch, room.swatch);
        shared.noteWidth = std::max(shared.noteWidth, room.noteWidth);
    }
    return shared;
}

}  // namespace alibi
