// Tests for <alibi/render/tile_labels.hpp>: the forms of a tile's label, and one form for every
// tile of a grid. Text is measured here as 1 px a character, so what fits is worked out by hand.
#include <alibi/render/tile_labels.hpp>

#include <gtest/gtest.h>

using namespace alibi;

namespace {

// Tiles of the given widths, text 1 px a character.
std::function<bool(std::size_t, const std::string&)> widths(std::vector<double> w) {
    return [w](std::size_t tile, const std::string& text) { return static_cast<double>(text.size()) <= w[tile]; };
}

// A tile's parts, the fitted slope last (every part named, none left to a default).
TileLabelParts parts(int head, std::string name, std::optional<double> slope, std::optional<std::string> range,
                     std::optional<double> fitted = std::nullopt) {
    return TileLabelParts{head, std::move(name), slope, std::move(range), fitted};
}

}  // namespace

TEST(TileLabels, FormsFromMostTellingToLeast) {
    EXPECT_EQ(tileLabelForms(parts(3, "", 1.0 / 16, std::nullopt)),
              (std::vector<std::string>{"h3  m = 1/16", "h3 1/16", "h3", "3"}));
    EXPECT_EQ(tileLabelForms(parts(3, "", 1.0 / 16, "[0, 0.5]")),
              (std::vector<std::string>{"h3  m = 1/16  [0, 0.5]", "h3 1/16  [0, 0.5]", "h3  [0, 0.5]", "h3  m = 1/16",
                                        "h3 1/16", "h3", "3"}));
    EXPECT_EQ(tileLabelForms(parts(3, "b1 h3", std::nullopt, std::nullopt)),
              (std::vector<std::string>{"b1 h3", "h3", "3"}));
    // A fitted slope after the range's forms and before the configured slope's alone.
    EXPECT_EQ(tileLabelForms(parts(3, "", 0.5, std::nullopt, 0.248995)),
              (std::vector<std::string>{"h3  m* = 0.248995  m = 1/2", "h3 m* 0.248995 m 1/2", "h3  m = 1/2", "h3 1/2",
                                        "h3", "3"}));
    EXPECT_EQ(tileLabelForms(parts(3, "", std::nullopt, "[0, 1]", 0.25)),
              (std::vector<std::string>{"h3  [0, 1]", "h3  m* = 0.25", "h3 m* 0.25", "h3", "3"}));
}

TEST(TileLabels, OneFormForEveryTile) {
    // "h0  m = 1/2" is 11 characters, "h3  m = 1/16" 12: in tiles 11 px wide the second does not
    // fit, so every tile shows "hN m" (before, the figure wrote "h0  m = 1/2" beside "h3 ...").
    // "h3 1/16" is 7: at 6 px every tile shows the bare "hN".
    const std::vector<std::vector<std::string>> forms{tileLabelForms(parts(0, "", 0.5, std::nullopt)),
                                                      tileLabelForms(parts(3, "", 1.0 / 16, std::nullopt))};
    EXPECT_EQ(chooseTileLabels(forms, widths({11, 11})), (std::vector<std::string>{"h0 1/2", "h3 1/16"}));
    EXPECT_EQ(chooseTileLabels(forms, widths({6, 6})), (std::vector<std::string>{"h0", "h3"}));
    EXPECT_EQ(chooseTileLabels(forms, widths({12, 12})), (std::vector<std::string>{"h0  m = 1/2", "h3  m = 1/16"}));
    // 1 px: the bare numbers; 0 px: nothing.
    EXPECT_EQ(chooseTileLabels(forms, widths({1, 1})), (std::vector<std::string>{"0", "3"}));
    EXPECT_EQ(chooseTileLabels(forms, widths({0, 0})), (std::vector<std::string>{"", ""}));
}

TEST(TileLabels, ATileWhereNothingFitsDoesNotHoldTheOthersBack) {
    // Tile 1 is 0 px wide (a sliver): it shows nothing, the others keep their whole label.
    const std::vector<std::vector<std::string>> forms{tileLabelForms(parts(0, "", 0.5, std::nullopt)),
                                                      tileLabelForms(parts(1, "", 0.25, std::nullopt)),
                                                      tileLabelForms(parts(2, "", 0.125, std::nullopt))};
    EXPECT_EQ(chooseTileLabels(forms, widths({20, 0, 20})),
              (std::vector<std::string>{"h0  m = 1/2", "", "h2  m = 1/8"}));
}

TEST(TileLabels, FewerFormsKeepTheirLast) {
    // A tile with one form ("B - A") beside a tile with three: at the middle level it keeps it.
    const std::vector<std::vector<std::string>> forms{{"A · L1 h3 long", "A", "a"}, {"B - A"}};
    EXPECT_EQ(chooseTileLabels(forms, widths({5, 5})), (std::vector<std::string>{"A", "B - A"}));
}
