// The Explorer's side of a model run on text (issue 29): File > Open model and Help > Example
// model, Run and Cancel from the Model view, the core's lm::runLive on a worker with progress,
// and the outcome: A's maps into the Maps view (through the maps' own mailbox, as an opened file),
// A vs B kept for the Model view, a refusal in the error popup as the core words it.
#include "explorer.hpp"
#include "view_common.hpp"

#include "layout_check.hpp"

#include <alibi/base/data_dir.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>

namespace alibi::imgui {

namespace {

std::string folderName(const std::string& folder) {
    std::filesystem::path p(folder);
    if (p.filename().empty()) p = p.parent_path();
    return p.filename().string();
}

}  // namespace

std::string exampleModelFolder() {
    std::vector<std::filesystem::path> roots;
    if (auto dir = findDataDir("models")) roots.push_back(*dir);
#ifdef ALIBI_SOURCE_ASSETS
    roots.push_back(std::filesystem::path(ALIBI_SOURCE_ASSETS) / "models");
#endif
    for (const auto& root : roots) {
        std::error_code ignored;
        if (std::filesystem::is_regular_file(root / "license-bloom-tiny" / "config.json", ignored))
            return (root / "license-bloom-tiny").string();
    }
    return {};
}

void Explorer::openModel(const std::string& folder) {
    m_state.live.open = folder;
}

void Explorer::openExampleModel() {
    m_state.live.example = true;
}

void Explorer::runLiveActions() {
    LiveState& s = m_state.live;
    LiveModel& live = m_model.live;
    if (s.example) {
        s.example = false;
        const std::string folder = exampleModelFolder();
        if (folder.empty())
            m_state.errorPopup =
                "The example model (assets/models/license-bloom-tiny) was not found under share/alibi-explorer/models "
                "next to the program. Reinstall ALiBi Explorer, or open a model folder with File > Open model.";
        else
            s.open = folder;
    }
    if (s.open) {
        // The folder is a session parameter: one undoable step, then the run.
        Session next = m_lastValid;
        next.live.path = *s.open;
        s.open.reset();
        if (auto ok = applySession(next); !ok) {
            m_state.errorPopup = explore::guiMessage(ok.error().message);
            return;
        }
        m_state.view = View::Model;
        s.run = true;
    }
    if (s.cancel) {
        s.cancel = false;
        if (live.running) {
            ++m_liveGeneration;  // whatever the cancelled run still delivers is dropped
            m_liveWorker.cancel();
            live.running = false;
            m_state.statusMessage = fmt::format("running {} cancelled (the maps shown before stay)", live.runningModel);
        }
    }
    if (s.run) {
        s.run = false;
        // The text typed is committed first (an undoable step when it changed).
        if (m_lastValid.live.text != s.textDraft) {
            Session next = m_lastValid;
            next.live.text = s.textDraft;
            if (auto ok = applySession(next); !ok) {
                live.error = explore::guiMessage(ok.error().message);
                m_state.errorPopup = fmt::format("Cannot run the model: {}", live.error);
                return;
            }
        }
        const LiveModelParams params = m_lastValid.live;
        if (params.path.empty()) {
            live.error = "No model is open: use File > Open model or Help > Example model first.";
            m_state.errorPopup = live.error;
            return;
        }
        const std::uint64_t generation = ++m_liveGeneration;
        live.running = true;
        live.runningModel = folderName(params.path);
        live.error.clear();
        live.progress = std::make_shared<std::atomic<float>>(0.0f);
        m_liveWorker.submit([this, params, generation, progress = live.progress](const explore::JobContext& job) {
            lm::LiveRunOptions options;
            auto last = std::chrono::steady_clock::time_point{};
            options.progress = [&, progress](std::uint64_t done, std::uint64_t total) {
                if (job.cancelled()) return false;
                progress->store(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : 0.0f);
                const auto now = std::chrono::steady_clock::now();
                if (now - last > std::chrono::milliseconds(50)) {
                    last = now;
                    notify();
                }
                return true;
            };
            auto outcome = std::make_shared<LiveOutcome>();
            outcome->params = params;
            if (auto run = lm::runLive(params, options)) {
                outcome->run = std::make_shared<const lm::LiveRun>(std::move(*run));
            } else {
                outcome->error = run.error().message;
                outcome->cancelled = run.error().code == ErrorCode::Cancelled || job.cancelled();
            }
            m_liveBox.put(generation, std::move(outcome));
            notify();
        });
    }
}

void Explorer::collectLive() {
    LiveModel& live = m_model.live;
    std::uint64_t generation = 0;
    auto outcome = m_liveBox.take(generation);
    if (!outcome || generation != m_liveGeneration) return;
    live.running = false;
    if (outcome->cancelled) return;
    if (!outcome->run) {
        // The core's refusal as it words it (in the explorers' field names).
        live.error = explore::guiMessage(outcome->error);
        m_state.errorPopup = fmt::format("Cannot run the model {}: {}", folderName(outcome->params.path), live.error);
        return;
    }
    live.run = outcome->run;
    live.runParams = outcome->params;
    live.error.clear();
    const lm::LiveRun& run = *outcome->run;
    // A's maps open in the Maps view as a file the maps' own open read (tokens on the axes and in
    // the read-out); with B the Model view's A vs B stays in view.
    auto opened = std::make_shared<MapsOpenResult>();
    opened->ask = MapsOpenAsk{run.mapsPath, "", 0, 0, false, run.loss.b.has_value()};
    opened->maps = run.maps;
    for (const AttentionLayerInfo& info : run.maps->layerInfo()) opened->tensors.push_back(info.name);
    m_mapsOpenBox.put(++m_mapsOpenGeneration, std::move(opened));
    m_model.maps.opening = false;
    m_state.maps.side = MapsSide::Head;  // one head's map: its tokens on the axes
    m_state.statusMessage = lm::liveLossLine(run);
}

void Explorer::drawModelOpenDialog() {
    LiveState& s = m_state.live;
    if (pathPrompt("Open model",
                   {"A Hugging Face BLOOM, MPT or Falcon folder: config.json, model.safetensors (or shards with",
                    "model.safetensors.index.json) and tokenizer.json. It runs on the Model view's text."},
                   "##model-open-path", s.folderDraft, s.openDialog))
        openModel(s.folderDraft);
}

}  // namespace alibi::imgui
