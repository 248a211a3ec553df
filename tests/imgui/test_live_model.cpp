// Issue 29 in the ImGui explorer: Help > Example model runs the shipped BLOOM model on the Model
// view's text on a worker (the frames go on while it runs, and Cancel stops it), its maps open in
// the Maps view with the text's tokens in the hovered read-out, B's slope change is a session
// parameter (undone, saved and reopened) whose A vs B the Model view shows from the core's run,
// and folders the core refuses leave its words in the error popup and the maps shown before.
#include "explorer_fixture.hpp"

#include <alibi/lm/run_report.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace alibi::imgui {
namespace {

const std::string kExample = std::string(ALIBI_SOURCE_ASSETS) + "/models/license-bloom-tiny";

class ModelRunView : public ExplorerLogic {
protected:
    // Runs frames until the run under way ends; returns how many frames ran while it did.
    int framesWhileRunning() {
        int frames = 0;
        EXPECT_TRUE(framesUntil([&] {
            if (m_explorer->model().live.running) ++frames;
            return !m_explorer->model().live.running;
        }));
        settle();
        return frames;
    }
};

TEST_F(ModelRunView, ExampleModelOpensItsMapsWithTokens) {
    ASSERT_FALSE(exampleModelFolder().empty());
    m_explorer->openExampleModel();
    frame();
    // The run is on a worker: the frame returned while it runs.
    EXPECT_TRUE(m_explorer->model().live.running);
    EXPECT_GT(framesWhileRunning(), 0);
    const auto& live = m_explorer->model().live;
    ASSERT_TRUE(live.run) << state().errorPopup << live.error;
    EXPECT_TRUE(std::filesystem::equivalent(state().session.live.path, kExample));
    // The maps are shown in the Maps view, with the text's tokens.
    EXPECT_EQ(state().view, View::Maps);
    const auto& file = m_explorer->model().maps.file;
    ASSERT_TRUE(file && file->maps);
    const auto tokens = lm::tokensOfText(kExample, state().session.live.text);
    ASSERT_TRUE(tokens);
    EXPECT_EQ(file->maps->keys(), static_cast<std::int64_t>(tokens->ids.size()));
    EXPECT_EQ(file->maps->tokens(), tokens->text);
    EXPECT_EQ(file->maps->layers(), 2);
    EXPECT_EQ(file->maps->heads(), 6);
    // Paired with the slopes the run used (BLOOM's for 6 heads: 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1,
    // 2^-3), so each head reads beside its own ALiBi prior without a choice.
    const std::vector<double> bloom6 = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
    EXPECT_EQ(file->maps->fileSlopes(), bloom6);
    EXPECT_EQ(state().maps.prior, MapsPrior::File);
    EXPECT_EQ(m_explorer->model().maps.configured, bloom6);
    // Hovering the grid's first head reads the cell with its query and key tokens.
    const auto& grid = m_explorer->model().maps.grid;
    ASSERT_TRUE(grid && !grid->picture().tiles.empty());
    const HeatmapTile& t = grid->picture().tiles.front();
    ImGui::GetIO().MousePos = ImVec2(state().maps.gridX + static_cast<float>(t.x + t.width / 4),
                                     state().maps.gridY + static_cast<float>(t.y + t.height * 3 / 4));
    frame();
    frame();
    const std::string& readout = m_explorer->model().maps.hoverReadout;
    EXPECT_NE(readout.find("query token"), std::string::npos) << readout;
    EXPECT_NE(readout.find("key token"), std::string::npos) << readout;
}

TEST_F(ModelRunView, SlopeChangeIsASessionParameterWithAvsB) {
    m_explorer->openExampleModel();
    frame();
    framesWhileRunning();
    ASSERT_TRUE(m_explorer->model().live.run);
    state().view = View::Model;
    frame();
    // B: slopes x0.5, head 4's slope 1/16, the first 30 tokens of a typed text.
    state().session.live.change.scale = 0.5;
    frame();
    state().live.headsText = "4=1/16";
    state().session.live.change.headSlopes = {{4, 0.0625}};
    frame();
    state().session.live.length = 30;
    frame();
    state().live.textDraft =
        "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
        "associated documentation files, to deal in the Software without restriction.";
    state().live.run = true;
    frame();
    framesWhileRunning();
    const auto& live = m_explorer->model().live;
    ASSERT_TRUE(live.run && live.run->loss.b) << state().errorPopup;
    EXPECT_EQ(live.run->loss.tokens.ids.size(), 30u);
    EXPECT_EQ(live.run->loss.b->slopes[4], 0.0625);
    EXPECT_EQ(live.run->meanChange.size(), 12u);
    EXPECT_EQ(state().view, View::Model);  // A vs B stays in view
    frame();
    EXPECT_GT(state().live.lossPlotRect.width, 0.0f);
    EXPECT_EQ(m_explorer->model().maps.file->maps, live.run->maps);

    // Saved and reopened with the session.
    const std::string path =
        (std::filesystem::temp_directory_path() / ("alibi-imgui-live-" + std::to_string(::getpid()) + ".alibi.json"))
            .string();
    ASSERT_TRUE(saveSession(state().session, path));
    auto loaded = loadSession(path);
    std::filesystem::remove(path);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->live, state().session.live);
    EXPECT_EQ(loaded->live.change.scale, 0.5);

