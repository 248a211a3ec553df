// Exports say what they will write and refuse what cannot work (the core's planExport, as the
// CLI), and sessions open in the view they name with Compare's B, in the ImGui explorer.
#include "explorer_fixture.hpp"
#include "view_models.hpp"

#include <alibi/io/session.hpp>

#include <unistd.h>

#include <filesystem>

namespace alibi::imgui {
namespace {

using ExportsAndSessions = ExplorerLogic;

const std::string kSessions = std::string(ALIBI_SOURCE_ASSETS) + "/sessions/";

void openFile(ExplorerLogic& test, const std::string& path) {
    auto session = loadSession(path);
    ASSERT_TRUE(session) << session.error().message;
    ASSERT_TRUE(test.m_explorer->openSession(*session, path));
    test.frame();
    test.frame();
}

TEST_F(ExportsAndSessions, TheExportPanelShowsShapeDtypeLayoutAndBytes) {
    frame();
    const ExportPlan& plan = m_explorer->model().exportPlan;
    ASSERT_TRUE(plan.allowed()) << plan.reason;
    const std::string summary = plan.summary();
    // Default session: (8, 16, 16) f32, hqk, npy: 8 * 16 * 16 * 4 bytes + the header.
    EXPECT_NE(summary.find("(8, 16, 16) f32"), std::string::npos) << summary;
    EXPECT_NE(summary.find("hqk"), std::string::npos) << summary;
    EXPECT_EQ(plan.bytes, 8u * 16u * 16u * 4u + npyHeader({8, 16, 16}, DType::F32).size());
    EXPECT_TRUE(plan.freeBytes.has_value());
}

TEST_F(ExportsAndSessions, AnF16ExportWithAMaskItCannotHoldIsRefusedWithAOneClickFix) {
    openFile(*this, kSessions + "fp16-mask-overflow.alibi.json");
    const ExportPlan& plan = m_explorer->model().exportPlan;
    ASSERT_FALSE(plan.allowed());
    EXPECT_EQ(plan.refusal, ExportRefusal::MaskOverflow);
    EXPECT_EQ(plan.fix, ExportFix::UseMaskMin);
    // Pressing Export anyway writes nothing and says why.
    state().exportPath =
        (std::filesystem::temp_directory_path() / ("alibi-f16-" + std::to_string(::getpid()) + ".npy")).string();
    state().actions.exportTensor = true;
    frame();
    EXPECT_EQ(state().errorPopup, plan.reason);
    EXPECT_FALSE(std::filesystem::exists(state().exportPath));
    state().errorPopup.clear();
    frame();
    ASSERT_TRUE(click("Session and export", "Use mask = min", 0.1f));
    frame();
    EXPECT_EQ(state().session.attention.bias.mask.kind, MaskValue::Kind::Lowest);
    EXPECT_TRUE(m_explorer->model().exportPlan.allowed()) << m_explorer->model().exportPlan.reason;
    m_explorer->undo();  // the fix is an ordinary, undoable edit
    EXPECT_EQ(state().session.attention.bias.mask.kind, MaskValue::Kind::Finite);
}

TEST_F(ExportsAndSessions, AnExportLargerThanTheFreeSpaceIsRefused) {
    Session huge = defaultSession();
    huge.attention.bias.slopes.heads = 256;
    huge.attention.bias.queries = 65536;
    // 4 TiB against a 1 GiB file system (the core's FreeSpaceFn stands for the disk).
    const ExportPlan plan = planSessionExport(huge, "/tmp/huge.npy", FileFormat::Npy, [](const std::string&) {
        return std::optional<std::uint64_t>(1u << 30);
    });
    EXPECT_EQ(plan.refusal, ExportRefusal::NoSpace);
    EXPECT_FALSE(plan.reason.empty());
    // And through the panel, against this machine's real file system.
    ASSERT_TRUE(m_explorer->applySession(huge));
    frame();
    frame();
    EXPECT_EQ(m_explorer->model().exportPlan.refusal, ExportRefusal::NoSpace)
        << m_explorer->model().exportPlan.summary();
}

TEST_F(ExportsAndSessions, ASessionOpensInItsViewWithComparesB) {
    openFile(*this, kSessions + "press-vs-geometric-12.alibi.json");
    EXPECT_EQ(state().view, View::Compare);
    ASSERT_TRUE(state().compareB.scheme.has_value());
    EXPECT_EQ(*state().compareB.scheme, SlopeScheme::Geometric);
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 12);
    EXPECT_FALSE(m_explorer->modified());

    // Issue 10: changing B is an undo step and an unsaved change, like any parameter.
    state().compareB.scheme = SlopeScheme::Linear;
    frame();
    EXPECT_TRUE(m_explorer->modified());
    EXPECT_NE(m_explorer->windowTitle().find(" *"), std::string::npos) << m_explorer->windowTitle();
    m_explorer->undo();
    frame();
    EXPECT_EQ(state().compareB.scheme, std::optional<SlopeScheme>(SlopeScheme::Geometric));
    EXPECT_FALSE(m_explorer->modified());
    m_explorer->redo();
    frame();
    EXPECT_EQ(state().compareB.scheme, std::optional<SlopeScheme>(SlopeScheme::Linear));
    m_explorer->undo();
    frame();

    // Saved with the view and B, and opened again as saved.
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("alibi-imgui-view-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    state().view = View::Extrapolation;
    state().compareB.scheme = SlopeScheme::Linear;
    state().compareB.maxBias = 4.0;
    state().sessionPath = (dir / "v.alibi.json").string();
    state().actions.saveSession = true;
    frame();
    ASSERT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    m_explorer->resetToDefaults();
    state().view = View::Grid;
    state().compareB = {};
    frame();
    openFile(*this, (dir / "v.alibi.json").string());
    EXPECT_EQ(state().view, View::Extrapolation);
    EXPECT_EQ(state().compareB.scheme, std::optional<SlopeScheme>(SlopeScheme::Linear));
    EXPECT_EQ(state().compareB.maxBias, std::optional<double>(4.0));
    std::filesystem::remove_all(dir);
}

TEST_F(ExportsAndSessions, AQtSessionWithHeadZeroOpensOnTheWholeGrid) {
    openFile(*this, kSessions + "fp16-mask-overflow.alibi.json");  // view.head = 0
    EXPECT_EQ(state().view, View::Grid);
    settle();
    // The grid shows every head, as in the Qt explorer; head 0 is the detail view's.
    EXPECT_EQ(m_explorer->model().grid->heatmap.tiles.size(), 8u);
    EXPECT_EQ(state().session.head, 0);
}

}  // namespace
}  // namespace alibi::imgui
