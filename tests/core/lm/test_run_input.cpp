// lm::resolveRunInput: a session's `model` section first, then each value given replaces the
// session's value of its field; the refusals say what to add.
#include <alibi/lm/run_input.hpp>

#include <gtest/gtest.h>

#include <string>

namespace alibi::lm {
namespace {

SessionModel saved() {
    LiveModelParams p;
    p.path = "models/tiny";
    p.text = "Permission is hereby granted";
    p.length = 12;
    p.change.scale = 0.5;
    p.change.headSlopes = {{4, 1.0 / 16}};
    return {"run.alibi.json", p};
}

TEST(RunInput, TakesTheSessionsModelSection) {
    auto in = resolveRunInput(saved(), {});
    ASSERT_TRUE(in) << in.error().message;
    EXPECT_EQ(in->model, "models/tiny");
    ASSERT_TRUE(in->text);
    EXPECT_EQ(*in->text, "Permission is hereby granted");
    EXPECT_FALSE(in->ids);
    EXPECT_EQ(in->length, 12);
    EXPECT_DOUBLE_EQ(in->change.scale, 0.5);
    EXPECT_EQ(in->change.headSlopes, (std::map<int, double>{{4, 1.0 / 16}}));
}

TEST(RunInput, GivenValuesReplaceTheSessionsOneByOne) {
    RunValues given;
    given.model = "other";
    given.scale = 2.0;
    given.length = 5;
    auto in = resolveRunInput(saved(), given);
    ASSERT_TRUE(in) << in.error().message;
    EXPECT_EQ(in->model, "other");
    EXPECT_EQ(in->length, 5);
    EXPECT_DOUBLE_EQ(in->change.scale, 2.0);
    EXPECT_EQ(in->change.headSlopes.size(), 1U);  // kept: only the scale was given
    EXPECT_EQ(*in->text, "Permission is hereby granted");

    RunValues ids;
    ids.ids = std::vector<std::int64_t>{1, 2, 3};
    ids.headSlopes = std::map<int, double>{};  // the whole list replaced: no single heads
    ids.scheme = SlopeScheme::Geometric;
    auto byIds = resolveRunInput(saved(), ids);
    ASSERT_TRUE(byIds) << byIds.error().message;
    EXPECT_FALSE(byIds->text);
    EXPECT_EQ(*byIds->ids, (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_TRUE(byIds->change.headSlopes.empty());
    EXPECT_EQ(byIds->change.scheme, SlopeScheme::Geometric);
}

TEST(RunInput, WithoutASessionEverythingIsGiven) {
    RunValues given;
    given.model = "m";
    given.text = "hello";
    auto in = resolveRunInput(std::nullopt, given);
    ASSERT_TRUE(in) << in.error().message;
    EXPECT_TRUE(in->change.none());
    EXPECT_EQ(in->length, 0);
}

void expectRefused(const std::optional<SessionModel>& session, const RunValues& given, const std::string& words) {
    auto in = resolveRunInput(session, given);
    ASSERT_FALSE(in);
    EXPECT_NE(in.error().message.find(words), std::string::npos) << in.error().message;
}

TEST(RunInput, Refusals) {
    RunValues model;
    model.model = "m";
    model.text = "t";
    // No model section: refused even with the model named (the session would give nothing).
    expectRefused(SessionModel{"bare.alibi.json", {}}, model, "the session bare.alibi.json has no `model` section");
    SessionModel pathless = saved();
    pathless.params.path.clear();
    expectRefused(pathless, {}, "without a `path`");
    EXPECT_TRUE(resolveRunInput(pathless, model));
    RunValues both = model;
    both.ids = std::vector<std::int64_t>{1};
    expectRefused(std::nullopt, both, "text or token ids, not both");
    expectRefused(std::nullopt, {}, "no model");
    RunValues noInput;
    noInput.model = "m";
    expectRefused(std::nullopt, noInput, "no input");
    RunValues zero = model;
    zero.length = 0;
    expectRefused(std::nullopt, zero, "length 0");
}

}  // namespace
}  // namespace alibi::lm
