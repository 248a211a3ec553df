// Issue 25, the file side of saved attention maps and tensor imports, each defect repeated as the
// issue reports it: a few-MB safetensors file whose header made every tensor copy an 8 MiB
// metadata string (gigabytes), a file truncated under an open reader (SIGBUS), a 4097-layer file
// refused for the wrong reason, a tensor name given for an .npy array, a layer number past int,
// and a thread that cannot start under an address-space limit.
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/tensor_io.hpp>

#include <alibi/base/parallel.hpp>
#include "../attention_maps_fixture.hpp"
#include "temp_dir_fixture.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace alibi;
using namespace alibi::test;

namespace {

std::string le64(std::uint64_t n) {
    std::string out(8, '\0');
    for (int b = 0; b < 8; ++b) out[static_cast<std::size_t>(b)] = static_cast<char>((n >> (8 * b)) & 0xff);
    return out;
}

// `tensors` F32 tensors of shape (1, 2, 2) named "layers.N" (rows [1, 0] and [0.5, 0.5]: causal
// probabilities), after a __metadata__ object of `keys` entries whose values are `valueBytes` long.
std::string hostileSafetensors(int tensors, int keys, std::size_t valueBytes) {
    std::string json = "{\"__metadata__\":{";
    for (int k = 0; k < keys; ++k)
        json += (k ? ",\"" : "\"") + std::to_string(k) + "\":\"" + std::string(valueBytes, 'm') + "\"";
    json += "}";
    for (int t = 0; t < tensors; ++t)
        json += ",\"layers." + std::to_string(t) + "\":{\"dtype\":\"F32\",\"shape\":[1,2,2],\"data_offsets\":[" +
                std::to_string(16 * t) + "," + std::to_string(16 * t + 16) + "]}";
    json += "}";
    while (json.size() % 8) json += ' ';
    std::string out = le64(json.size()) + json;
    const float rows[4] = {1.0f, 0.0f, 0.5f, 0.5f};
    for (int t = 0; t < tensors; ++t) out.append(reinterpret_cast<const char*>(rows), sizeof rows);
    return out;
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs `body` in a forked child whose address space is limited to what it uses now plus
// `extraBytes` (ulimit -v); the child's exit status: 0 when body returned true.
template <class Body>
int underAddressSpaceLimit(std::uint64_t extraBytes, Body body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        long pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
        const rlimit limit{now + extraBytes, now + extraBytes};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
        ::_exit(body() ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class AttentionMapsIo : public TempDirTest {};

// 2000 tensors of shape (1, 2, 2) plus one 8 MiB metadata string: an 8.5 MB file that took more
// than 6 GB (each tensor's plan held its own copy of the metadata). Under a 512 MiB address-space
// limit the maps open, and the one tensor a load asks for carries the metadata once.
TEST_F(AttentionMapsIo, AFewMegabyteHeaderCostsWhatItIs) {
    const std::string file = path("hostile.safetensors");
    writeFile(file, hostileSafetensors(2000, 1, std::size_t{8} << 20));
    const int status = underAddressSpaceLimit(std::uint64_t{512} << 20, [&] {
        auto maps = AttentionMaps::open(file);
        if (!maps || maps->layers() != 2000 || maps->heads() != 1) return false;
        std::vector<double> row(2);
        if (!maps->probabilities(1999, 0, 1, row) || row[0] != 0.5) return false;
        auto loaded = loadTensor(file, "layers.7", std::uint64_t{1} << 30);
        return loaded && loaded->tensor.metadata.size() == 1 && loaded->tensor.metadata.at("0").size() == (8u << 20);
    });
    EXPECT_EQ(status, 0);
}

// 4000 tensors and 300k metadata keys: what a load would keep is refused before it is stored,
// with a message about the file's metadata (not "lower --max-memory"); the maps, which keep no
// metadata, open.
TEST_F(AttentionMapsIo, MetadataAboveItsBudgetIsRefusedNamingIt) {
    const std::string file = path("keys.safetensors");
    writeFile(file, hostileSafetensors(4000, 300000, 1));
    auto loaded = loadTensor(file, "layers.0", std::uint64_t{1} << 30);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code, ErrorCode::TooLarge);
    EXPECT_NE(loaded.error().message.find("__metadata__"), std::string::npos) << loaded.error().message;
    EXPECT_NE(loaded.error().message.find(file), std::string::npos) << loaded.error().message;
    EXPECT_EQ(loaded.error().message.find("--max-memory"), std::string::npos) << loaded.error().message;
    auto maps = AttentionMaps::open(file);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->layers(), 4000);
}

// A long header read stops when asked: at once, or between events while the JSON is read.
TEST_F(AttentionMapsIo, HeaderReadsAreCancellable) {
    const std::string file = path("many.safetensors");
    writeFile(file, hostileSafetensors(3000, 1, 16));
    AttentionOpenOptions now;
    now.cancelled = [] { return true; };
    auto stopped = AttentionMaps::open(file, now);
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().code, ErrorCode::Cancelled);
    std::atomic<int> asked{0};
    AttentionOpenOptions later;
    later.cancelled = [&] { return ++asked > 1; };  // the first check passes, one during the parse stops it
    auto midway = AttentionMaps::open(file, later);
    ASSERT_FALSE(midway);
    EXPECT_EQ(midway.error().code, ErrorCode::Cancelled) << midway.error().message;
    EXPECT_GE(asked.load(), 2);
}

// Every open reports its progress (issue 25, item 3: "every file open and header read runs in
// the background with progress and cancel"): the header's bytes read, then parsed (a real
// position inside the JSON, not only its start and end), then the sampled rows checked; the
// fraction never goes back and ends at 1; false from the callback stops the open at that stage.
TEST_F(AttentionMapsIo, OpeningReportsItsProgressAndStopsWhenTold) {
    using Stage = AttentionOpenProgress::Stage;
    EXPECT_DOUBLE_EQ((AttentionOpenProgress{Stage::ReadingHeader, 0, 0}).fraction(), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ((AttentionOpenProgress{Stage::ParsingHeader, 50, 100}).fraction(), 0.5);
    EXPECT_DOUBLE_EQ((AttentionOpenProgress{Stage::SamplingRows, 128, 128}).fraction(), 1.0);
    EXPECT_EQ((AttentionOpenProgress{Stage::SamplingRows, 12, 128}).text(), "checking sampled rows: 12 of 128");
    EXPECT_EQ((AttentionOpenProgress{Stage::ParsingHeader, 1024, 2048}).text().rfind("parsing the header: ", 0), 0u);

    // 3000 layer tensors after 1000 metadata entries of 2000 bytes: a 2.3 MB header.
    const std::string bytes = hostileSafetensors(3000, 1000, 2000);
    const std::string file = path("progress.safetensors");
    writeFile(file, bytes);
    const std::uint64_t headerBytes = bytes.size() - 3000 * 16;  // the length field and the JSON
    std::vector<AttentionOpenProgress> seen;
    AttentionOpenOptions options;
    options.progress = [&](const AttentionOpenProgress& p) {
        seen.push_back(p);
        return true;
    };
    auto maps = AttentionMaps::open(file, options);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->layers(), 3000);
    ASSERT_FALSE(seen.empty());
    double before = 0;
    int midParse = 0, reads = 0;
    for (const AttentionOpenProgress& p : seen) {
        EXPECT_LE(p.done, p.total);
        EXPECT_GE(p.fraction(), before) << p.text();
        before = p.fraction();
        if (p.stage == Stage::ReadingHeader) {
            EXPECT_EQ(p.total, headerBytes);
            ++reads;
        }
        if (p.stage == Stage::ParsingHeader) {
            EXPECT_EQ(p.total, headerBytes);
            if (p.done > 8 && p.done < p.total) ++midParse;
        }
        if (p.stage == Stage::SamplingRows) {
            EXPECT_EQ(p.total, 128u);
        }
    }
    EXPECT_GE(reads, 3);     // a 2.3 MB header read a MiB at a time: 0, 1, 2 and 2.3 MiB
    EXPECT_GE(midParse, 3);  // ~36000 JSON events, a report every 4096
    EXPECT_EQ(seen.front().stage, Stage::ReadingHeader);
    EXPECT_EQ(seen.back().stage, Stage::SamplingRows);
    EXPECT_DOUBLE_EQ(seen.back().fraction(), 1.0);

    // Told to stop in each stage: the open stops there, Cancelled, and reports nothing later.
    for (const Stage stopAt : {Stage::ReadingHeader, Stage::ParsingHeader, Stage::SamplingRows}) {
        std::vector<Stage> stages;
        AttentionOpenOptions stopping;
        stopping.progress = [&](const AttentionOpenProgress& p) {
            stages.push_back(p.stage);
            return !(p.stage == stopAt && p.done > 0);
        };
        auto stopped = AttentionMaps::open(file, stopping);
        ASSERT_FALSE(stopped);
        EXPECT_EQ(stopped.error().code, ErrorCode::Cancelled) << stopped.error().message;
        EXPECT_EQ(stages.back(), stopAt);
    }

    // An .npy array: its (small) header read and parsed, then the rows.
    const std::int64_t t = 64;
    writeFile(path("p.npy"), npyBytes({2, 4, t, t}, [&] {
                  std::vector<float> data;
                  for (int h = 0; h < 8; ++h) {
                      const auto head = causalMaps({0.5}, t, 0.0, 1);
                      data.insert(data.end(), head.begin(), head.end());
                  }
                  return data;
              }()));
    seen.clear();
    ASSERT_TRUE(AttentionMaps::open(path("p.npy"), options));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().stage, Stage::ReadingHeader);
    EXPECT_DOUBLE_EQ(seen.back().fraction(), 1.0);
}

