// Front-end agreement of the two explorers (issue 23, item 1): the same edits, table-driven, go
// through the Qt explorer's model layer (SessionModel, Qt Core only) and the ImGui explorer's
// (the Explorer in a bare ImGui context, driven by frames and typed keys as a person would), and
// every answer is compared: the committed session, the clamping note, the refusal and its words,
// and what the core then computed for the views (grid title, slopes, slope curves, the curve
// plots' spans). Any
// difference fails. The CLI and Python are held to the same core by alibi_agreement.
#include "../imgui/explorer_fixture.hpp"
#include "model/session_model.hpp"

#include <alibi/explore/editing.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/plot_ranges.hpp>

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace alibi {
namespace {

// One edit, as a person makes it in either explorer.
struct Step {
    enum Kind { Heads, Queries, QueryRow, SelectedHead, CustomSlopes } kind;
    std::int64_t number = 0;
    std::string text = {};  // CustomSlopes: the text typed into the field
};

struct Case {
    std::string name;
    std::function<Session()> start;
    std::vector<Step> steps;
};

// What an explorer answered to one step.
struct Answer {
    Session session;
    std::string note;   // the clamping note ("" when nothing moved)
    std::string error;  // the refusal ("" when accepted)
};

Session batchSession() {
    Session s = defaultSession();
    s.attention.bias.queries = 16;
    s.attention.bias.keys = 0;
    s.batch.lengths = {16, 12, 9};
    s.batch.window = 12;
    s.batchRow = 2;
    return s;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> table{
        {"an edit that clamps the query row and the head",
         defaultSession,
         {{Step::Queries, 128},
          {Step::QueryRow, 100},
          {Step::Heads, 16},
          {Step::SelectedHead, 12},
          {Step::Queries, 32},
          {Step::Heads, 8}}},
        {"custom slopes written as decimals, fractions and powers, then H grown and cut",
         [] { return explore::withCustomSlopes(defaultSession(), std::vector<double>(8, 0.5)); },
         {{Step::CustomSlopes, 0, "1/2, 0.25, 2^-3"}, {Step::Heads, 5}, {Step::Heads, 2}}},
        {"slope lists that do not parse or are not positive",
         [] {
             return explore::withCustomSlopes(defaultSession(), {0.5, 0.25});
         },
         {{Step::CustomSlopes, 0, "0.5, abc"},
          {Step::CustomSlopes, 0, "0.5, -1"},
          {Step::CustomSlopes, 0, "1/0"},
          {Step::CustomSlopes, 0, "0.3; 0.1 0.05"}}},
        {"a batch follows T down, with a note per change",
         batchSession,
         {{Step::Queries, 8}, {Step::Queries, 4}, {Step::Queries, 32}}},
        {"refused edits keep the session and say why in the explorers' words",
         defaultSession,
         {{Step::Heads, 0}, {Step::Queries, 0}, {Step::QueryRow, 99}, {Step::Heads, 12}}},
    };
    return table;
}

class GuiAgreement : public imgui::ExplorerLogic {
protected:
    // The Qt model layer's answer.
    Answer viaQt(qt::SessionModel& model, const Step& step) {
        QSignalSpy notes(&model, &qt::SessionModel::adjusted);
        QSignalSpy errors(&model, &qt::SessionModel::errorOccurred);
        switch (step.kind) {
            case Step::Heads:
                (void)model.setHeads(static_cast<int>(step.number));
                break;
            case Step::Queries:
                (void)model.setQueries(step.number);
                break;
            case Step::QueryRow:
                (void)model.setQueryRow(step.number);
                break;
            case Step::SelectedHead:
                (void)model.setSelectedHead(static_cast<int>(step.number));
                break;
            case Step::CustomSlopes:
                (void)model.setCustomSlopes(QString::fromStdString(step.text));
                break;
        }
        Answer a;
        a.session = model.session();
        if (!notes.isEmpty()) {
            a.note = notes.takeLast().at(0).toString().toStdString();
            const std::string prefix = "Adjusted: ";  // the status bar's framing, not the note
            if (a.note.starts_with(prefix)) a.note.erase(0, prefix.size());
        }
        if (!errors.isEmpty()) a.error = errors.takeLast().at(1).toString().toStdString();
        return a;
    }

    // The ImGui model layer's answer: the value set as a released slider or a typed field sets it.
    Answer viaImGui(const Step& step) {
        auto& st = state();
        st.statusMessage.clear();
        st.validationError.clear();
        st.customSlopesError.clear();
        switch (step.kind) {
            case Step::Heads:
                st.session.attention.bias.slopes.heads = static_cast<int>(step.number);
                break;
            case Step::Queries:
                st.session.attention.bias.queries = step.number;
                break;
            case Step::QueryRow:
                st.session.queryRow = step.number;
                break;
            case Step::SelectedHead:
                st.session.head = static_cast<int>(step.number);
                break;
            case Step::CustomSlopes:
                EXPECT_TRUE(click("Parameters", "##custom", 0.5f)) << "the custom slopes field";
                press('A', true);  // select all
                type(step.text);
                press(imgui::kKeyEnter);
                break;
        }
        frame();
        frame();
        Answer a;
        a.session = m_explorer->history().current();
        a.note = st.statusMessage;
        a.error = step.kind == Step::CustomSlopes ? st.customSlopesError : st.validationError;
        if (step.kind == Step::CustomSlopes) {  // leave the field, as a click elsewhere does
            ImGui::ClearActiveID();
            frame();
        }
        return a;
    }
};

std::string describe(const Step& step) {
    static const char* kinds[] = {"H", "T", "query row", "selected head", "custom slopes"};
    return std::string(kinds[step.kind]) + " = " +
           (step.kind == Step::CustomSlopes ? "'" + step.text + "'" : std::to_string(step.number));
}

TEST_F(GuiAgreement, BothExplorersAnswerEveryEditAlike) {
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const Session start = c.start();
        qt::SessionModel model;
        ASSERT_TRUE(model.loadSession(start));
        ASSERT_TRUE(m_explorer->openSession(start, ""));
        frame();
        for (const Step& step : c.steps) {
            SCOPED_TRACE(describe(step));
            const Answer q = viaQt(model, step);
            const Answer g = viaImGui(step);
            EXPECT_EQ(q.error, g.error);
            EXPECT_EQ(q.note, g.note);
            EXPECT_TRUE(q.session == g.session)
                << "Qt H " << q.session.attention.bias.slopes.heads << " T " << q.session.attention.bias.queries
                << " row " << q.session.queryRow << "; ImGui H " << g.session.attention.bias.slopes.heads << " T "
                << g.session.attention.bias.queries << " row " << g.session.queryRow;
            // No flag or session-file field in an explorer's words.
            for (const std::string* text : {&q.error, &q.note}) {
                EXPECT_EQ(text->find("--"), std::string::npos) << *text;
                EXPECT_EQ(text->find("session field"), std::string::npos) << *text;
            }
        }
        // What the core then computed for the views, from each explorer's pipeline.
        ASSERT_TRUE(QTest::qWaitFor([&] { return model.snapshot() && !model.pending(); }, 300000));
        settle();
        const auto snapshot = model.snapshot();
        const auto& grid = m_explorer->model().grid;
        const auto& curves = m_explorer->model().curves;
        ASSERT_TRUE(grid && curves);
        EXPECT_EQ(snapshot->grid->title, grid->title);
        EXPECT_EQ(snapshot->grid->slopes, grid->slopes);
        ASSERT_EQ(snapshot->slopeCurves.size(), curves->slopes.size());
        for (std::size_t i = 0; i < curves->slopes.size(); ++i) {
            EXPECT_EQ(snapshot->slopeCurves[i].label, curves->slopes[i].label);
            EXPECT_EQ(snapshot->slopeCurves[i].y, curves->slopes[i].y);
        }
        // The curves' axes span what the core's rule gives for Qt's series (Qt's plots take the
        // same plotRanges; the figures too): one curve, one axis.
        EXPECT_EQ(plotRanges(snapshot->slopeCurves, plotAxes(PlotKind::Slopes)), curves->slopeRange);
        EXPECT_EQ(plotRanges(snapshot->biasCurves, plotAxes(PlotKind::BiasDistance)), curves->biasRange);
        EXPECT_EQ(plotRanges(snapshot->attentionCurves, plotAxes(PlotKind::AttentionDistance)), curves->attentionRange);
    }
}

}  // namespace
}  // namespace alibi

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);  // the Qt model's queued results need an event loop
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
