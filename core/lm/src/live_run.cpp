// See live_run.hpp.
#include <alibi/lm/live_run.hpp>

#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include <unistd.h>

namespace alibi::lm {
namespace {

// A private folder for A's maps, removed with whatever it holds when this goes.
class TempFolder {
public:
    static Result<TempFolder> make(const std::string& parent) {
        std::string base = parent;
        if (base.empty()) {
            const char* tmp = std::getenv("TMPDIR");
            base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
        }
        std::string pattern = (std::filesystem::path(base) / "alibi-live-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return fail(ErrorCode::Io, fmt::format("cannot make a temporary folder in {} for the model's attention "
                                                   "maps ({}); set TMPDIR to a writable folder",
                                                   base, std::strerror(errno)));
        TempFolder t;
        t.m_path = pattern;
        return t;
    }
    TempFolder() = default;
    TempFolder(TempFolder&& o) noexcept : m_path(std::exchange(o.m_path, {})) {}
    TempFolder& operator=(TempFolder&&) = delete;
    ~TempFolder() {
        std::error_code ignored;
        if (!m_path.empty()) std::filesystem::remove_all(m_path, ignored);
    }
    [[nodiscard]] const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

std::string folderName(const std::string& folder) {
    std::filesystem::path p(folder);
    if (p.filename().empty()) p = p.parent_path();
    return p.filename().string();
}

std::string nats(double v) {
    return std::isnan(v) ? std::string("n/a") : fmt::format("{:.4f}", v);
}

}  // namespace

Result<LiveRun> runLive(const LiveModelParams& params, const LiveRunOptions& options) {
    if (params.path.empty())
        return fail(ErrorCode::InvalidArgument, "no model is open: open a Hugging Face model folder first");
    if (auto ok = validateLiveModel(params); !ok) return std::unexpected(ok.error());
    auto model = Checkpoint::open(params.path, [&] { return options.progress && !options.progress(0, 1); });
    if (!model) return std::unexpected(model.error());
    auto tokens = tokensOfText(params.path, params.text);
    if (!tokens) return std::unexpected(tokens.error());
    const auto available = static_cast<std::int64_t>(tokens->ids.size());
    if (params.length > available)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--length {}: the text gives {} tokens; give a length from 1 to {} (or a longer text)",
                                params.length, available, available));
    if (params.length > 0) {
        const auto n = static_cast<std::size_t>(params.length);
        tokens->ids.resize(n);
        if (tokens->text.size() > n) tokens->text.resize(n);
        if (tokens->display.size() > n) tokens->display.resize(n);
    }
    const LmConfig& c = model->config();
    // Validate B before A runs, so a head the model lacks is said at once.
    if (auto b = changedSlopes(c, params.change); !b) return std::unexpected(b.error());
    const bool two = !params.change.none();

    auto folder = TempFolder::make(options.tempFolder);
    if (!folder) return std::unexpected(folder.error());
    auto files = std::make_shared<TempFolder>(std::move(*folder));
    LiveRun run;
    run.model = folderName(params.path);
    const std::string path =
        (std::filesystem::path(files->path()) / ((run.model.empty() ? "model" : run.model) + ".safetensors")).string();
    run.layers = c.layers;
    run.heads = c.heads;
    run.loss.model = model->folder();
    run.loss.description = describe(c);
    run.loss.trainingLength = c.trainingLength;
    run.loss.tokens = *tokens;

    ForwardOptions oa;
    oa.threads = options.threads;
    oa.budget = options.budget;
    if (options.progress)
        oa.progress = [&](std::uint64_t done, std::uint64_t total) {
            return options.progress(done, two ? 2 * total : total);
        };
    auto a = runToMapsFile(*model, *tokens, oa, path);
    if (!a) return std::unexpected(a.error());
    run.loss.a = LossRun{"A: the model", a->slopes, std::move(a->loss), a->meanLoss};

    auto maps = AttentionMaps::open(path);
    if (!maps) return std::unexpected(maps.error());

    if (two) {
        const auto T = static_cast<std::int64_t>(tokens->ids.size());
        const auto H = static_cast<std::size_t>(c.heads);
        run.meanChange.assign(static_cast<std::size_t>(c.layers) * H, 0.0);
        run.maxChange.assign(run.meanChange.size(), 0.0);
        std::vector<double> rowA(static_cast<std::size_t>(T));
        ForwardOptions ob = oa;
        ob.slopes = params.change;
        if (options.progress)
            ob.progress = [&](std::uint64_t done, std::uint64_t total) {
                return options.progress(total + done, 2 * total);
            };
        ob.onAttention = [&](int layer, std::span<const float> probs) -> Result<void> {
            auto index = maps->layerIndexOf(layer);
            if (!index) return std::unexpected(index.error());
            for (std::size_t h = 0; h < H; ++h) {
                double sum = 0, most = 0;
                for (std::int64_t q = 0; q < T; ++q) {
                    if (auto ok = maps->storedRow(*index, static_cast<int>(h), q, rowA); !ok) return ok;
                    const float* rowB = probs.data() + (h * static_cast<std::size_t>(T) + static_cast<std::size_t>(q)) *
                                                           static_cast<std::size_t>(T);
                    double tv = 0;
                    for (std::int64_t j = 0; j <= q; ++j) tv += std::abs(static_cast<double>(rowB[j]) - rowA[j]);
                    tv *= 0.5;
                    sum += tv;
                    most = std::max(most, tv);
                }
                const std::size_t at = static_cast<std::size_t>(layer) * H + h;
                run.meanChange[at] = sum / static_cast<double>(T);
                run.maxChange[at] = most;
            }
            maps->release(*index);
            return {};
        };
        auto b = runForward(*model, tokens->ids, ob);
        if (!b) return std::unexpected(b.error());
        run.loss.b = LossRun{"B: " + describe(params.change), b->slopes, std::move(b->loss), b->meanLoss};
    }
    run.maps = std::make_shared<const AttentionMaps>(std::move(*maps));
    run.mapsPath = path;
    run.files = std::move(files);
    return run;
}