// np.save over an open file truncates it: every row past the new end was a SIGBUS (exit 135).
// A read now fails with "the file changed on disk; reopen it", and a whole pass (the fit's, a
// picture's) returns that error instead of dying.
TEST_F(AttentionMapsIo, AFileTruncatedUnderAnOpenReaderIsAnErrorNotACrash) {
    const std::string file = path("t.npy");
    const std::int64_t t = 256;
    std::vector<float> data;
    for (int h = 0; h < 8; ++h) {
        const auto head = causalMaps({0.5}, t, 0.0, 1);
        data.insert(data.end(), head.begin(), head.end());
    }
    writeFile(file, npyBytes({2, 4, t, t}, data));
    auto maps = AttentionMaps::open(file);
    ASSERT_TRUE(maps) << maps.error().message;
    std::vector<double> row(static_cast<std::size_t>(t));
    ASSERT_TRUE(maps->probabilities(1, 3, t - 1, row));
    ASSERT_EQ(::truncate(file.c_str(), 4096), 0);
    for (const bool stored : {false, true}) {
        auto read = stored ? maps->storedRow(1, 3, t - 1, row) : maps->probabilities(1, 3, t - 1, row);
        ASSERT_FALSE(read);
        EXPECT_EQ(read.error().code, ErrorCode::Io);
        EXPECT_NE(read.error().message.find("changed on disk"), std::string::npos) << read.error().message;
        EXPECT_NE(read.error().message.find("reopen it"), std::string::npos) << read.error().message;
    }
    // Grown back (another file saved there): rows inside the old size read again, no crash either way.
    writeFile(file, npyBytes({2, 4, t, t}, data));
    EXPECT_TRUE(maps->probabilities(1, 3, t - 1, row));
}

