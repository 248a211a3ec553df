// Tests for <alibi/tensor_io.hpp>: the .npy header byte for byte, round trips of every dtype
// through every format, CSV and JSON text written out by hand, streaming with bounded chunks,
// cancellation, the JSON non-finite rule, and malformed .npy/.safetensors files (truncated,
// wrong header length, shape/data mismatch, unknown dtype, huge shapes, Fortran order), each
// refused with the right code and a message naming the problem, never a crash.
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>

#include <gtest/gtest.h>

#include "temp_dir_fixture.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace alibi;

using alibi::test::slurp;
using alibi::test::spit;

namespace {

class TensorIoTest : public alibi::test::TempDirTest {};

std::span<const std::byte> bytesOf(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string le16(unsigned v) {
    return {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
}
std::string le64(std::uint64_t v) {
    std::string s(8, '\0');
    for (int b = 0; b < 8; ++b) s[b] = static_cast<char>((v >> (8 * b)) & 0xff);
    return s;
}

// An in-memory tensor with given values and metadata.
Tensor makeTensor(Shape shape, DType dtype, const std::vector<double>& values,
                  std::map<std::string, std::string> metadata = {}) {
    Tensor t(std::move(shape), dtype);
    for (std::size_t i = 0; i < values.size(); ++i) t.set(i, values[i]);
    t.metadata = std::move(metadata);
    return t;
}

Result<void> exportTo(const Tensor& t, const std::string& path, FileFormat format, bool allowNonFinite = false) {
    ExportOptions options;
    options.format = format;
    options.allowNonFinite = allowNonFinite;
    return exportTensor(*tensorSource(t), path, options);
}

// A .npy file by hand: header dict padded to a multiple of 64 bytes, then data.
std::string npyFile(const std::string& dict, const std::string& data, int major = 1) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::string header = dict;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
    if (major == 1)
        out += le16(static_cast<unsigned>(header.size()));
    else
        out += le64(header.size()).substr(0, 4);
    return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
    std::string s(values.size() * 4, '\0');
    std::size_t i = 0;
    for (float v : values) std::memcpy(s.data() + 4 * i++, &v, 4);
    return s;
}

// A .safetensors file by hand from a JSON header and data.
std::string safetensorsFile(const std::string& json, const std::string& data) {
    return le64(json.size()) + json + data;
}

BiasParams smallBias(DType dtype, Layout layout = Layout::Hqk) {
    BiasParams p;
    p.slopes.heads = 3;
    p.queries = 4;
    p.keys = 5;
    p.dtype = dtype;
    p.layout = layout;
    return p;
}

bool sameBytes(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && a.dtype() == b.dtype() && a.byteSize() == b.byteSize() &&
           std::memcmp(a.bytes(), b.bytes(), a.byteSize()) == 0;
}

// Bit-exact equality that also tells -0.0 from 0.0 and matches NaN with NaN.
bool identical(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

// ---------------------------------------------------------------------------
// Format names

TEST(FileFormatTest, NamesAndExtensions) {
    EXPECT_EQ(formatFromPath("out.npy"), FileFormat::Npy);
    EXPECT_EQ(formatFromPath("dir.v2/OUT.SafeTensors"), FileFormat::Safetensors);
    EXPECT_EQ(formatFromPath("a.csv"), FileFormat::Csv);
    EXPECT_EQ(formatFromPath("run.alibi.json"), FileFormat::Json);
    EXPECT_EQ(formatFromPath("a.raw"), FileFormat::Raw);
    EXPECT_EQ(formatFromPath("a.bin"), FileFormat::Raw);
    EXPECT_EQ(formatFromPath("a.txt"), FileFormat::Text);
    EXPECT_EQ(formatFromPath("a.PNG"), FileFormat::Png);
    EXPECT_EQ(formatFromPath("a.svg"), FileFormat::Svg);
    EXPECT_EQ(formatFromPath("noext"), std::nullopt);
    EXPECT_EQ(formatFromPath("dir.npy/noext"), std::nullopt);
    EXPECT_EQ(formatFromPath("a."), std::nullopt);
    EXPECT_EQ(formatFromPath("a.xlsx"), std::nullopt);
    for (auto f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json, FileFormat::Raw,
                   FileFormat::Text, FileFormat::Png, FileFormat::Svg})
        EXPECT_EQ(parseFormat(formatName(f)), f) << formatName(f);
    EXPECT_EQ(parseFormat("JSON"), FileFormat::Json);
    EXPECT_EQ(parseFormat("xml"), std::nullopt);
}

// ---------------------------------------------------------------------------
// .npy header

TEST(NpyHeaderTest, MatchesNumPyByteForByte) {
    // np.save of a float32 (8, 16, 16) array: 10-byte preamble, header length 118 (0x76), the
    // dict, 21 - 1 = 20 spare spaces for growing axis 0, padding to 128 bytes, '\n'.
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 16, 16), }";
    ASSERT_EQ(dict.size(), 64u);
    const std::string expected =
        std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(128 - 10 - 64 - 1, ' ') + "\n";
    EXPECT_EQ(npyHeader({8, 16, 16}, DType::F32), expected);

    const std::string h1 = npyHeader({5}, DType::F64);
    const std::string dict1 = "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }";
    EXPECT_EQ(h1.size(), 128u);
    EXPECT_EQ(h1.substr(10, dict1.size()), dict1);
    EXPECT_EQ(h1.back(), '\n');

    const std::string h2 = npyHeader({2, 3}, DType::BF16);
    EXPECT_NE(h2.find("'descr': '<u2'"), std::string::npos);
    const std::string h3 = npyHeader({2, 3}, DType::F16);
    EXPECT_NE(h3.find("'descr': '<f2'"), std::string::npos);
    const std::string scalar = npyHeader({}, DType::F32);
    EXPECT_NE(scalar.find("'shape': (), }"), std::string::npos);
    EXPECT_EQ(scalar.size() % 64, 0u);
}

