// Tests for <alibi/io/read_progress.hpp> through its two readers, loadSession and loadTensor: the
// progress of a large file's read goes forward from 0 to 1 with the core's words for each stage,
// and a cancel (the progress callback returning false, or `cancelled`) stops the read in any
// stage with ErrorCode::Cancelled (issue 25, item 3: the explorers' progress bars and Cancel).
#include <alibi/io/read_progress.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>

#include "temp_dir_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace alibi;
using alibi::test::slurp;
using alibi::test::spit;

namespace {

class ReadProgressTest : public alibi::test::TempDirTest {};

using Stage = ReadProgress::Stage;

// A valid session (6 heads, T = 40) padded to about `bytes` with spaces after `version`.
std::string paddedSession(std::size_t bytes) {
    return "{\"version\": 1," + std::string(bytes, ' ') + "\"bias\": {\"heads\": 6, \"queries\": 40, \"keys\": 40}}\n";
}

// A session whose `bias.slopes` lists `count` numbers: a lot for the parser (it is refused after
// the parse: the slopes do not match the heads).
std::string longSlopesSession(std::size_t count) {
    std::string text = "{\"version\": 1, \"bias\": {\"scheme\": \"custom\", \"heads\": 2, \"slopes\": [";
    for (std::size_t i = 0; i < count; ++i) text += i ? ", 0.5" : "0.5";
    return text + "]}}\n";
}

// Every report, checked as it comes: within [0, 1], never going back, with words.
struct Recorder {
    std::vector<ReadProgress> reports;
    double last = 0;
    bool operator()(const ReadProgress& p) {
        EXPECT_GE(p.fraction(), last) << p.text();
        EXPECT_LE(p.fraction(), 1.0);
        EXPECT_FALSE(p.text().empty());
        last = p.fraction();
        reports.push_back(p);
        return true;
    }
    [[nodiscard]] std::set<Stage> stages() const {
        std::set<Stage> s;
        for (const ReadProgress& p : reports) s.insert(p.stage);
        return s;
    }
};

// An .npy of f32 values 0, 1, 2, ... of the given shape.
std::string npyFile(const Shape& shape) {
    std::uint64_t count = 1;
    for (std::int64_t d : shape) count *= static_cast<std::uint64_t>(d);
    std::string bytes = npyHeader(shape, DType::F32);
    const std::size_t header = bytes.size();
    bytes.resize(header + count * 4);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto v = static_cast<float>(i % 1000);
        std::memcpy(bytes.data() + header + i * 4, &v, 4);
    }
    return bytes;
}

// A .safetensors of one (2, 4, 4) f32 tensor "bias" after `entries` metadata entries (at most
// kMaxSafetensorsMetadataEntries, 65536, are read).
std::string safetensorsWithMetadata(int entries) {
    std::string json = "{\"__metadata__\":{";
    for (int k = 0; k < entries; ++k) json += (k ? ",\"" : "\"") + std::to_string(k) + "\":\"mmmmmmmmmmmm\"";
    json += "},\"bias\":{\"dtype\":\"F32\",\"shape\":[2,4,4],\"data_offsets\":[0,128]}}";
    while (json.size() % 8) json += ' ';
    std::string bytes(8, '\0');
    for (int b = 0; b < 8; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<char>((json.size() >> (8 * b)) & 0xff);
    bytes += json;
    bytes += std::string(128, '\0');
    return bytes;
}

}  // namespace

TEST(ReadProgress, FractionAndWords) {
    ReadProgress p{Stage::ReadingData, 1u << 20, 4u << 20, 0.2, 0.8};
    EXPECT_DOUBLE_EQ(p.fraction(), 0.2 + 0.8 * 0.25);
    EXPECT_EQ(p.text(), "reading the data: 1.0 MiB of 4.0 MiB");
    EXPECT_EQ((ReadProgress{Stage::Parsing, 0, 0, 0.5, 0.5}).fraction(), 1.0);  // nothing to do: done
    EXPECT_EQ((ReadProgress{Stage::ParsingHeader, 3, 2, 0, 1}).fraction(), 1.0);
}

TEST_F(ReadProgressTest, ASessionsReadGoesForwardToTheEndAndGivesItsBytes) {
    const std::string text = paddedSession(std::size_t{5} << 20);
    spit(path("big.alibi.json"), text);
    Recorder recorder;
    std::string bytes;
    SessionReadOptions options;
    options.read.progress = std::ref(recorder);
    options.bytes = &bytes;
    auto s = loadSession(path("big.alibi.json"), options);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.bias.slopes.heads, 6);
    EXPECT_EQ(s->attention.bias.queries, 40);
    EXPECT_EQ(bytes, text);
    // Read a MiB at a time: at least one report per MiB, then the parse, ending at 1.
    ASSERT_GE(recorder.reports.size(), 6u);
    EXPECT_EQ(recorder.stages(), (std::set<Stage>{Stage::Reading, Stage::Parsing}));
    EXPECT_EQ(recorder.reports.front().fraction(), 0.0);
    EXPECT_EQ(recorder.reports.back().fraction(), 1.0);
    EXPECT_EQ(recorder.reports.front().text(), "reading: 0 B of " + humanBytes(text.size()));
    EXPECT_EQ(loadSession(path("big.alibi.json")).value(), *s);  // the same without options
}