std::string liveSummary(const LiveRun& run) {
    return fmt::format("{} · {} · {} tokens · mean loss A {} nats", run.model, run.loss.description,
                       run.loss.tokens.ids.size(), nats(run.loss.a.mean));
}

std::string liveLossLine(const LiveRun& run) {
    const LossReport& r = run.loss;
    std::string line = fmt::format("{}: mean loss {}", r.a.label, nats(r.a.mean));
    if (r.b) line += fmt::format(" · {}: {} (B - A {:+.4f})", r.b->label, nats(r.b->mean), r.b->mean - r.a.mean);
    if (r.trainingLength > 0 && static_cast<std::int64_t>(r.tokens.ids.size()) > r.trainingLength) {
        line += fmt::format(" · beyond the training length (positions {} on): A {}", r.trainingLength,
                            nats(meanLossFrom(r.a.loss, r.trainingLength).value_or(NAN)));
        if (r.b) line += fmt::format(", B {}", nats(meanLossFrom(r.b->loss, r.trainingLength).value_or(NAN)));
    } else if (r.trainingLength > 0) {
        line += fmt::format(" · trained on {} tokens (a longer text shows extrapolation)", r.trainingLength);
    }
    return line;
}

std::vector<Series> liveLossSeries(const LiveRun& run) {
    const auto series = [](const LossRun& r) {
        Series s;
        s.label = r.label;
        for (std::size_t i = 0; i < r.loss.size(); ++i) {
            s.x.push_back(static_cast<double>(i + 1));
            s.y.push_back(r.loss[i]);
        }
        return s;
    };
    std::vector<Series> out{series(run.loss.a)};
    if (run.loss.b) out.push_back(series(*run.loss.b));
    return out;
}

std::vector<Series> liveChangeSeries(const LiveRun& run) {
    std::vector<Series> out;
    if (run.meanChange.empty()) return out;
    for (int l = 0; l < run.layers; ++l) {
        Series s;
        s.label = fmt::format("layer {}", l);
        for (int h = 0; h < run.heads; ++h) {
            s.x.push_back(h);
            s.y.push_back(run.meanChange[static_cast<std::size_t>(l * run.heads + h)]);
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::string liveChangeLine(const LiveRun& run) {
    if (run.meanChange.empty()) return {};
    const auto most = std::max_element(run.meanChange.begin(), run.meanChange.end());
    const auto at = static_cast<int>(most - run.meanChange.begin());
    double all = 0;
    for (double v : run.meanChange) all += v;
    return fmt::format(
        "attention change B vs A (mean over rows of 1/2 sum |P_B - P_A|): {:.4f} over every head; largest at layer {} "
        "head {}: {:.4f} (its largest row {:.4f})",
        all / static_cast<double>(run.meanChange.size()), at / run.heads, at % run.heads, *most,
        run.maxChange[static_cast<std::size_t>(at)]);
}

}  // namespace alibi::lm