TEST(NpyHeaderTest, SwitchesToVersion2WhenTheHeaderIsLong) {
    const Shape shape(30000, 1);  // "1, " x 30000: a dict of ~90 KB
    const std::string h = npyHeader(shape, DType::F32);
    ASSERT_GT(h.size(), 65535u);
    EXPECT_EQ(h[6], '\x02');
    EXPECT_EQ(h.size() % 64, 0u);
    std::uint32_t length = 0;
    std::memcpy(&length, h.data() + 8, 4);
    EXPECT_EQ(length + 12, h.size());
    // Reading it back stops at the dimension limit of every reader (issue 16); a version 2.0
    // file within the limits loads.
    auto loaded = parseNpy(bytesOf(h + floats({1.5f})));
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find("more than 64 dimensions"), std::string::npos) << loaded.error().message;
    auto v2 =
        parseNpy(bytesOf(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", floats({1.5f}), 2)));
    ASSERT_TRUE(v2) << v2.error().message;
    EXPECT_EQ(v2->tensor.shape(), Shape({1, 1}));
    EXPECT_EQ(v2->tensor.at(0), 1.5);
}

TEST_F(TensorIoTest, NpyMatchesNumPySaveWhenNumPyIsInstalled) {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
    const std::string script = path("save.py");
    spit(script, "import numpy as np\nnp.save('" + path("np.npy") +
                     "', np.arange(8*16*16, dtype=np.float32).reshape(8, 16, 16))\n");
    if (std::system(("/usr/bin/python3 " + script + " 2>/dev/null").c_str()) != 0)
        GTEST_SKIP() << "NumPy is not installed for /usr/bin/python3";
    const std::string theirs = slurp(path("np.npy"));
    EXPECT_EQ(theirs.substr(0, 128), npyHeader({8, 16, 16}, DType::F32));
    auto loaded = loadTensor(path("np.npy"));
    ASSERT_TRUE(loaded) << loaded.error().message;
    for (std::uint64_t i = 0; i < loaded->tensor.size(); ++i) ASSERT_EQ(loaded->tensor.at(i), static_cast<double>(i));
}

// ---------------------------------------------------------------------------
// Round trips

TEST_F(TensorIoTest, NpySafetensorsAndRawRoundTripEveryDtype) {
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
        auto bias = buildBias(smallBias(dtype));
        ASSERT_TRUE(bias) << bias.error().message;
        const std::string name(dtypeName(dtype));

        ASSERT_TRUE(exportTo(*bias, path(name + ".npy"), FileFormat::Npy));
        auto npy = loadTensor(path(name + ".npy"));
        ASSERT_TRUE(npy) << npy.error().message;
        EXPECT_TRUE(sameBytes(npy->tensor, *bias)) << name;
        EXPECT_EQ(npy->bf16FromU2, dtype == DType::BF16);
        EXPECT_EQ(npy->name, name + ".npy");

        ASSERT_TRUE(exportTo(*bias, path(name + ".safetensors"), FileFormat::Safetensors));
        auto st = loadTensor(path(name + ".safetensors"));
        ASSERT_TRUE(st) << st.error().message;
        EXPECT_TRUE(sameBytes(st->tensor, *bias)) << name;
        EXPECT_EQ(st->name, "bias");
        EXPECT_EQ(st->tensor.metadata, bias->metadata);

        ASSERT_TRUE(exportTo(*bias, path(name + ".raw"), FileFormat::Raw));
        const std::string raw = slurp(path(name + ".raw"));
        ASSERT_EQ(raw.size(), bias->byteSize());
        EXPECT_EQ(std::memcmp(raw.data(), bias->bytes(), raw.size()), 0);
    }
}

TEST_F(TensorIoTest, CsvAndJsonRoundTripEveryDtypeExactly) {
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
        // geometric slopes with H = 3 are not short binary fractions: a real test of the digits.
        BiasParams params = smallBias(dtype);
        params.slopes.scheme = SlopeScheme::Geometric;
        params.mask.kind = MaskValue::Kind::Lowest;  // -1e9 would be -inf in f16, which JSON refuses
        auto bias = buildBias(params);
        ASSERT_TRUE(bias);
        const std::string name(dtypeName(dtype));

        ASSERT_TRUE(exportTo(*bias, path(name + ".csv"), FileFormat::Csv));
        std::istringstream csv(slurp(path(name + ".csv")));
        std::string line;
        std::getline(csv, line);
        EXPECT_EQ(line, "head,query,k0,k1,k2,k3,k4");
        std::uint64_t flat = 0;
        for (int h = 0; h < 3; ++h) {
            for (int i = 0; i < 4; ++i) {
                ASSERT_TRUE(std::getline(csv, line));
                std::istringstream row(line);
                std::string cell;
                std::getline(row, cell, ',');
                EXPECT_EQ(cell, std::to_string(h));
                std::getline(row, cell, ',');
                EXPECT_EQ(cell, std::to_string(i));
                while (std::getline(row, cell, ','))
                    EXPECT_TRUE(identical(std::strtod(cell.c_str(), nullptr), bias->at(flat++)))
                        << name << " " << cell << " vs " << bias->at(flat - 1);
            }
        }
        EXPECT_EQ(flat, bias->size());

        ASSERT_TRUE(exportTo(*bias, path(name + ".json"), FileFormat::Json));
        const auto doc = nlohmann::json::parse(slurp(path(name + ".json")));
        EXPECT_EQ(doc["shape"], nlohmann::json({3, 4, 5}));
        EXPECT_EQ(doc["dtype"], name);
        EXPECT_EQ(doc["params"]["mode"], "causal");
        EXPECT_EQ(doc["params"].size(), bias->metadata.size());
        flat = 0;
        for (const auto& head : doc["data"])
            for (const auto& row : head)
                for (const auto& v : row) EXPECT_TRUE(identical(v.get<double>(), bias->at(flat++))) << name;
        EXPECT_EQ(flat, bias->size());
    }
}

TEST_F(TensorIoTest, StreamedBiasSourceEqualsTheBuiltTensor) {
    for (Layout layout : {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat}) {
        BiasParams params = smallBias(DType::F32, layout);
        params.slopes.heads = 5;
        params.queries = 37;
        params.keys = 41;
        auto source = biasSource(params);
        ASSERT_TRUE(source);
        ExportOptions options;
        options.chunkBytes = 200;  // many chunks, each a few rows
        ASSERT_TRUE(exportTensor(**source, path("s.npy"), options));
        auto loaded = loadTensor(path("s.npy"));
        ASSERT_TRUE(loaded);
        auto built = buildBias(params);
        ASSERT_TRUE(built);
        EXPECT_TRUE(sameBytes(loaded->tensor, *built)) << layoutName(layout);
    }
}

// ---------------------------------------------------------------------------
// Safetensors header

TEST_F(TensorIoTest, SafetensorsHeaderIsWellFormed) {
    auto bias = buildBias(smallBias(DType::BF16));
    ASSERT_TRUE(bias);
    ExportOptions options;
    options.format = FileFormat::Safetensors;
    options.tensorName = "alibi_bias";
    ASSERT_TRUE(exportTensor(*tensorSource(*bias), path("b.safetensors"), options));
    const std::string file = slurp(path("b.safetensors"));
    std::uint64_t n = 0;
    std::memcpy(&n, file.data(), 8);
    ASSERT_LE(8 + n, file.size());
    EXPECT_EQ((8 + n) % 8, 0u) << "data must start 8-byte aligned";
    EXPECT_EQ(file.size(), 8 + n + 3 * 4 * 5 * 2);
    const std::string json = file.substr(8, n);
    EXPECT_EQ(json.rfind("{\"__metadata__\"", 0), 0u) << json;
    const auto header = nlohmann::json::parse(json);
    ASSERT_EQ(header.size(), 2u);
    const auto& entry = header["alibi_bias"];
    EXPECT_EQ(entry["dtype"], "BF16");
    EXPECT_EQ(entry["shape"], nlohmann::json({3, 4, 5}));
    EXPECT_EQ(entry["data_offsets"], nlohmann::json({0, 120}));
    const auto& meta = header["__metadata__"];
    EXPECT_EQ(meta.size(), bias->metadata.size());
    for (const auto& [key, value] : bias->metadata) EXPECT_EQ(meta[key], value) << key;
    EXPECT_EQ(meta["dtype"], "bf16");
    EXPECT_EQ(meta["heads"], "3");
    EXPECT_EQ(std::memcmp(file.data() + 8 + n, bias->bytes(), 120), 0);

    auto loaded = parseSafetensors(bytesOf(file), "alibi_bias");
    ASSERT_TRUE(loaded);
    EXPECT_TRUE(sameBytes(loaded->tensor, *bias));
}