TEST_F(ReadProgressTest, ASessionsReadStopsWhenCancelledInEachStage) {
    spit(path("big.alibi.json"), paddedSession(std::size_t{3} << 20));
    // The progress callback says stop at its third report (the read).
    int calls = 0;
    SessionReadOptions options;
    std::string bytes = "untouched";
    options.bytes = &bytes;
    options.read.progress = [&](const ReadProgress&) { return ++calls < 3; };
    auto s = loadSession(path("big.alibi.json"), options);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Cancelled);
    EXPECT_NE(s.error().message.find("cancelled"), std::string::npos) << s.error().message;
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(bytes, "untouched");

    // `cancelled` stops it before a byte is read.
    options.read.progress = nullptr;
    options.read.cancelled = [] { return true; };
    s = loadSession(path("big.alibi.json"), options);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Cancelled);

    // In the parse: a cancel wins over what the parse would have found (the slopes are refused).
    spit(path("slopes.alibi.json"), longSlopesSession(200'000));
    const auto refused = loadSession(path("slopes.alibi.json"));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().code, ErrorCode::Cancelled);
    options.read.cancelled = nullptr;
    std::uint64_t parsedWhenStopped = 0;
    options.read.progress = [&](const ReadProgress& p) {
        if (p.stage != Stage::Parsing || p.done == 0) return true;
        parsedWhenStopped = p.done;
        return false;
    };
    s = loadSession(path("slopes.alibi.json"), options);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Cancelled) << s.error().message;
    EXPECT_GT(parsedWhenStopped, 0u);
    EXPECT_LT(parsedWhenStopped, slurp(path("slopes.alibi.json")).size());  // stopped part way
}

TEST_F(ReadProgressTest, ATensorsReadGoesForwardThroughHeaderAndData) {
    const Shape shape{48, 256, 256};  // 12 MiB of f32: three chunks of data
    spit(path("big.npy"), npyFile(shape));
    Recorder recorder;
    TensorReadOptions options;
    options.read.progress = std::ref(recorder);
    auto loaded = loadTensor(path("big.npy"), options);
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(loaded->tensor.shape(), shape);
    for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{999}, std::uint64_t{1000}, std::uint64_t{3145727}})
        EXPECT_EQ(loaded->tensor.at(i), static_cast<double>(i % 1000));
    EXPECT_EQ(recorder.stages(), (std::set<Stage>{Stage::ReadingHeader, Stage::ParsingHeader, Stage::ReadingData}));
    int dataReports = 0;
    for (const ReadProgress& p : recorder.reports) dataReports += p.stage == Stage::ReadingData;
    EXPECT_GE(dataReports, 4);  // its start, then each chunk
    EXPECT_EQ(recorder.reports.back().fraction(), 1.0);
    EXPECT_EQ(recorder.reports.back().text(), "reading the data: 12.0 MiB of 12.0 MiB");
}

TEST_F(ReadProgressTest, ATensorsReadStopsWhenCancelledInEachStage) {
    spit(path("big.npy"), npyFile({48, 256, 256}));
    for (const Stage stop : {Stage::ReadingHeader, Stage::ReadingData}) {
        TensorReadOptions options;
        bool stopped = false;
        options.read.progress = [&](const ReadProgress& p) {
            if (p.stage != stop || (stop == Stage::ReadingData && p.done == 0)) return true;
            stopped = true;
            return false;
        };
        auto loaded = loadTensor(path("big.npy"), options);
        ASSERT_FALSE(loaded);
        EXPECT_TRUE(stopped);
        EXPECT_EQ(loaded.error().code, ErrorCode::Cancelled);
        EXPECT_NE(loaded.error().message.find("cancelled"), std::string::npos) << loaded.error().message;
    }
    TensorReadOptions options;
    options.read.cancelled = [] { return true; };
    EXPECT_EQ(loadTensor(path("big.npy"), options).error().code, ErrorCode::Cancelled);

    // A safetensors header of 60,000 metadata entries: stopped while it is parsed.
    spit(path("meta.safetensors"), safetensorsWithMetadata(60'000));
    ASSERT_TRUE(loadTensor(path("meta.safetensors")));
    std::uint64_t parsedWhenStopped = 0;
    options.read.cancelled = nullptr;
    options.read.progress = [&](const ReadProgress& p) {
        if (p.stage != Stage::ParsingHeader || p.done == 0) return true;
        parsedWhenStopped = p.done;
        return false;
    };
    auto loaded = loadTensor(path("meta.safetensors"), options);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code, ErrorCode::Cancelled) << loaded.error().message;
    EXPECT_GT(parsedWhenStopped, 0u);
    EXPECT_LT(parsedWhenStopped, slurp(path("meta.safetensors")).size() - 128);
}
