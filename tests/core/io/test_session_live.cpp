// A model run's parameters in the session (issue 29): the `model` section (folder, text, B's
// slope change, length) round-trips through the session file, is written only when set (older
// files and fresh sessions unchanged), is refused field by field when wrong, and is undone and
// redone by the editing model's history like any parameter. The head-slope list has one grammar.
#include <alibi/explore/editing.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/live_model.hpp>
#include "temp_dir_fixture.hpp"

#include <gtest/gtest.h>

namespace alibi::test {
namespace {

Session withModel() {
    Session s = defaultSession();
    s.live.path = "/models/license-bloom-tiny";
    s.live.text = "Permission is hereby granted,\n\"quoted\" and ünïcode ⏎";
    s.live.length = 48;
    s.live.change.scale = 0.5;
    s.live.change.scheme = SlopeScheme::Geometric;
    s.live.change.maxBias = 12;
    s.live.change.headSlopes = {{0, 0.125}, {5, 1.0 / 3.0}};
    return s;
}

class SessionLive : public TempDirTest {};

TEST_F(SessionLive, RoundTripsThroughTheFile) {
    const Session s = withModel();
    ASSERT_TRUE(saveSession(s, path("a.alibi.json")));
    auto back = loadSession(path("a.alibi.json"));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->live, s.live);
    EXPECT_EQ(*back, s);
    const std::string text = serializeSession(s);
    EXPECT_NE(text.find("\"model\""), std::string::npos);
    EXPECT_NE(text.find("\"slope_scale\": 0.5"), std::string::npos) << text;
    EXPECT_NE(text.find("\"5\": 0.3333333333333333"), std::string::npos) << text;
}

TEST_F(SessionLive, WrittenOnlyWhenSet) {
    EXPECT_EQ(serializeSession(defaultSession()).find("\"model\""), std::string::npos);
    auto parsed = parseSession(R"({"version": 1})");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->live, LiveModelParams{});
    EXPECT_EQ(parsed->live.text, std::string(kDefaultLiveText));
    // Only the folder: the rest keeps its defaults.
    parsed = parseSession(R"({"version": 1, "model": {"path": "m"}})");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->live.path, "m");
    EXPECT_TRUE(parsed->live.change.none());
    EXPECT_EQ(parsed->live.length, 0);
}

TEST_F(SessionLive, BadFieldsAreNamed) {
    const auto refused = [](const std::string& model, const std::string& words) {
        auto s = parseSession(R"({"version": 1, "model": )" + model + "}");
        ASSERT_FALSE(s) << model;
        EXPECT_NE(s.error().message.find(words), std::string::npos) << s.error().message;
    };
    refused(R"({"pth": "m"})", "model.pth");
    refused(R"({"path": 3})", "model.path");
    refused(R"({"slope_scale": -1})", "model.slope_scale");
    refused(R"({"slope_scheme": "custom"})", "model.slope_scheme");
    refused(R"({"slope_scheme": "nope"})", "model.slope_scheme");
    refused(R"({"slope_max_bias": 5000})", "model.slope_max_bias");
    refused(R"({"head_slopes": {"x": 1}})", "model.head_slopes");
    refused(R"({"head_slopes": {"2": -1}})", "model.head_slopes.2");
    refused(R"({"head_slopes": [1]})", "model.head_slopes");
    refused(R"({"length": -3})", "model.length");
    refused(R"([1])", "model");
}

TEST_F(SessionLive, UndoAndRedoLikeAnyParameter) {
    explore::EditHistory history;
    const Session a = history.current();
    Session b = a;
    b.live.path = "/models/x";
    auto edit = explore::commitEdit(b, &a);
    ASSERT_TRUE(edit) << edit.error().message;
    history.record(edit->session);
    Session c = edit->session;
    c.live.change.scale = 2;
    c.live.text = "other text";
    edit = explore::commitEdit(c, &b);
    ASSERT_TRUE(edit);
    history.record(edit->session);
    EXPECT_TRUE(history.modified());
    auto back = history.undo();
    ASSERT_TRUE(back);
    EXPECT_EQ(back->live.path, "/models/x");
    EXPECT_EQ(back->live.change.scale, 1.0);
    EXPECT_EQ(back->live.text, std::string(kDefaultLiveText));
    back = history.undo();
    ASSERT_TRUE(back);
    EXPECT_EQ(back->live, LiveModelParams{});
    EXPECT_FALSE(history.modified());
    auto forward = history.redo();
    ASSERT_TRUE(forward);
    forward = history.redo();
    ASSERT_TRUE(forward);
    EXPECT_EQ(forward->live.change.scale, 2.0);
    EXPECT_EQ(forward->live.text, "other text");
    // A refused value never reaches the history: the core says why, naming the field.
    Session bad = *forward;
    bad.live.change.maxBias = -1;
    auto refused = explore::commitEdit(bad, &*forward);
    ASSERT_FALSE(refused);
    EXPECT_NE(explore::guiMessage(refused.error().message).find("B max_bias"), std::string::npos)
        << explore::guiMessage(refused.error().message);
}

TEST(SessionLiveCli, TheCommandRunsTheSameModelTextAndChange) {
    EXPECT_EQ(liveCliCommand(LiveModelParams{}), "");
    LiveModelParams p;
    p.path = "/models/tiny";
    p.text = "it's here";
    EXPECT_EQ(liveCliCommand(p), "alibi loss /models/tiny --text 'it'\\''s here'");
    p.length = 40;
    p.change.scale = 0.5;
    p.change.scheme = SlopeScheme::Geometric;
    p.change.maxBias = 12;
    p.change.headSlopes = {{4, 0.0625}, {1, 2}};
    EXPECT_EQ(liveCliCommand(p),
              "alibi loss /models/tiny --text 'it'\\''s here' --length 40 --slope-scale 0.5 --slope-scheme geometric "
              "--slope-max-bias 12 --head-slope 1=2,4=0.0625");
}

TEST(HeadSlopes, OneGrammar) {
    auto h = parseHeadSlopes("3=0.25, 0=1/2;5=2^-3  7=1/2^2");
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(*h, (std::map<int, double>{{0, 0.5}, {3, 0.25}, {5, 0.125}, {7, 0.25}}));
    EXPECT_EQ(headSlopesText(*h), "0=0.5, 3=0.25, 5=0.125, 7=0.25");
    EXPECT_EQ(parseHeadSlopes(headSlopesText(*h)).value(), *h);
    EXPECT_TRUE(parseHeadSlopes("")->empty());
    for (const char* bad : {"3", "=1", "x=1", "-1=1", "3=abc", "3=-1", "3=1/0", "3=2e7"}) {
        auto r = parseHeadSlopes(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().message.find("--head-slope"), std::string::npos) << r.error().message;
    }
}

}  // namespace
}  // namespace alibi::test