// ---------------------------------------------------------------------------
// CSV and JSON text, written out by hand

TEST_F(TensorIoTest, CsvOfACausalBiasByHand) {
    // H = 2 (slopes 1/16, 1/256), Q = K = 3, causal, mask -1e9: bias = -m (i - j) for j <= i.
    BiasParams p;
    p.slopes.heads = 2;
    p.queries = 3;
    auto bias = buildBias(p);
    ASSERT_TRUE(bias);
    ASSERT_TRUE(exportTo(*bias, path("b.csv"), FileFormat::Csv));
    EXPECT_EQ(slurp(path("b.csv")),
              "head,query,k0,k1,k2\n"
              "0,0,0,-1e+09,-1e+09\n"
              "0,1,-0.0625,0,-1e+09\n"
              "0,2,-0.125,-0.0625,0\n"
              "1,0,0,-1e+09,-1e+09\n"
              "1,1,-0.00390625,0,-1e+09\n"
              "1,2,-0.0078125,-0.00390625,0\n");

    // The same numbers as (Q, K, H): one row per (query, key), one column per head.
    p.layout = Layout::Qkh;
    auto qkh = buildBias(p);
    ASSERT_TRUE(qkh);
    ASSERT_TRUE(exportTo(*qkh, path("q.csv"), FileFormat::Csv));
    EXPECT_EQ(slurp(path("q.csv")),
              "query,key,h0,h1\n"
              "0,0,0,0\n"
              "0,1,-1e+09,-1e+09\n"
              "0,2,-1e+09,-1e+09\n"
              "1,0,-0.0625,-0.00390625\n"
              "1,1,0,0\n"
              "1,2,-1e+09,-1e+09\n"
              "2,0,-0.125,-0.0078125\n"
              "2,1,-0.0625,-0.00390625\n"
              "2,2,0,0\n");

    // 1hqk and flat read exactly like hqk.
    const std::string hqkText = slurp(path("b.csv"));
    for (Layout layout : {Layout::OneHqk, Layout::Flat}) {
        p.layout = layout;
        auto t = buildBias(p);
        ASSERT_TRUE(t);
        ASSERT_TRUE(exportTo(*t, path("l.csv"), FileFormat::Csv));
        EXPECT_EQ(slurp(path("l.csv")), hqkText) << layoutName(layout);
    }
}

TEST_F(TensorIoTest, CsvOfOneDimensionalTensors) {
    const Tensor slopes = makeTensor({3}, DType::F64, {0.5, 0.25, 1.0 / 3}, {{"kind", "slopes"}});
    ASSERT_TRUE(exportTo(slopes, path("s.csv"), FileFormat::Csv));
    EXPECT_EQ(slurp(path("s.csv")), "head,slope\n0,0.5\n1,0.25\n2,0.3333333333333333\n");

    const Tensor plain = makeTensor({2}, DType::F32, {1.5, -2});
    ASSERT_TRUE(exportTo(plain, path("p.csv"), FileFormat::Csv));
    EXPECT_EQ(slurp(path("p.csv")), "index,value\n0,1.5\n1,-2\n");

    // Non-finite values use the spellings np.loadtxt reads.
    const Tensor odd = makeTensor(
        {2, 2}, DType::F32,
        {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), std::nan(""), 0.1});
    ASSERT_TRUE(exportTo(odd, path("o.csv"), FileFormat::Csv));
    // 0.1 stored as f32 is 0.100000001490116..., printed as the shortest double that is it.
    EXPECT_EQ(slurp(path("o.csv")), "row,c0,c1\n0,-inf,inf\n1,nan,0.10000000149011612\n");
}

TEST_F(TensorIoTest, JsonOfATinyTensorByHand) {
    const Tensor t = makeTensor({2, 2}, DType::F32, {0.5, -1, 0, -0.0}, {{"mode", "causal"}, {"heads", "1"}});
    ASSERT_TRUE(exportTo(t, path("t.json"), FileFormat::Json));
    EXPECT_EQ(slurp(path("t.json")),
              "{\"shape\": [2, 2], \"dtype\": \"f32\", \"params\": {\"heads\":1,\"mode\":\"causal\"}, "
              "\"data\": [[0.5, -1],\n[0, -0.0]]}\n");

    const Tensor flat = makeTensor({3}, DType::F64, {1, 2.5, 1e-300});
    ASSERT_TRUE(exportTo(flat, path("f.json"), FileFormat::Json));
    EXPECT_EQ(slurp(path("f.json")),
              "{\"shape\": [3], \"dtype\": \"f64\", \"params\": {}, \"data\": [1, 2.5, 1e-300]}\n");

    const Tensor empty = makeTensor({2, 0}, DType::F32, {});
    ASSERT_TRUE(exportTo(empty, path("e.json"), FileFormat::Json));
    EXPECT_EQ(nlohmann::json::parse(slurp(path("e.json")))["data"], nlohmann::json::parse("[[], []]"));
}

