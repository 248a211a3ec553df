// Issue 25, item 3: session files (File > Open, a drop, the command line) and the Diagnose view's
// tensors are read on a worker, with the core's progress and a Cancel; an open that fails or is
// cancelled keeps the parameters, unsaved work included.
//
// The watchdog tests hold the reading thread at its first progress report (the read observer, a
// stand-in for a slow disk) until the test has run a few frames: a read inside a frame would
// keep the next frame from ever coming, so the hold would end only at its hang guard and the test
// fails. No test measures time.
#include "explorer_fixture.hpp"

#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace alibi::imgui {
namespace {

// Holds the reading thread at its first report of stage `at` until released (or a 120 s hang
// guard passes), or stops the read there (`stop`); records every report.
struct Hold : std::enable_shared_from_this<Hold> {
    std::atomic<bool> held{false}, released{false};
    std::mutex mutex;
    std::vector<ReadProgress> reports;
    ReadProgress::Stage at = ReadProgress::Stage::Reading;
    bool stop = false;

    ReadProgressFn observer() {
        // The observer keeps the hold alive: the reading thread may still be in it when the test
        // has moved on.
        return [this, keep = shared_from_this()](const ReadProgress& p) {
            {
                std::lock_guard lock(mutex);
                reports.push_back(p);
            }
            if (p.stage != at || held.exchange(true)) return true;
            if (stop) return false;
            const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(120);
            while (!released.load() && std::chrono::steady_clock::now() < guard)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return true;
        };
    }
    // Every fraction within [0, 1], never going back, with the core's words, ending at 1.
    bool forward() {
        std::lock_guard lock(mutex);
        double last = 0;
        for (const ReadProgress& p : reports) {
            if (p.fraction() < last || p.fraction() > 1 || p.text().empty()) return false;
            last = p.fraction();
        }
        return !reports.empty() && reports.back().fraction() == 1.0;
    }
};

class Reads : public ExplorerLogic {
public:
    void SetUp() override {
        ExplorerLogic::SetUp();
        m_dir = std::filesystem::temp_directory_path() / ("alibi-imgui-reads-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override {
        ExplorerLogic::TearDown();
        std::filesystem::remove_all(m_dir);
    }

    // A valid session (H = 6, T = 40, symmetric) padded with spaces to about `bytes`.
    std::string writeSession(const std::string& name, std::size_t bytes) {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary)
            << "{\"version\": 1," << std::string(bytes, ' ')
            << "\"bias\": {\"heads\": 6, \"queries\": 40, \"keys\": 40, \"mode\": \"symmetric\"}}\n";
        return path;
    }
    // Correct causal ALiBi of (H, T, T) f32 as an .npy.
    std::string writeBias(const std::string& name, int heads, std::int64_t length) {
        BiasParams p;
        p.slopes.heads = heads;
        p.queries = length;
        auto bias = buildBias(p);
        const std::string path = (m_dir / name).string();
        ExportOptions options;
        options.format = FileFormat::Npy;
        options.allowNonFinite = true;
        EXPECT_TRUE(bias && exportTensor(*tensorSource(*bias), path, options));
        return path;
    }
    // Frames until the hold has held and `frames` more frames ran, then releases it; false when
    // the hold never held (within the fixture's hang guard).
    bool framesWhileHeld(const std::shared_ptr<Hold>& hold, int frames, int& counted) {
        if (!framesUntil([&] { return hold->held.load(); })) return false;
        while (!hold->released.load() && counted < frames) {
            frame();
            ++counted;
        }
        hold->released = true;
        return true;
    }

    std::filesystem::path m_dir;
};

}  // namespace

// A 15 MiB session file: frames keep coming while it is read, the session panel shows its
// progress, and the parameters change only once it has been read.
TEST_F(Reads, ALargeSessionIsReadWhileFramesKeepComing) {
    const std::string path = writeSession("large.alibi.json", std::size_t{15} << 20);
    state().session.attention.bias.slopes.heads = 5;  // unsaved work
    frame();
    const Session before = state().session;
    auto hold = std::make_shared<Hold>();
    m_explorer->setReadObserver(hold->observer());
    state().sessionPath = path;
    state().actions.openSession = true;
    frame();  // asks first: there are unsaved changes
    ASSERT_TRUE(click("Unsaved changes", "Discard and open", 0.1f));
    EXPECT_TRUE(m_explorer->sessionOpening());
    ASSERT_NE(m_explorer->model().sessionProgress, nullptr);
    int counted = 0;
    ASSERT_TRUE(framesWhileHeld(hold, 3, counted));
    EXPECT_EQ(counted, 3) << "no frame came while the session file was read";
    EXPECT_TRUE(state().session == before);  // nothing changed while it was read
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_TRUE(hold->forward());
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 6);
    EXPECT_EQ(state().session.attention.bias.queries, 40);
    EXPECT_EQ(state().session.attention.bias.mode, BiasMode::Symmetric);
    EXPECT_FALSE(m_explorer->modified());
    EXPECT_EQ(state().sessionPath, path);
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
}

