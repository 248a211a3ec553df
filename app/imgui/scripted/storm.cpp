// Storm: random mouse input and random (often extreme or invalid) parameter values.
#include "storm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

namespace alibi::imgui {

Storm::Storm(std::uint64_t seed, std::string scratchDir) : m_rng(seed), m_scratchDir(std::move(scratchDir)) {}

int Storm::pickHeads() {
    constexpr std::array heads{1, 2, 3, 8, 12, 32, 100, 256};
    return heads[std::uniform_int_distribution<std::size_t>(0, heads.size() - 1)(m_rng)];
}

std::int64_t Storm::pickLength() {
    constexpr std::array lengths{std::int64_t{1},   std::int64_t{2},    std::int64_t{17},
                                 std::int64_t{512}, std::int64_t{4096}, std::int64_t{65536}};
    if (std::bernoulli_distribution(0.5)(m_rng))
        return lengths[std::uniform_int_distribution<std::size_t>(0, lengths.size() - 1)(m_rng)];
    return std::uniform_int_distribution<std::int64_t>(1, 65536)(m_rng);
}

void Storm::injectInput(ImGuiIO& io) {
    ++m_frame;
    std::uniform_real_distribution<float> x(0.0f, io.DisplaySize.x);
    std::uniform_real_distribution<float> y(0.0f, io.DisplaySize.y);
    // Mostly small moves (drags along sliders), sometimes jumps across the window.
    if (std::bernoulli_distribution(0.2)(m_rng) || io.MousePos.x < 0) {
        io.MousePos = ImVec2(x(m_rng), y(m_rng));
    } else {
        std::normal_distribution<float> step(0.0f, 25.0f);
        io.MousePos = ImVec2(std::clamp(io.MousePos.x + step(m_rng), 0.0f, io.DisplaySize.x - 1),
                             std::clamp(io.MousePos.y + step(m_rng) * 0.3f, 0.0f, io.DisplaySize.y - 1));
    }
    if (std::bernoulli_distribution(0.1)(m_rng)) m_dragging = !m_dragging;
    io.MouseDown[0] = m_dragging;
    io.MouseDown[1] = std::bernoulli_distribution(0.01)(m_rng);
    io.MouseWheel =
        std::bernoulli_distribution(0.05)(m_rng) ? std::uniform_real_distribution<float>(-3, 3)(m_rng) : 0.0f;

    // Keys: release last frame's key, sometimes press another (navigation, editing, Escape), and
    // type characters into whichever text field has focus.
    if (m_key >= 0) io.KeysDown[m_key] = false;
    m_key = -1;
    if (std::bernoulli_distribution(0.05)(m_rng)) {
        constexpr std::array keys{ImGuiKey_Tab,        ImGuiKey_Enter,   ImGuiKey_Escape,    ImGuiKey_LeftArrow,
                                  ImGuiKey_RightArrow, ImGuiKey_UpArrow, ImGuiKey_DownArrow, ImGuiKey_Backspace,
                                  ImGuiKey_Delete,     ImGuiKey_Home,    ImGuiKey_End};
        const int index = io.KeyMap[keys[std::uniform_int_distribution<std::size_t>(0, keys.size() - 1)(m_rng)]];
        if (index >= 0 && index < static_cast<int>(IM_ARRAYSIZE(io.KeysDown))) {
            io.KeysDown[index] = true;
            m_key = index;
        }
    }
    if (std::bernoulli_distribution(0.05)(m_rng)) {
        constexpr std::string_view typed = "0123456789.-e,; nanixyz";
        io.AddInputCharacter(
            static_cast<unsigned>(typed[std::uniform_int_distribution<std::size_t>(0, typed.size() - 1)(m_rng)]));
    }
}

void Storm::perturbState(AppState& state) {
    // Dismiss error popups now and then, as a user clicking OK would.
    if (!state.errorPopup.empty() && std::bernoulli_distribution(0.2)(m_rng)) state.errorPopup.clear();
    if (m_frame % 2 != 0) return;
    ++m_edits;
    Session& s = state.session;
    BiasParams& bias = s.attention.bias;
    ContentParams& content = s.attention.content;
    switch (std::uniform_int_distribution<int>(0, 16)(m_rng)) {
        case 0:
            bias.slopes.heads = pickHeads();
            break;
        case 1:
            bias.queries = pickLength();
            break;
        case 2:
            bias.keys = std::bernoulli_distribution(0.5)(m_rng) ? 0 : pickLength();
            break;
        case 3:
            bias.mode = static_cast<BiasMode>(std::uniform_int_distribution<int>(0, 4)(m_rng));
            break;
        case 4: {
            bias.slopes.scheme = static_cast<SlopeScheme>(std::uniform_int_distribution<int>(0, 3)(m_rng));
            // Custom lists of the right length, the wrong length, or with NaN / negative entries.
            const int n = std::bernoulli_distribution(0.7)(m_rng) ? bias.slopes.heads : bias.slopes.heads + 1;
            bias.slopes.custom.assign(static_cast<std::size_t>(n), 0.125);
            if (std::bernoulli_distribution(0.3)(m_rng))
                bias.slopes.custom.back() =
                    std::bernoulli_distribution(0.5)(m_rng) ? std::numeric_limits<double>::quiet_NaN() : -1.0;
            break;
        }
        case 5: {
            constexpr std::array biases{0.0, 0.5, 8.0, 16.0, -1.0, 1e300};
            bias.slopes.maxBias = biases[std::uniform_int_distribution<std::size_t>(0, biases.size() - 1)(m_rng)];
            break;
        }
        case 6: {
            constexpr std::array masks{"-1e9", "-inf", "min", "-10000", "abc", "nan", "1e400", ""};
            state.maskText = masks[std::uniform_int_distribution<std::size_t>(0, masks.size() - 1)(m_rng)];
            if (auto mask = parseMask(state.maskText)) bias.mask = *mask;
            break;
        }
        case 7:
            bias.dtype = static_cast<DType>(std::uniform_int_distribution<int>(0, 3)(m_rng));
            break;
        case 8: {
            content.kind = static_cast<ContentKind>(std::uniform_int_distribution<int>(0, 2)(m_rng));
            // Full-width q.k at T = 65536 costs minutes in any implementation; keep d_k modest there.
            constexpr std::array dks{1, 8, 64, 4096};
            content.dk = dks[std::uniform_int_distribution<std::size_t>(0, dks.size() - 1)(m_rng)];
            if (bias.keyCount() > 4096) content.dk = std::min(content.dk, 64);
            break;
        }
        case 9: {
            constexpr std::array temperatures{0.01, 1.0, 100.0, 0.0, -1.0};
            content.temperature =
                temperatures[std::uniform_int_distribution<std::size_t>(0, temperatures.size() - 1)(m_rng)];
            content.sigma = std::uniform_real_distribution<double>(0.0, 10.0)(m_rng);
            content.seed = m_rng();
            break;
        }
        case 10:
            s.what = std::bernoulli_distribution(0.5)(m_rng) ? RenderWhat::Attention : RenderWhat::Bias;
            break;
        case 11:
            s.head = std::uniform_int_distribution<int>(-1, bias.slopes.heads)(m_rng);
            break;
        case 12:
            s.colormap = static_cast<Colormap>(std::uniform_int_distribution<int>(0, 3)(m_rng));
            s.scale = std::bernoulli_distribution(0.5)(m_rng) ? ScaleMode::Shared : ScaleMode::PerHead;
            break;
        case 13:
            s.queryRow = std::uniform_int_distribution<std::int64_t>(-1, bias.queries)(m_rng);
            break;
        case 14:
        case 15: {
            ++m_exports;
            // Real files only for tensors up to 256 MiB, so the storm cannot fill the disk; the
            // others go to paths that must fail cleanly (no folder, /dev/full).
            const double bytes = static_cast<double>(bias.slopes.heads) * static_cast<double>(bias.queries) *
                                 static_cast<double>(bias.keyCount()) * 8.0;
            const bool small = bytes <= 256.0 * 1024 * 1024;
            state.exportPath = small && std::bernoulli_distribution(0.8)(m_rng)
                                   ? fmt::format("{}/storm_{}.npy", m_scratchDir, m_exports % 4)
                               : std::bernoulli_distribution(0.5)(m_rng) ? "/nonexistent-folder/storm.npy"
                                                                         : "/dev/full";
            state.exportFormat = FileFormat::Npy;
            state.actions.exportTensor = true;
            if (std::bernoulli_distribution(0.2)(m_rng)) {
                state.screenshotPath = fmt::format("{}/storm.png", m_scratchDir);
                state.actions.screenshot = true;
            }
            break;
        }
        default:
            state.actions.cancelExport = true;
            break;
    }
    // Keep the extreme workloads to what the storm can finish cancelling: a qk attention at full
    // width is minutes of arithmetic in any implementation.
    if (content.kind == ContentKind::Qk && bias.keyCount() > 4096) content.dk = std::min(content.dk, 64);
}

}  // namespace alibi::imgui