TEST_F(TensorIoTest, JsonRefusesNonFiniteUnlessAllowed) {
    BiasParams p;
    p.slopes.heads = 1;
    p.queries = 2;
    p.mask.kind = MaskValue::Kind::NegInf;
    auto bias = buildBias(p);
    ASSERT_TRUE(bias);
    spit(path("old.json"), "previous");
    auto refused = exportTo(*bias, path("old.json"), FileFormat::Json);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::BadInput);
    EXPECT_NE(refused.error().message.find("-inf"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("(0, 0, 1)"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("--mask -1e9"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("--allow-nonfinite"), std::string::npos) << refused.error().message;
    EXPECT_EQ(slurp(path("old.json")), "previous");
    EXPECT_EQ(entries(), std::vector<std::string>{"old.json"});

    ASSERT_TRUE(exportTo(*bias, path("old.json"), FileFormat::Json, /*allowNonFinite=*/true));
    EXPECT_NE(slurp(path("old.json")).find("\"data\": [[[0, -Infinity],\n[-0.00390625, 0]]]"), std::string::npos)
        << slurp(path("old.json"));

    const Tensor odd = makeTensor({3}, DType::F32, {std::numeric_limits<double>::infinity(), std::nan(""), 1});
    ASSERT_TRUE(exportTo(odd, path("odd.json"), FileFormat::Json, true));
    EXPECT_NE(slurp(path("odd.json")).find("[Infinity, NaN, 1]"), std::string::npos);

    // f16 turns the default -1e9 mask into -inf: the message says why.
    p.mask = MaskValue{};
    p.dtype = DType::F16;
    auto half = buildBias(p);
    ASSERT_TRUE(half);
    auto overflow = exportTo(*half, path("h.json"), FileFormat::Json);
    ASSERT_FALSE(overflow);
    EXPECT_NE(overflow.error().message.find("65504"), std::string::npos) << overflow.error().message;
    EXPECT_FALSE(fs::exists(path("h.json")));

    // A target written in place is checked before the first byte goes out.
    auto devNull = exportTo(*half, "/dev/null", FileFormat::Json);
    ASSERT_FALSE(devNull);
    EXPECT_EQ(devNull.error().code, ErrorCode::BadInput);
}

TEST_F(TensorIoTest, JsonNonFiniteInALaterChunkLeavesNoFile) {
    // Finite for the first 10000 elements, -inf at the end: found in the last chunk, after
    // earlier chunks were already written to the temporary file.
    std::vector<double> values(10001, 1.0);
    values.back() = -std::numeric_limits<double>::infinity();
    const Tensor t = makeTensor({10001}, DType::F32, values);
    ExportOptions options;
    options.format = FileFormat::Json;
    options.chunkBytes = 4096;
    auto result = exportTensor(*tensorSource(t), path("late.json"), options);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("(10000,)"), std::string::npos) << result.error().message;
    EXPECT_TRUE(entries().empty());
}

// Standard output pointed at `fd` for the life of the object (the export's "-" target).
class StdoutRedirect {
public:
    explicit StdoutRedirect(int fd) : m_saved(::dup(STDOUT_FILENO)) {
        std::fflush(stdout);
        ::dup2(fd, STDOUT_FILENO);
    }
    ~StdoutRedirect() {
        std::fflush(stdout);
        ::dup2(m_saved, STDOUT_FILENO);
        ::close(m_saved);
    }
    StdoutRedirect(const StdoutRedirect&) = delete;
    StdoutRedirect& operator=(const StdoutRedirect&) = delete;

private:
    int m_saved;
};

TEST_F(TensorIoTest, NonTensorFormatsAndBinaryToATerminalAreRefused) {
    const Tensor t = makeTensor({2}, DType::F32, {1, 2});
    for (auto f : {FileFormat::Text, FileFormat::Png, FileFormat::Svg}) {
        auto r = exportTo(t, path("x"), f);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(r.error().message.find(formatName(f)), std::string::npos);
    }
    // Standard output on a terminal (a pseudo-terminal here): binary is refused, nothing written.
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(master, 0);
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    ASSERT_GE(terminal, 0);
    for (auto f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Raw}) {
        Result<void> r;
        {
            const StdoutRedirect redirect(terminal);
            r = exportTo(t, "-", f);
        }
        ASSERT_FALSE(r) << formatName(f);
        EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(r.error().message.find("terminal"), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find("-o FILE"), std::string::npos) << r.error().message;
    }
    ::close(terminal);
    ::close(master);
    EXPECT_TRUE(entries().empty());
}

TEST_F(TensorIoTest, BinaryToARedirectedStandardOutputIsWritten) {
    const Tensor t = makeTensor({2}, DType::F32, {1, 2});
    ASSERT_TRUE(exportTo(t, path("want.raw"), FileFormat::Raw));
    const int file = ::open(path("got.raw").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(file, 0);
    Result<void> r;
    {
        const StdoutRedirect redirect(file);
        r = exportTo(t, "-", FileFormat::Raw);
    }
    ::close(file);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(slurp(path("got.raw")), slurp(path("want.raw")));
}

// ---------------------------------------------------------------------------
// Streaming, progress, cancellation, failures

namespace {

// Records the largest read so tests can check memory stays bounded.
class CountingSource final : public TensorSource {
public:
    explicit CountingSource(Shape shape) : m_shape(std::move(shape)) {}
    Shape shape() const override { return m_shape; }
    DType dtype() const override { return DType::F64; }
    std::uint64_t preferredChunk() const override { return 1000; }
    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        m_largest = std::max(m_largest, count);
        m_reads++;
        for (std::uint64_t k = 0; k < count; ++k) storeAs(DType::F64, static_cast<double>(first + k), out + 8 * k);
        return {};
    }
    mutable std::uint64_t m_largest = 0;
    mutable int m_reads = 0;

private:
    Shape m_shape;
};

}  // namespace

TEST_F(TensorIoTest, ChunksAreBoundedAndProgressReachesTheTotal) {
    for (auto format : {FileFormat::Npy, FileFormat::Csv, FileFormat::Json, FileFormat::Safetensors}) {
        CountingSource source({50, 100});
        ExportOptions options;
        options.format = format;
        options.chunkBytes = 8 * 250;  // below the preferred 1000: whole rows of 100, 2 of them
        std::vector<std::uint64_t> done;
        options.progress = [&](std::uint64_t d, std::uint64_t total) {
            EXPECT_EQ(total, 50u * 100 * 8);
            done.push_back(d);
            return true;
        };
        ASSERT_TRUE(exportTensor(source, path("c"), options));
        EXPECT_EQ(source.m_largest, 200u) << formatName(format);
        EXPECT_EQ(source.m_reads, 25);
        ASSERT_FALSE(done.empty());
        EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
        EXPECT_EQ(done.back(), 50u * 100 * 8);
    }
    CountingSource source({50, 100});
    ExportOptions options;
    options.chunkBytes = 8 * 2500;  // above the preferred chunk: a multiple of it
    ASSERT_TRUE(exportTensor(source, path("c.npy"), options));
    EXPECT_EQ(source.m_largest, 2000u);
    auto loaded = loadTensor(path("c.npy"));
    ASSERT_TRUE(loaded);
    for (std::uint64_t i = 0; i < 5000; ++i) ASSERT_EQ(loaded->tensor.at(i), static_cast<double>(i));
}

TEST_F(TensorIoTest, CancellingLeavesNoFileAndTheOldFileIntact) {
    for (auto format : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json, FileFormat::Raw}) {
        fs::remove_all(m_dir);
        fs::create_directory(m_dir);
        CountingSource source({100, 100});
        ExportOptions options;
        options.format = format;
        options.chunkBytes = 800;
        int calls = 0;
        options.progress = [&](std::uint64_t, std::uint64_t) { return ++calls < 5; };
        auto fresh = exportTensor(source, path("new.out"), options);
        ASSERT_FALSE(fresh);
        EXPECT_EQ(fresh.error().code, ErrorCode::Cancelled);
        EXPECT_EQ(calls, 5);
        EXPECT_TRUE(entries().empty()) << formatName(format);

        spit(path("old.out"), "the previous export");
        calls = 0;
        auto over = exportTensor(source, path("old.out"), options);
        ASSERT_FALSE(over);
        EXPECT_EQ(over.error().code, ErrorCode::Cancelled);
        EXPECT_NE(over.error().message.find("nothing was written"), std::string::npos);
        EXPECT_EQ(slurp(path("old.out")), "the previous export");
        EXPECT_EQ(entries(), std::vector<std::string>{"old.out"});
    }
}

