// The head detail's number size in a square cell (render/cell_numbers.hpp). Metrics of a
// monospace font measured at size 10: each character 6 px wide, a line 12 px tall; the goldens
// are worked out by hand from the rule (a line at most 3/4 of the cell, 0.3 of a line beside
// the widest number).
#include <alibi/render/cell_numbers.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace alibi {
namespace {

NumberFont monospaceAt10() {
    return {10.0, 12.0, [](std::string_view text) { return 6.0 * static_cast<double>(text.size()); }};
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(CellNumbers, TheWidestExactNumberSetsTheCell) {
    // Multiples of 1/8 print with 3 decimals: "-0.125", "-1.000" are 6 characters, 36 px at
    // size 10, plus 0.3 x 12 px: 39.6 px, so 40 whole pixels; twice the size, twice the cell.
    const std::vector<double> bias{-0.125, -1.0, kNaN};
    EXPECT_EQ(cellForNumbers(bias, false, monospaceAt10(), 10), 40);
    EXPECT_EQ(cellForNumbers(bias, false, monospaceAt10(), 20), 80);  // 79.2 up
    EXPECT_DOUBLE_EQ(numberSizeForCell(bias, false, monospaceAt10(), 79.2), 20);
    // Probabilities keep 2 decimals: "0.25", "1.00", 24 + 3.6 px.
    const std::vector<double> attention{0.25, 1.0};
    EXPECT_EQ(cellForNumbers(attention, true, monospaceAt10(), 10), 28);
}

TEST(CellNumbers, ShortNumbersAreSizedByTheirLine) {
    // Whole numbers print "1", "2": 6 + 3.6 px across, but a 12 px line needs 12 / 0.75 = 16.
    const std::vector<double> whole{1, 2};
    EXPECT_EQ(cellForNumbers(whole, false, monospaceAt10(), 10), 16);
    EXPECT_DOUBLE_EQ(numberSizeForCell(whole, false, monospaceAt10(), 32), 20);
}

TEST(CellNumbers, TheNumbersFitTheRoomLeftAtTheSizeForTheCell) {
    // At the size numberSizeForCell gives, cellNumberTexts finds every exact number fits the
    // cell's room, and at a little more it does not.
    const std::vector<double> bias{-0.125, -1.0, -7.5};
    const double cell = 50;
    const double size = numberSizeForCell(bias, false, monospaceAt10(), cell);
    const auto widthAt = [](double s) {
        return [s](std::string_view t) { return 0.6 * s * static_cast<double>(t.size()); };
    };
    const auto at = cellNumberTexts(bias, false, widthAt(size), numberRoom(cell, 1.2 * size) + 1e-9);
    ASSERT_TRUE(at);
    EXPECT_EQ(at->decimals, 3);
    const double larger = size * 1.01;
    const auto over = cellNumberTexts(bias, false, widthAt(larger), numberRoom(cell, 1.2 * larger));
    ASSERT_TRUE(over);
    EXPECT_LT(over->decimals, 3);  // the core drops decimals: the exact ones no longer fit
}

TEST(CellNumbers, NothingToPrintGivesZero) {
    const std::vector<double> masked{kNaN, kNaN};
    EXPECT_EQ(cellForNumbers(masked, false, monospaceAt10(), 10), 0);
    EXPECT_EQ(numberSizeForCell(masked, false, monospaceAt10(), 40), 0);
    EXPECT_EQ(numberSizeForCell(std::vector<double>{1.0}, false, monospaceAt10(), 0), 0);
    EXPECT_EQ(cellForNumbers(std::vector<double>{1.0}, false, NumberFont{}, 10), 0);
}

}  // namespace
}  // namespace alibi