// A file of 4097 one-layer tensors was refused as "shape (1, 2, 2) is beyond the limits".
TEST_F(AttentionMapsIo, TooManyLayersIsSaidAsSuch) {
    const std::string file = path("layers.safetensors");
    writeFile(file, hostileSafetensors(kMaxAttentionLayers + 1, 0, 0));
    auto maps = AttentionMaps::open(file);
    ASSERT_FALSE(maps);
    EXPECT_EQ(maps.error().code, ErrorCode::TooLarge);
    EXPECT_NE(maps.error().message.find("4097 layer tensors"), std::string::npos) << maps.error().message;
    EXPECT_NE(maps.error().message.find("4096 layers"), std::string::npos) << maps.error().message;
    EXPECT_EQ(maps.error().message.find("shape (1, 2, 2) is beyond"), std::string::npos) << maps.error().message;
}

// `fit --tensor x` on an .npy was ignored; `--layer 99999999999` said "no layer -1".
TEST_F(AttentionMapsIo, ATensorNameForAnNpyAndAHugeLayerNumberAreSaid) {
    const std::string file = path("a.npy");
    writeFile(file, npyBytes({2, 1, 4, 4}, [] {
                  auto a = causalMaps({0.5}, 4, 0.0, 1);
                  auto b = causalMaps({0.25}, 4, 0.0, 1);
                  a.insert(a.end(), b.begin(), b.end());
                  return a;
              }()));
    auto named = AttentionMaps::open(file, tensorNamed("x"));
    ASSERT_FALSE(named);
    EXPECT_EQ(named.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(named.error().message.find("'x'"), std::string::npos) << named.error().message;
    EXPECT_NE(named.error().message.find(".npy"), std::string::npos) << named.error().message;
    auto maps = AttentionMaps::open(file);
    ASSERT_TRUE(maps) << maps.error().message;
    auto layer = maps->layerIndexOf(99999999999);
    ASSERT_FALSE(layer);
    EXPECT_NE(layer.error().message.find("no layer 99999999999"), std::string::npos) << layer.error().message;
    EXPECT_EQ(layer.error().message.find("-1"), std::string::npos) << layer.error().message;
    EXPECT_TRUE(maps->layerIndexOf(1));
}

// Under ulimit -v no thread can start (its stack does not fit): the fork-join helper runs every
// block on the calling thread instead of aborting with std::system_error, and a tensor export
// reads its chunks without its read-ahead thread.
TEST_F(AttentionMapsIo, NoThreadToBeHadDegradesToTheCallingThread) {
    const std::string out = path("e.npy");
    const int status = underAddressSpaceLimit(std::uint64_t{6} << 20, [&] {
        std::atomic<std::uint64_t> sum{0};
        detail::parallelFor(1000, 8, 1, [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t i = begin; i < end; ++i) sum += i;
        });
        if (sum.load() != 999 * 1000 / 2) return false;
        auto tensor = Tensor::allocate({4, 256}, DType::F32);
        if (!tensor) return false;
        for (std::uint64_t i = 0; i < 1024; ++i) tensor->set(i, static_cast<double>(i));
        ExportOptions options;
        options.format = FileFormat::Npy;
        options.chunkBytes = 1024;
        if (!exportTensor(*tensorSource(*tensor), out, options)) return false;
        auto back = loadTensor(out);
        return back && back->tensor.at(1023) == 1023.0;
    });
    EXPECT_EQ(status, 0);
}

}  // namespace