namespace {

// Fails at one chunk, and records where its reads ran: on a thread that blocks SIGINT (so an
// interrupt reaches the writing thread), and never two at a time.
class FailingSource final : public TensorSource {
public:
    explicit FailingSource(std::uint64_t failAt) : m_failAt(failAt) {}
    Shape shape() const override { return {100, 100}; }
    DType dtype() const override { return DType::F64; }
    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        EXPECT_EQ(m_active.fetch_add(1), 0);
        sigset_t mask;
        pthread_sigmask(SIG_BLOCK, nullptr, &mask);
        if (!sigismember(&mask, SIGINT)) m_signalsReachReads = true;
        if (std::this_thread::get_id() == m_caller) m_readOnCaller = true;
        for (std::uint64_t k = 0; k < count; ++k) storeAs(DType::F64, static_cast<double>(first + k), out + 8 * k);
        m_reads++;
        m_active--;
        if (first >= m_failAt) return fail(ErrorCode::Internal, "the source broke");
        return {};
    }
    std::uint64_t m_failAt;
    std::thread::id m_caller = std::this_thread::get_id();
    mutable std::atomic<int> m_active{0};
    mutable std::atomic<int> m_reads{0};
    mutable std::atomic<bool> m_signalsReachReads{false}, m_readOnCaller{false};
};

}  // namespace

TEST_F(TensorIoTest, ReadsRunAheadOnAThreadThatLeavesSignalsToTheWriter) {
    for (auto format : {FileFormat::Npy, FileFormat::Csv}) {
        fs::remove_all(m_dir);
        fs::create_directory(m_dir);
        ExportOptions options;
        options.format = format;
        options.chunkBytes = 8000;  // 10 rows per chunk, 10 chunks
        FailingSource fine(~std::uint64_t{0});
        ASSERT_TRUE(exportTensor(fine, path("ok.out"), options));
        EXPECT_EQ(fine.m_reads, 10);
        EXPECT_FALSE(fine.m_signalsReachReads);
        EXPECT_FALSE(fine.m_readOnCaller);
        if (format == FileFormat::Npy) {  // the chunks, filled ahead into two buffers, land in order
            auto loaded = loadTensor(path("ok.out"));
            ASSERT_TRUE(loaded) << loaded.error().message;
            for (std::uint64_t i = 0; i < 10000; ++i) ASSERT_EQ(loaded->tensor.at(i), static_cast<double>(i));
        }
        // A failure in a chunk read ahead is still the export's error, and leaves no file.
        FailingSource broken(5000);
        auto r = exportTensor(broken, path("broken.out"), options);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().message, "the source broke");
        EXPECT_EQ(entries(), std::vector<std::string>{"ok.out"}) << formatName(format);
    }
}

TEST_F(TensorIoTest, ExportToDevFullFailsClearlyAndToDevNullSucceeds) {
    auto bias = buildBias(smallBias(DType::F32));
    ASSERT_TRUE(bias);
    struct stat st {};
    if (::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        auto full = exportTo(*bias, "/dev/full", FileFormat::Npy);
        ASSERT_FALSE(full);
        EXPECT_EQ(full.error().code, ErrorCode::Io);
        EXPECT_EQ(full.error().message, "cannot write /dev/full: No space left on device");
        ASSERT_EQ(::stat("/dev/full", &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode));
    }
    ASSERT_TRUE(exportTo(*bias, "/dev/null", FileFormat::Csv));
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));

    auto missing = exportTo(*bias, path("nope/b.npy"), FileFormat::Npy);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::Io);
    EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
}

TEST_F(TensorIoTest, ExportToAFifoWritesInPlace) {
    auto bias = buildBias(smallBias(DType::F16));
    ASSERT_TRUE(bias);
    const std::string fifo = path("pipe.npy");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = slurp(fifo); });
    auto result = exportTo(*bias, fifo, FileFormat::Npy);
    reader.join();
    ASSERT_TRUE(result) << result.error().message;
    auto parsed = parseNpy(bytesOf(received));
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(sameBytes(parsed->tensor, *bias));
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(entries(), std::vector<std::string>{"pipe.npy"});
}

// ---------------------------------------------------------------------------
// Import: malformed .npy

namespace {

void expectNpyError(const std::string& file, ErrorCode code, const std::string& needle) {
    auto r = parseNpy(bytesOf(file));
    ASSERT_FALSE(r) << "accepted a file that should fail with: " << needle;
    EXPECT_EQ(r.error().code, code) << r.error().message;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

const std::string kGoodDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";

}  // namespace

TEST(NpyImportTest, ValidFilesLoad) {
    auto r = parseNpy(bytesOf(npyFile(kGoodDict, floats({1, 2, 3, -4}))));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->tensor.shape(), (Shape{2, 2}));
    EXPECT_EQ(r->tensor.dtype(), DType::F32);
    EXPECT_EQ(r->tensor.at(3), -4.0);

