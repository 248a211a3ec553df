// Issue 16: the ImGui explorer's open-session path given a corpus of hostile session files: a
// session nested 100,000 levels deep (which crashed the explorer), a FIFO (which would block the
// UI forever), a 15 MiB field, binary garbage, out-of-range parameters. Each must give a clear,
// short message in the error popup, never crash or hang, and keep the previous session.
#include "explorer.hpp"

#include <alibi/io/session.hpp>

#include <gtest/gtest.h>
#include <imgui.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace alibi::imgui {
namespace {

class HostileSessionFiles : public ::testing::Test {
protected:
    void SetUp() override {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1600, 1000);
        io.DeltaTime = 1.0f / 60.0f;
        // As the OpenGL 3 backend does (GL >= 3.2): a grid of thousands of heads needs more than
        // 65536 vertices, which ImGui then splits over draw commands instead of asserting.
        io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
        unsigned char* pixels = nullptr;
        int width = 0, height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
        m_explorer.emplace();
        frame();
        m_dir = std::filesystem::temp_directory_path() / ("alibi-imgui-hostile-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override {
        m_explorer.reset();
        ImGui::DestroyContext();
        std::filesystem::remove_all(m_dir);
    }
    void frame() {
        ImGui::NewFrame();
        m_explorer->frame();
        ImGui::Render();
        m_explorer->framePresented();
    }
    std::string write(const std::string& name, const std::string& content) {
        const auto path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << content;
        return path;
    }
    AppState& state() { return m_explorer->state(); }

    std::optional<Explorer> m_explorer;
    std::filesystem::path m_dir;
};

TEST_F(HostileSessionFiles, EachIsRefusedWithAShortMessageAndTheSessionKept) {
    // A session the user opened (unmodified, so opening another asks no question first).
    Session start = defaultSession();
    start.attention.bias.slopes.heads = 12;
    ASSERT_TRUE(m_explorer->openSession(start, "start.alibi.json"));
    frame();
    const Session before = state().session;
    const std::string deep =
        "{\"version\":1,\"bias\":{\"heads\":" + std::string(100000, '[') + std::string(100000, ']') + "}}";
    std::vector<std::string> paths{
        write("deep.alibi.json", deep),
        write("deep_top.alibi.json", std::string(100000, '[') + std::string(100000, ']')),
        write("huge_field.alibi.json", "{\"version\":1,\"bias\":{\"scheme\":\"" + std::string(15 << 20, 'x') + "\"}}"),
        write("binary.alibi.json", std::string("\xff\xfe\0\x1b[2J garbage", 16)),
        write("tiny_temperature.alibi.json", "{\"version\":1,\"attention\":{\"temperature\":1e-320}}"),
        write("huge_slopes.alibi.json", "{\"version\":1,\"bias\":{\"slopes\":[1e300]}}"),
    };
    const std::string fifo = (m_dir / "fifo.alibi.json").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    paths.push_back(fifo);
    for (const auto& path : paths) {
        state().errorPopup.clear();
        state().sessionPath = path;
        state().actions.openSession = true;
        frame();
        // Read on a worker (issue 25, item 3): frames go on until the refusal arrives.
        while (m_explorer->sessionOpening()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            frame();
        }
        EXPECT_FALSE(state().errorPopup.empty()) << path;
        EXPECT_LT(state().errorPopup.size(), 600u) << state().errorPopup.substr(0, 600);
        EXPECT_TRUE(state().session == before) << path;
    }
}

}  // namespace
}  // namespace alibi::imgui