// ---------------------------------------------------------------------------
// Issue 29: the tokens a safetensors file names in its __metadata__.

namespace {

// One layer of (1, 3, 4) causal maps (query i at position i + 1) with the given metadata.
std::string tokenMaps(const std::vector<std::pair<std::string, std::string>>& metadata) {
    const std::vector<float> rows = {0.5f, 0.5f, 0.0f, 0.0f, 0.25f, 0.25f, 0.5f, 0.0f, 0.25f, 0.25f, 0.25f, 0.25f};
    return safetensorsBytes({"attentions.0"}, {1, 3, 4}, {rows}, metadata);
}

}  // namespace

TEST(AttentionMapsTokens, TokensAndIdsComeFromTheMetadata) {
    const std::string bytes = tokenMaps(
        {{"model", "x"}, {"tokens", R"(["<s>", "The", " fox", "\n"])"}, {"token_ids", "[1, 464, 21831, 198]"}});
    auto maps = AttentionMaps::fromBytes(asBytes(bytes), true);
    ASSERT_TRUE(maps) << maps.error().message;
    ASSERT_EQ(maps->tokens(), (std::vector<std::string>{"<s>", "The", " fox", "\n"}));
    EXPECT_EQ(maps->tokenIds(), (std::vector<std::int64_t>{1, 464, 21831, 198}));
    EXPECT_TRUE(maps->tokensNote().empty());
    ASSERT_NE(maps->keyToken(2), nullptr);
    EXPECT_EQ(*maps->keyToken(2), " fox");
    // 3 queries over 4 keys: query i sits at position i + 1.
    ASSERT_NE(maps->queryToken(0), nullptr);
    EXPECT_EQ(*maps->queryToken(0), "The");
    EXPECT_EQ(*maps->queryToken(2), "\n");
    EXPECT_EQ(maps->queryToken(3), nullptr);
    EXPECT_EQ(maps->keyToken(-1), nullptr);
    EXPECT_EQ(maps->keyTokenId(3), 198);
}