    // Big-endian data is swapped into place.
    std::string be = floats({1.5f, -2});
    std::reverse(be.begin(), be.begin() + 4);
    std::reverse(be.begin() + 4, be.end());
    auto big = parseNpy(bytesOf(npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be)));
    ASSERT_TRUE(big) << big.error().message;
    EXPECT_EQ(big->tensor.at(0), 1.5);
    EXPECT_EQ(big->tensor.at(1), -2.0);

    // '<u2' is bfloat16 bits; Python 2 style longs and an empty shape (a scalar) parse.
    auto bf = parseNpy(bytesOf(npyFile("{'descr': '<u2', 'fortran_order': False, 'shape': (1L,), }", le16(0x3fc0))));
    ASSERT_TRUE(bf) << bf.error().message;
    EXPECT_TRUE(bf->bf16FromU2);
    EXPECT_EQ(bf->tensor.dtype(), DType::BF16);
    EXPECT_EQ(bf->tensor.at(0), 1.5);
    auto scalar = parseNpy(bytesOf(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", le64(0))));
    ASSERT_TRUE(scalar) << scalar.error().message;
    EXPECT_EQ(scalar->tensor.size(), 1u);
    auto v2 = parseNpy(bytesOf(npyFile(kGoodDict, floats({1, 2, 3, 4}), 2)));
    ASSERT_TRUE(v2) << v2.error().message;
}

TEST(NpyImportTest, EscapesDimensionsAndExcerpts) {
    // Python reads '<f\4' as '<f' + chr(4), which NumPy refuses: never as '<f4'.
    expectNpyError(npyFile("{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,), }", floats({1})),
                   ErrorCode::BadInput, "backslash");
    std::string dims = "(";
    for (int i = 0; i < 100001; ++i) dims += "1, ";
    auto many = parseNpy(
        bytesOf(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': " + dims + "), }", floats({1}), 2)));
    ASSERT_FALSE(many);
    EXPECT_NE(many.error().message.find("more than 64 dimensions"), std::string::npos) << many.error().message;
    EXPECT_LT(many.error().message.size(), 400u);
    // A hostile descr is quoted short and escaped.
    auto hostile =
        parseNpy(bytesOf(npyFile("{'descr': '\xff\x1b[2J', 'fortran_order': False, 'shape': (1,), }", floats({1}))));
    ASSERT_FALSE(hostile);
    EXPECT_EQ(hostile.error().message.find('\x1b'), std::string::npos) << hostile.error().message;
    // Over the budget: the advice is --max-memory, not streaming an export.
    auto big = parseNpy(
        bytesOf(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", floats({1, 2, 3, 4}))), 8);
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message.find("--max-memory"), std::string::npos);
    EXPECT_EQ(big.error().message.find("alibi bias"), std::string::npos) << big.error().message;
}

TEST(NpyImportTest, MalformedFilesAreRefusedClearly) {
    const std::string good = npyFile(kGoodDict, floats({1, 2, 3, 4}));
    expectNpyError("", ErrorCode::BadInput, "magic");
    expectNpyError("PK\x03\x04 this is a zip", ErrorCode::BadInput, "magic");
    expectNpyError(good.substr(0, 8), ErrorCode::BadInput, "truncated");
    // Truncated data, and extra data.
    expectNpyError(good.substr(0, good.size() - 1), ErrorCode::BadInput, "holds 15 bytes of data");
    expectNpyError(good + "xxxx", ErrorCode::BadInput, "too long");
    // The header length points beyond the file, or into the middle of the dict.
    std::string longLength = good;
    longLength[8] = '\xff';
    longLength[9] = '\x7f';
    expectNpyError(longLength, ErrorCode::BadInput, "beyond the end of the file");
    std::string shortLength = good;
    shortLength[8] = 20;
    shortLength[9] = 0;
    expectNpyError(shortLength, ErrorCode::BadInput, ".npy header");
    // Versions.
    std::string version = good;
    version[6] = 9;
    expectNpyError(version, ErrorCode::BadInput, "version 9.0");
    // Dict contents.
    expectNpyError(npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')),
                   ErrorCode::BadInput, "'<i8' is not supported");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", floats({1, 2, 3, 4})),
                   ErrorCode::BadInput, "Fortran");
    expectNpyError(npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", floats({1, 2})),
                   ErrorCode::BadInput, "structured");
    expectNpyError(npyFile("{'descr': '<f4', 'shape': (2,), }", floats({1, 2})), ErrorCode::BadInput,
                   "'fortran_order' key is missing");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", ""), ErrorCode::BadInput,
                   "negative");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': 7, }", ""), ErrorCode::BadInput,
                   "'shape' must be a tuple");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", floats({1, 2})),
                   ErrorCode::BadInput, "unexpected key 'x'");
    expectNpyError(npyFile("not a dict at all", ""), ErrorCode::BadInput, "not a Python dict");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", ""), ErrorCode::BadInput,
                   ".npy header");
    // Huge declared sizes are refused before any allocation.
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000), }", ""),
                   ErrorCode::TooLarge, "budget");
    expectNpyError(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", ""),
                   ErrorCode::TooLarge, "more elements than can be addressed");
    expectNpyError(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
                   ErrorCode::BadInput, "64 bits");
}

TEST(NpyImportTest, BudgetIsAppliedToTheDeclaredSize) {
    const std::string file = npyFile(kGoodDict, floats({1, 2, 3, 4}));
    auto r = parseNpy(bytesOf(file), 15);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::TooLarge);
    EXPECT_TRUE(parseNpy(bytesOf(file), 16));
}

TEST(NpyImportTest, EveryTruncationIsAnErrorNotACrash) {
    const std::string good = npyFile(kGoodDict, floats({1, 2, 3, 4}));
    for (std::size_t n = 0; n < good.size(); ++n) {
        auto r = parseNpy(bytesOf(good.substr(0, n)));
        EXPECT_FALSE(r) << "prefix of " << n << " bytes was accepted";
        if (!r) {
            EXPECT_EQ(r.error().code, ErrorCode::BadInput) << n << ": " << r.error().message;
        }
    }
}

// ---------------------------------------------------------------------------
// Import: malformed .safetensors

namespace {

void expectStError(const std::string& file, ErrorCode code, const std::string& needle, const std::string& name = {}) {
    auto r = parseSafetensors(bytesOf(file), name);
    ASSERT_FALSE(r) << "accepted a file that should fail with: " << needle;
    EXPECT_EQ(r.error().code, code) << r.error().message;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

std::string entry(const std::string& dtype, const std::string& shape, std::uint64_t b, std::uint64_t e) {
    return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + std::to_string(b) + "," +
           std::to_string(e) + "]}";
}

}  // namespace

TEST(SafetensorsImportTest, SelectsTheRightTensor) {
    const std::string two = safetensorsFile("{\"__metadata__\":{\"k\":\"v\"},\"x\":" + entry("F32", "[2]", 0, 8) +
                                                ",\"bias\":" + entry("F16", "[1]", 8, 10) + "}",
                                            floats({1, 2}) + le16(0x3c00));
    auto byDefault = parseSafetensors(bytesOf(two));
    ASSERT_TRUE(byDefault) << byDefault.error().message;
    EXPECT_EQ(byDefault->name, "bias");
    EXPECT_EQ(byDefault->tensor.at(0), 1.0);
    EXPECT_EQ(byDefault->tensor.metadata.at("k"), "v");
    auto byName = parseSafetensors(bytesOf(two), "x");
    ASSERT_TRUE(byName);
    EXPECT_EQ(byName->tensor.at(1), 2.0);
    expectStError(two, ErrorCode::InvalidArgument, "'bias', 'x'", "nope");

    const std::string ambiguous = safetensorsFile(
        "{\"a\":" + entry("F32", "[1]", 0, 4) + ",\"b\":" + entry("F32", "[1]", 4, 8) + "}", floats({1, 2}));
    expectStError(ambiguous, ErrorCode::InvalidArgument, "--tensor NAME): 'a', 'b'");
    auto a = parseSafetensors(bytesOf(ambiguous), "b");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->tensor.at(0), 2.0);

    // JSON allows an empty key: the only tensor is still found.
    auto unnamed = parseSafetensors(bytesOf(safetensorsFile("{\"\":" + entry("F32", "[]", 0, 4) + "}", floats({7}))));
    ASSERT_TRUE(unnamed) << unnamed.error().message;
    EXPECT_EQ(unnamed->name, "");
    EXPECT_EQ(unnamed->tensor.at(0), 7.0);
}

