// The editing model: the slope-list grammar (fractions and powers), the clamp of dependents with
// notes, custom slopes following H one way, commitEdit's refusals, and the undo history.
#include <alibi/base/field_names.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/model/params.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace alibi;
using namespace alibi::explore;

TEST(SlopeList, TakesDecimalsFractionsAndPowersWithAnySeparator) {
    auto parsed = parseSlopeList("0.5, 1/4;2^-3 \n 1/2^4\t+3.2e-2");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(*parsed, (std::vector<double>{0.5, 0.25, 0.125, 0.0625, 0.032}));
}

TEST(SlopeList, RefusesWithTheFieldNameAndTheItem) {
    auto bad = parseSlopeList("0.5, abc");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(bad.error().message.find("--slopes: 'abc' is not a number (value 2)"), std::string::npos)
        << bad.error().message;
    auto negative = parseSlopeList("0.5,-1", "--b-slopes");
    ASSERT_FALSE(negative);
    EXPECT_EQ(negative.error().message.rfind("--b-slopes: '-1' is not a positive number", 0), 0u)
        << negative.error().message;
    for (const char* text :
         {"", " , ;", "0.5,,0.25", "0.5, ;0.25", ",0.5", "0.5,", "1/0", "0", "inf", "nan", "2^", "/8", "1e400"})
        EXPECT_FALSE(parseSlopeList(text)) << text;
    std::string many;
    for (int i = 0; i <= kMaxHeads; ++i) many += "0.5,";
    EXPECT_FALSE(parseSlopeList(many));
    // In the explorers' words: the field's label, not the flag.
    EXPECT_EQ(wordMessage(bad.error().message, FrontEnd::Gui).rfind("Custom slopes: 'abc' is not a number", 0), 0u);
}

TEST(SlopeList, ItsTextReadsBackExactly) {
    const std::vector<double> slopes{1.0 / 3.0, 0.0625, std::pow(2.0, -8.0 / 3.0)};
    auto back = parseSlopeList(slopeListText(slopes));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, slopes);
}

TEST(CustomSlopes, FollowHOneWayCutOrContinuedGeometrically) {
    Session s = withCustomSlopes(defaultSession(), {0.5, 0.25, 0.125, 0.0625});
    EXPECT_EQ(s.attention.bias.slopes.heads, 4);
    EXPECT_EQ(s.attention.bias.slopes.scheme, SlopeScheme::Custom);
    s.attention.bias.slopes.heads = 2;
    EXPECT_EQ(fitCustomSlopes(s.attention.bias.slopes), "custom slopes cut to the first 2 of 4");
    EXPECT_EQ(s.attention.bias.slopes.custom, (std::vector<double>{0.5, 0.25}));
    s.attention.bias.slopes.custom = {0.9, 0.3};
    s.attention.bias.slopes.heads = 4;
    EXPECT_FALSE(fitCustomSlopes(s.attention.bias.slopes).empty());
    ASSERT_EQ(s.attention.bias.slopes.custom.size(), 4u);
    EXPECT_DOUBLE_EQ(s.attention.bias.slopes.custom[2], 0.1);
    EXPECT_DOUBLE_EQ(s.attention.bias.slopes.custom[3], 0.1 / 3);
    s.attention.bias.slopes.custom = {0.4};
    s.attention.bias.slopes.heads = 3;
    (void)fitCustomSlopes(s.attention.bias.slopes);
    EXPECT_EQ(s.attention.bias.slopes.custom, (std::vector<double>{0.4, 0.2, 0.1}));
    EXPECT_EQ(fitCustomSlopes(s.attention.bias.slopes), "");  // nothing to change
}