// Cancel while the file is read (the panel's button, and the observer returning false), and a
// file that is refused: the unsaved parameters stay each time.
TEST_F(Reads, ACancelledOrFailedSessionOpenKeepsUnsavedWork) {
    const std::string path = writeSession("large.alibi.json", std::size_t{15} << 20);
    m_explorer->setReadObserver({});
    // Unsaved work, then the open confirmed (Discard and open), then Cancel while it reads.
    state().session.attention.bias.slopes.heads = 5;
    frame();
    const Session before = state().session;
    ASSERT_TRUE(m_explorer->modified());
    auto hold = std::make_shared<Hold>();
    m_explorer->setReadObserver(hold->observer());
    state().sessionPath = path;
    state().actions.openSession = true;
    frame();
    ASSERT_TRUE(click("Unsaved changes", "Discard and open", 0.1f));
    ASSERT_TRUE(framesUntil([&] { return hold->held.load(); }));
    ASSERT_TRUE(m_explorer->sessionOpening());
    state().actions.cancelSessionOpen = true;  // the session panel's Cancel
    frame();
    EXPECT_FALSE(m_explorer->sessionOpening());
    EXPECT_NE(state().statusMessage.find("cancelled"), std::string::npos) << state().statusMessage;
    hold->released = true;
    settle();
    EXPECT_TRUE(state().session == before);
    EXPECT_TRUE(m_explorer->modified());
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;

    // The observer saying stop: a cancel too.
    auto stop = std::make_shared<Hold>();
    stop->stop = true;
    m_explorer->setReadObserver(stop->observer());
    m_explorer->startOpenSession(path);
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_TRUE(state().session == before);
    EXPECT_TRUE(m_explorer->modified());
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;

    // A file the core refuses: the popup says why, the parameters stay.
    m_explorer->setReadObserver({});
    const std::string bad = (m_dir / "bad.alibi.json").string();
    std::ofstream(bad) << "{\"version\": 1, \"bias\": {\"heads\": \"many\"}}";
    m_explorer->startOpenSession(bad);
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_NE(state().errorPopup.find("bias.heads"), std::string::npos) << state().errorPopup;
    EXPECT_TRUE(state().session == before);
    EXPECT_TRUE(m_explorer->modified());
}

// A session file dropped on the window: read in the background like File > Open.
TEST_F(Reads, ADroppedSessionIsReadInTheBackground) {
    const std::string path = writeSession("dropped.alibi.json", std::size_t{1} << 20);
    auto hold = std::make_shared<Hold>();
    m_explorer->setReadObserver(hold->observer());
    m_explorer->dropFiles({path});
    frame();
    EXPECT_TRUE(m_explorer->sessionOpening());
    int counted = 0;
    ASSERT_TRUE(framesWhileHeld(hold, 3, counted));
    EXPECT_EQ(counted, 3);
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 6);
}

// The Diagnose view reads an 8 MiB tensor with the core's progress while frames keep coming, and
// Cancel keeps the diagnosis shown before.
TEST_F(Reads, DiagnoseReadsShowProgressAndCancelKeepsTheLastDiagnosis) {
    const std::string small = writeBias("small.npy", 4, 16);
    const std::string large = writeBias("large.npy", 8, 512);  // 8 MiB of f32: two chunks of data
    state().view = View::Diagnose;
    frame();
    state().diagnosePath = small;
    state().diagnoseUseExample = false;
    ++state().diagnoseSerial;
    settle();
    ASSERT_NE(m_explorer->model().diagnosis, nullptr);
    const auto first = m_explorer->model().diagnosis;
    ASSERT_TRUE(first->error.empty()) << first->error;

    // Held in the data read for three frames: progress shown, then the diagnosis.
    auto hold = std::make_shared<Hold>();
    hold->at = ReadProgress::Stage::ReadingData;
    m_explorer->setReadObserver(hold->observer());
    state().diagnosePath = large;
    ++state().diagnoseSerial;
    frame();
    int counted = 0;
    ASSERT_TRUE(framesWhileHeld(hold, 3, counted));
    EXPECT_EQ(counted, 3) << "no frame came while the tensor was read";
    EXPECT_TRUE(m_explorer->model().diagnosisPending);
    EXPECT_GT(m_explorer->model().diagnosisProgress->fraction.load(), 0.0f);
    EXPECT_FALSE(m_explorer->model().diagnosisProgress->stageText().empty());
    settle();
    EXPECT_TRUE(hold->forward());
    ASSERT_NE(m_explorer->model().diagnosis, first);
    EXPECT_EQ(m_explorer->model().diagnosis->request.path, large);
    EXPECT_TRUE(m_explorer->model().diagnosis->error.empty()) << m_explorer->model().diagnosis->error;

    // Back to the small one, then Cancel while the large one is read: the small one stays.
    m_explorer->setReadObserver({});
    state().diagnosePath = small;
    ++state().diagnoseSerial;
    settle();
    const auto shown = m_explorer->model().diagnosis;
    ASSERT_EQ(shown->request.path, small);
    auto held = std::make_shared<Hold>();
    held->at = ReadProgress::Stage::ReadingData;
    m_explorer->setReadObserver(held->observer());
    state().diagnosePath = large;
    ++state().diagnoseSerial;
    ASSERT_TRUE(framesUntil([&] { return held->held.load(); }));
    state().actions.cancelDiagnosis = true;  // the view's Cancel
    frame();
    EXPECT_FALSE(m_explorer->model().diagnosisPending);
    EXPECT_NE(state().statusMessage.find("cancelled"), std::string::npos) << state().statusMessage;
    held->released = true;
    settle();
    EXPECT_EQ(m_explorer->model().diagnosis, shown);
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
}

}  // namespace alibi::imgui