TEST(SafetensorsImportTest, MalformedFilesAreRefusedClearly) {
    const std::string json = "{\"bias\":" + entry("F32", "[2,2]", 0, 16) + "}";
    const std::string good = safetensorsFile(json, floats({1, 2, 3, 4}));
    ASSERT_TRUE(parseSafetensors(bytesOf(good)));

    expectStError("", ErrorCode::BadInput, "shorter than the 8-byte header length");
    expectStError(good.substr(0, good.size() - 1), ErrorCode::BadInput, "outside the 15 bytes of data");
    expectStError(le64(1000) + json, ErrorCode::BadInput, "beyond the end of the file");
    std::string hugeHeader = le64(std::uint64_t{101} << 20);
    hugeHeader.resize(hugeHeader.size() + (std::size_t{101} << 20), ' ');
    expectStError(hugeHeader, ErrorCode::TooLarge, "100,000,000-byte limit");
    hugeHeader = {};
    expectStError(safetensorsFile("[1, 2]", ""), ErrorCode::BadInput, "does not start with '{'");
    expectStError(safetensorsFile("{\"bias\": {", ""), ErrorCode::BadInput, "invalid JSON");
    expectStError(safetensorsFile(std::string(5000, '{'), ""), ErrorCode::BadInput, "nested");
    expectStError(safetensorsFile("{}", ""), ErrorCode::BadInput, "no tensor");
    expectStError(safetensorsFile("{\"bias\":{\"shape\":[1],\"data_offsets\":[0,4]}}", floats({1})),
                  ErrorCode::BadInput, "'bias' has no \"dtype\"");
    expectStError(safetensorsFile("{\"bias\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", floats({1})),
                  ErrorCode::BadInput, "no \"shape\"");
    expectStError(safetensorsFile("{\"bias\":{\"dtype\":\"F32\",\"shape\":[1]}}", floats({1})), ErrorCode::BadInput,
                  "data_offsets");
    expectStError(safetensorsFile("{\"bias\":" + entry("I64", "[1]", 0, 8) + "}", le64(7)), ErrorCode::BadInput,
                  "dtype \"I64\", which is not supported");
    expectStError(safetensorsFile("{\"bias\":" + entry("Q4", "[1]", 0, 8) + "}", le64(7)), ErrorCode::BadInput,
                  "\"Q4\"");
    expectStError(safetensorsFile("{\"bias\":" + entry("F32", "[2,2]", 0, 12) + "}", floats({1, 2, 3})),
                  ErrorCode::BadInput, "span 12 bytes, but shape (2, 2) F32 needs 16");
    expectStError(safetensorsFile("{\"bias\":" + entry("F32", "[1]", 4, 0) + "}", floats({1})), ErrorCode::BadInput,
                  "end before they begin");
    expectStError(safetensorsFile("{\"bias\":" + entry("F32", "[-1]", 0, 4) + "}", floats({1})), ErrorCode::BadInput,
                  "negative dimension");
    expectStError(safetensorsFile("{\"bias\":" + entry("F32", "[1.5]", 0, 4) + "}", floats({1})), ErrorCode::BadInput,
                  "non-negative integers");
    expectStError(
        safetensorsFile("{\"a\":" + entry("F32", "[2]", 0, 8) + ",\"bias\":" + entry("F32", "[1]", 4, 8) + "}",
                        floats({1, 2})),
        ErrorCode::BadInput, "overlap");
    expectStError(
        safetensorsFile("{\"__metadata__\":{\"n\":3},\"bias\":" + entry("F32", "[1]", 0, 4) + "}", floats({1})),
        ErrorCode::BadInput, "'n' is number, not a string");
    expectStError(
        safetensorsFile("{\"bias\":" + entry("F32", "[1000000000,1000000000,1000000000]", 0, 4) + "}", floats({1})),
        ErrorCode::TooLarge, "more elements than can be addressed");
    // A consistent but large declared size is refused by the budget, before allocation.
    auto r = parseSafetensors(bytesOf(good), {}, 15);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::TooLarge);
}

TEST(SafetensorsImportTest, TensorsMustTileTheDataAreaExactly) {
    // As the reference implementation: sorted by offset, each starts where the previous ended.
    const std::string two = "{\"a\":" + entry("F32", "[1]", 0, 4) + ",\"b\":" + entry("F32", "[1]", 4, 8) + "}";
    ASSERT_TRUE(parseSafetensors(bytesOf(safetensorsFile(two, floats({1, 2}))), "a"));
    // Listed out of order in the JSON: still a tiling.
    const std::string swapped = "{\"b\":" + entry("F32", "[1]", 4, 8) + ",\"a\":" + entry("F32", "[1]", 0, 4) + "}";
    ASSERT_TRUE(parseSafetensors(bytesOf(safetensorsFile(swapped, floats({1, 2}))), "b"));
    // A trailing byte, a gap, data not starting at 0.
    expectStError(safetensorsFile(two, floats({1, 2}) + "x"), ErrorCode::BadInput, "1 bytes follow the last tensor",
                  "a");
    const std::string gap = "{\"a\":" + entry("F32", "[1]", 0, 4) + ",\"b\":" + entry("F32", "[1]", 8, 12) + "}";
    expectStError(safetensorsFile(gap, floats({1, 2, 3})), ErrorCode::BadInput,
                  "4 unexplained bytes lie before tensor 'b'", "a");
    const std::string late = "{\"a\":" + entry("F32", "[1]", 4, 8) + "}";
    expectStError(safetensorsFile(late, floats({1, 2})), ErrorCode::BadInput,
                  "4 unexplained bytes lie before tensor 'a'");
    // The header length lowered by one: the data shifts by a byte, a trailing byte appears.
    const std::string json = "{\"bias\":" + entry("F32", "[2]", 0, 8) + "}  ";
    std::string shifted = safetensorsFile(json, floats({1, 2}));
    shifted[0] = static_cast<char>(shifted[0] - 1);
    expectStError(shifted, ErrorCode::BadInput, "follow the last tensor");
    // Zero-sized tensors tile at any offset inside the area.
    const std::string empty = "{\"a\":" + entry("F32", "[0]", 0, 0) + ",\"b\":" + entry("F32", "[1]", 0, 4) + "}";
    ASSERT_TRUE(parseSafetensors(bytesOf(safetensorsFile(empty, floats({5}))), "b"));
}

