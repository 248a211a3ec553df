// The front ends' names of a parameter (base/field_names.hpp): one table, and CLI-worded core
// messages reworded for Python and the explorers.
#include <alibi/base/field_names.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using alibi::Field;
using alibi::FrontEnd;

TEST(FieldNames, EveryFieldHasOneNamePerFrontEnd) {
    std::set<std::string_view> cli, python;
    for (const auto& f : alibi::fieldTable()) {
        EXPECT_TRUE(f.cli.starts_with("--")) << f.cli;
        EXPECT_FALSE(f.python.empty());
        EXPECT_FALSE(f.gui.empty());
        EXPECT_EQ(f.python.find('-'), std::string_view::npos) << f.python;  // a Python keyword
        EXPECT_TRUE(cli.insert(f.cli).second) << f.cli;
        EXPECT_TRUE(python.insert(f.python).second) << f.python;
        EXPECT_EQ(alibi::fieldOfFlag(f.cli), f.field);
    }
    EXPECT_EQ(alibi::fieldName(Field::BatchRow, FrontEnd::Cli), "--batch-row");
    EXPECT_EQ(alibi::fieldName(Field::BatchRow, FrontEnd::Python), "batch_row");
    EXPECT_EQ(alibi::fieldName(Field::BatchRow, FrontEnd::Gui), "Batch row");
    EXPECT_FALSE(alibi::fieldOfFlag("--no-such-flag"));
}

TEST(FieldNames, MessagesAreRewordedWholeFlagsOnly) {
    const std::string message = "a batch (--lengths, --documents) needs --keys equal to --seq, got --seq 8 --keys 9";
    EXPECT_EQ(alibi::wordMessage(message, FrontEnd::Cli), message);
    EXPECT_EQ(alibi::wordMessage(message, FrontEnd::Python),
              "a batch (lengths, documents) needs keys equal to seq, got seq 8 keys 9");
    EXPECT_EQ(alibi::wordMessage("--batch-row must be between 0 and 2", FrontEnd::Gui),
              "Batch row must be between 0 and 2");
    // Unknown flags, a flag inside a word, a lone "--" and a negative number stay as they are.
    EXPECT_EQ(alibi::wordMessage("--keysx and x--seq and -- and -1e9 and --heads-per-layer", FrontEnd::Python),
              "--keysx and x--seq and -- and -1e9 and --heads-per-layer");
}

}  // namespace