    // Undone step by step: the text Run committed, the length, then the slope change.
    m_explorer->undo();
    frame();
    EXPECT_EQ(state().live.textDraft, std::string(kDefaultLiveText));
    m_explorer->undo();
    frame();
    EXPECT_EQ(state().session.live.length, 0);
    // The heads' and the scale's edits (one step each, or one when made in frames ImGui counts as
    // one edit): back to the model's own slopes, the folder kept.
    for (int i = 0; i < 2 && !state().session.live.change.none(); ++i) {
        m_explorer->undo();
        frame();
    }
    EXPECT_TRUE(state().session.live.change.headSlopes.empty());
    EXPECT_EQ(state().live.headsText, "");
    EXPECT_EQ(state().session.live.change.scale, 1.0);
    EXPECT_TRUE(state().session.live.change.none());
    EXPECT_FALSE(state().session.live.path.empty());
}

TEST_F(ModelRunView, CancelStopsARunAndTheMapsStay) {
    m_explorer->openExampleModel();
    frame();
    framesWhileRunning();
    const auto shown = m_explorer->model().maps.file;
    ASSERT_TRUE(shown);
    // A long text, cancelled in the next frame: the frames go on, nothing new is shown.
    std::string text;
    for (int i = 0; i < 80; ++i) text += "Permission is hereby granted, free of charge, to any person. ";
    state().live.textDraft = text;
    state().live.run = true;
    frame();
    ASSERT_TRUE(m_explorer->model().live.running);
    state().live.cancel = true;
    frame();
    EXPECT_FALSE(m_explorer->model().live.running);
    settle();
    EXPECT_EQ(m_explorer->model().maps.file, shown);
    EXPECT_NE(state().statusMessage.find("cancelled"), std::string::npos) << state().statusMessage;
}

TEST_F(ModelRunView, RefusalsAreTheCoresWords) {
    m_explorer->openExampleModel();
    frame();
    framesWhileRunning();
    const auto shown = m_explorer->model().maps.file;
    ASSERT_TRUE(shown);
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("alibi-imgui-llama-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})";
    m_explorer->openModel(dir.string());
    frame();
    framesWhileRunning();
    EXPECT_NE(state().errorPopup.find("does not use ALiBi"), std::string::npos) << state().errorPopup;
    EXPECT_NE(m_explorer->model().live.error.find("does not use ALiBi"), std::string::npos);
    state().errorPopup.clear();
    m_explorer->openModel((dir / "missing").string());
    frame();
    framesWhileRunning();
    EXPECT_NE(state().errorPopup.find("missing"), std::string::npos) << state().errorPopup;
    std::filesystem::remove_all(dir);
    EXPECT_EQ(m_explorer->model().maps.file, shown);
    // A refused edit never reaches the session: the core's words, in the explorers' names.
    state().errorPopup.clear();
    state().session.live.change.scale = -2;
    frame();
    EXPECT_EQ(state().session.live.change.scale, 1.0);
    EXPECT_NE(state().validationError.find("B: slopes"), std::string::npos) << state().validationError;
}

}  // namespace
}  // namespace alibi::imgui