TEST(SafetensorsImportTest, LimitsAndExcerpts) {
    // Every dtype of the specification is known (a sub-byte one needs whole bytes), others are not.
    const std::string f4 = "{\"bias\":" + entry("F32", "[1]", 0, 4) + ",\"q\":" + entry("F4", "[4]", 4, 6) + "}";
    ASSERT_TRUE(parseSafetensors(bytesOf(safetensorsFile(f4, floats({1}) + "zz")), "bias"));
    const std::string odd = "{\"bias\":" + entry("F32", "[1]", 0, 4) + ",\"q\":" + entry("F4", "[3]", 4, 6) + "}";
    expectStError(safetensorsFile(odd, floats({1}) + "zz"), ErrorCode::BadInput, "whole number of bytes", "bias");
    expectStError(safetensorsFile("{\"bias\":" + entry("F32X", "[1]", 0, 4) + "}", floats({1})), ErrorCode::BadInput,
                  "does not define");
    // 65 dimensions of 1.
    std::string dims = "[1";
    for (int i = 0; i < 64; ++i) dims += ",1";
    expectStError(safetensorsFile("{\"bias\":" + entry("F32", dims + "]", 0, 4) + "}", floats({1})),
                  ErrorCode::BadInput, "65 dimensions");
    // A hostile tensor name is quoted short and escaped.
    const std::string name = "\\u001b[2J" + std::string(10000, 'n');  // JSON for ESC [2J nnn...
    const std::string file = safetensorsFile("{\"" + name + "\":" + entry("F32", "[1]", 0, 4) + "}", floats({1}));
    auto r = parseSafetensors(bytesOf(file), "other");
    ASSERT_FALSE(r);
    EXPECT_LT(r.error().message.size(), 400u) << r.error().message;
    EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos);
    EXPECT_NE(r.error().message.find("\\x1b[2J"), std::string::npos) << r.error().message;
    // Bytes that are not UTF-8 make the JSON invalid (as in the reference); the parser's own
    // message is cut and escaped too.
    auto bad = parseSafetensors(bytesOf(safetensorsFile("{\"\xff" + std::string(10000, 'n') + "\":1}", "")));
    ASSERT_FALSE(bad);
    EXPECT_LT(bad.error().message.size(), 400u) << bad.error().message;
    EXPECT_EQ(bad.error().message.find('\xff'), std::string::npos);
}

TEST(SafetensorsImportTest, EveryTruncationIsAnErrorNotACrash) {
    const std::string good = safetensorsFile("{\"bias\":" + entry("F32", "[2,2]", 0, 16) + "}", floats({1, 2, 3, 4}));
    for (std::size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(parseSafetensors(bytesOf(good.substr(0, n)))) << n;
}

// ---------------------------------------------------------------------------
// loadTensor

TEST_F(TensorIoTest, LoadTensorRefusesNonRegularFilesWithoutOpeningThem) {
    const std::string fifo = path("f.npy");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto r = loadTensor(fifo);  // opening it for reading would wait for a writer forever
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(r.error().message.find("FIFO"), std::string::npos) << r.error().message;
    auto dev = loadTensor("/dev/zero");
    ASSERT_FALSE(dev);
    EXPECT_EQ(dev.error().code, ErrorCode::InvalidArgument);
    auto folder = loadTensor(m_dir.string());
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, ErrorCode::InvalidArgument);
}

TEST_F(TensorIoTest, LoadTensorDispatchesAndNamesTheFile) {
    const Tensor t = makeTensor({2}, DType::F32, {1, 2});
    ASSERT_TRUE(exportTo(t, path("a.npy"), FileFormat::Npy));
    fs::rename(path("a.npy"), path("a-without-extension"));
    auto byMagic = loadTensor(path("a-without-extension"));
    ASSERT_TRUE(byMagic) << byMagic.error().message;
    EXPECT_EQ(byMagic->tensor.at(1), 2.0);

    ASSERT_TRUE(exportTo(t, path("b.safetensors"), FileFormat::Safetensors));
    fs::rename(path("b.safetensors"), path("b.weights"));
    auto byGuess = loadTensor(path("b.weights"));
    ASSERT_TRUE(byGuess) << byGuess.error().message;
    EXPECT_EQ(byGuess->tensor.at(0), 1.0);
    auto byName = loadTensor(path("b.weights"), "bias");
    ASSERT_TRUE(byName) << byName.error().message;
    auto wrongName = loadTensor(path("b.weights"), "mask");
    ASSERT_FALSE(wrongName);
    EXPECT_NE(wrongName.error().message.find("no tensor named 'mask'; it holds 'bias'"), std::string::npos)
        << wrongName.error().message;

    auto missing = loadTensor(path("missing.npy"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::Io);
    EXPECT_NE(missing.error().message.find(path("missing.npy")), std::string::npos);

    auto folder = loadTensor(m_dir.string());
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, ErrorCode::InvalidArgument);

    spit(path("notes.txt"), "just some text");
    auto text = loadTensor(path("notes.txt"));
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().code, ErrorCode::BadInput);
    EXPECT_NE(text.error().message.find(path("notes.txt")), std::string::npos);

    spit(path("bad.npy"), npyFile(kGoodDict, floats({1})));
    auto bad = loadTensor(path("bad.npy"));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ErrorCode::BadInput);
    EXPECT_EQ(bad.error().message.rfind("cannot load " + path("bad.npy") + ": ", 0), 0u) << bad.error().message;
    EXPECT_NE(bad.error().message.find("truncated"), std::string::npos) << bad.error().message;

    // The budget is checked against the header before the data is read.
    spit(path("huge.npy"), npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000000,), }", ""));
    auto huge = loadTensor(path("huge.npy"));
    ASSERT_FALSE(huge);
    EXPECT_EQ(huge.error().code, ErrorCode::TooLarge);
    EXPECT_NE(huge.error().message.find("(1000000000000000,)"), std::string::npos) << huge.error().message;
}

// ---------------------------------------------------------------------------
// NumPy reads what we write (skipped when /usr/bin/python3 has no NumPy)

TEST_F(TensorIoTest, NumPyReadsEveryTextAndBinaryExport) {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
    if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) GTEST_SKIP() << "no NumPy";
    BiasParams p;
    p.slopes.heads = 3;
    p.slopes.scheme = SlopeScheme::Geometric;
    p.queries = 5;
    p.keys = 7;
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
        p.dtype = dtype;
        p.mask.kind = MaskValue::Kind::Lowest;
        auto bias = buildBias(p);
        ASSERT_TRUE(bias);
        for (auto f : {FileFormat::Npy, FileFormat::Csv, FileFormat::Json, FileFormat::Raw})
            ASSERT_TRUE(exportTo(*bias, path(std::string("b.") + std::string(formatName(f))), f));
        const std::string script = path("check.py");
        spit(script,
             "import json, sys, numpy as np\n"
             "d = sys.argv[1]\n"
             "a = np.load(d + '/b.npy')\n"
             "assert a.shape == (3, 5, 7), a.shape\n"
             "raw = np.fromfile(d + '/b.raw', dtype=a.dtype).reshape(a.shape)\n"
             "assert a.tobytes() == raw.tobytes()\n"
             "if a.dtype == np.uint16:\n"
             "    a = (a.astype(np.uint32) << 16).view(np.float32)\n"  // bf16 bits -> float32
             "x = a.astype(np.float64)\n"
             "c = np.loadtxt(d + '/b.csv', delimiter=',', skiprows=1)[:, 2:].reshape(3, 5, 7)\n"
             "assert np.array_equal(c, x) and np.array_equal(np.signbit(c), np.signbit(x))\n"
             "j = np.array(json.load(open(d + '/b.json'))['data'], dtype=np.float64)\n"
             "assert np.array_equal(j, x) and np.array_equal(np.signbit(j), np.signbit(x))\n"
             "print('ok')\n");
        EXPECT_EQ(std::system(("/usr/bin/python3 " + script + " " + m_dir.string()).c_str()), 0) << dtypeName(dtype);
    }
}