TEST(AttentionMapsTokens, TokensThatDoNotMatchAreLeftOutWithANote) {
    for (const auto& [tokens, ids, needle] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {R"(["a", "b", "c"])", "", "3 tokens for 4 keys"},
             {R"({"a": 1})", "", "not a JSON list"},
             {R"(["a", 2, "c", "d"])", "", "other than strings"},
             {"not json", "", "not a JSON list"},
             {R"(["a", "b", "c", "d"])", "[1, 2]", "token_ids"},
             {R"(["a", "b", "c", "d"])", R"([1, 2, "x", 4])", "whole numbers"}}) {
        std::vector<std::pair<std::string, std::string>> metadata = {{"tokens", tokens}};
        if (!ids.empty()) metadata.emplace_back("token_ids", ids);
        auto maps = AttentionMaps::fromBytes(asBytes(tokenMaps(metadata)), true);
        ASSERT_TRUE(maps) << maps.error().message;  // the maps open all the same
        EXPECT_TRUE(maps->tokens().empty()) << tokens;
        EXPECT_TRUE(maps->tokenIds().empty()) << tokens;
        EXPECT_NE(maps->tokensNote().find(needle), std::string::npos) << maps->tokensNote();
    }
}

TEST(AttentionMapsTokens, AFileWithoutTokensHasNone) {
    auto maps = AttentionMaps::fromBytes(asBytes(tokenMaps({{"model", "x"}})), true);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_TRUE(maps->tokens().empty());
    EXPECT_TRUE(maps->tokensNote().empty());
    EXPECT_EQ(maps->keyToken(0), nullptr);
}

// The slopes a model run's maps were computed with (`alibi run` writes them): one per head.
TEST(AttentionMapsSlopes, TheFileSlopesComeFromTheMetadataOnePerHead) {
    auto maps = AttentionMaps::fromBytes(asBytes(tokenMaps({{"slopes", "[0.0625]"}})), true);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->fileSlopes(), (std::vector<double>{0.0625}));
    EXPECT_TRUE(maps->fileSlopesNote().empty());
    for (const auto& [slopes, needle] :
         std::vector<std::pair<std::string, std::string>>{{"[0.5, 0.25]", "2 slopes for 1 heads"},
                                                          {"[-0.5]", "positive numbers"},
                                                          {"[0]", "positive numbers"},
                                                          {R"(["a"])", "positive numbers"},
                                                          {"0.5", "not a JSON list"},
                                                          {"nope", "not a JSON list"}}) {
        auto bad = AttentionMaps::fromBytes(asBytes(tokenMaps({{"slopes", slopes}})), true);
        ASSERT_TRUE(bad) << bad.error().message;  // the maps open all the same
        EXPECT_TRUE(bad->fileSlopes().empty()) << slopes;
        EXPECT_NE(bad->fileSlopesNote().find(needle), std::string::npos) << bad->fileSlopesNote();
    }
    auto none = AttentionMaps::fromBytes(asBytes(tokenMaps({{"model", "x"}})), true);
    ASSERT_TRUE(none) << none.error().message;
    EXPECT_TRUE(none->fileSlopes().empty());
    EXPECT_TRUE(none->fileSlopesNote().empty());
}