TEST(CommitEdit, ClampsDependentsWithNotesAndRefusesInvalidSessions) {
    Session s = defaultSession();
    s.attention.bias.queries = 128;
    s.queryRow = 100;
    s.attention.bias.slopes.heads = 16;
    s.head = 12;
    s.attention.bias.queries = 32;
    s.attention.bias.slopes.heads = 8;
    auto edit = commitEdit(s);
    ASSERT_TRUE(edit) << edit.error().message;
    EXPECT_EQ(edit->session.queryRow, 31);
    EXPECT_EQ(edit->session.head, 7);
    const std::string notes = joinNotes(edit->notes);
    EXPECT_NE(notes.find("query row 100 → 31"), std::string::npos) << notes;
    EXPECT_NE(notes.find("selected head 12 → 7"), std::string::npos) << notes;

    Session bad = defaultSession();
    bad.attention.bias.slopes.heads = 0;
    auto refused = commitEdit(bad);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("--heads"), std::string::npos) << refused.error().message;
}

// A refusal about one parameter carries its field, so each explorer shows the message at that
// control, and the message names the field as that front end does.
TEST(CommitEdit, ARefusalNamesTheFieldItIsAbout) {
    const Session start = defaultSession();
    const auto refusedField = [&start](Session s) -> std::optional<Field> {
        auto edit = commitEdit(std::move(s), &start);  // typed by the user: a batch edit is not fitted
        EXPECT_FALSE(edit);
        return edit ? std::nullopt : edit.error().field;
    };
    Session s = defaultSession();
    s.attention.bias.slopes.heads = 0;
    EXPECT_EQ(refusedField(s), Field::Heads);
    s = defaultSession();
    s.attention.bias.slopes.maxBias = -1;
    EXPECT_EQ(refusedField(s), Field::MaxBias);
    s = defaultSession();
    s.attention.content.dk = 0;
    EXPECT_EQ(refusedField(s), Field::Dk);
    s = defaultSession();
    s.attention.bias.queries = 16;
    s.batch.lengths = {16, 8};
    s.batch.window = 17;  // typed: a window longer than T
    EXPECT_EQ(refusedField(s), Field::Window);
    s.batch.window = 0;
    s.batch.lengths = {16, 20};
    EXPECT_EQ(refusedField(s), Field::Lengths);

    auto slopes = parseSlopeList("0.5, x", "--slopes");
    ASSERT_FALSE(slopes);
    EXPECT_EQ(slopes.error().field, Field::Slopes);
    // The GUI wording names the control, not the flag.
    Session heads = defaultSession();
    heads.attention.bias.slopes.heads = 0;
    const std::string gui = guiMessage(commitEdit(heads).error().message);
    EXPECT_EQ(gui.find("--heads"), std::string::npos) << gui;
    EXPECT_NE(gui.find("Heads H"), std::string::npos) << gui;
}

TEST(EditHistory, UndoRedoGroupsAndTheModifiedMark) {
    Session a = defaultSession();
    EditHistory history(a);
    EXPECT_FALSE(history.modified());
    Session b = a;
    b.attention.bias.queries = 32;
    history.record(b);
    history.record(b);  // unchanged: no step
    EXPECT_TRUE(history.modified());
    // A drag: every value it passes is one step.
    history.beginGroup();
    for (std::int64_t t = 33; t <= 40; ++t) {
        Session c = b;
        c.attention.bias.queries = t;
        history.record(c);
    }
    history.endGroup();
    EXPECT_EQ(history.current().attention.bias.queries, 40);
    auto undone = history.undo();
    ASSERT_TRUE(undone);
    EXPECT_EQ(undone->attention.bias.queries, 32);
    undone = history.undo();
    ASSERT_TRUE(undone);
    EXPECT_EQ(*undone, a);
    EXPECT_FALSE(history.modified());
    EXPECT_FALSE(history.undo());
    auto redone = history.redo();
    ASSERT_TRUE(redone);
    EXPECT_EQ(redone->attention.bias.queries, 32);
    history.markSaved(history.current());
    EXPECT_FALSE(history.modified());
    history.reset(a);
    EXPECT_FALSE(history.canUndo());
    EXPECT_FALSE(history.canRedo());
}
