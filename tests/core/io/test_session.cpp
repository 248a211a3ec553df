// Tests for <alibi/session.hpp>: round trips, defaults for missing fields, an error naming the
// field for every kind of bad input, the example sessions in assets/sessions, and the CLI line.
#include <alibi/io/session.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

using namespace alibi;

namespace {

// Parses and expects an error whose message contains every fragment.
void expectError(const std::string& json, std::initializer_list<const char*> fragments) {
    auto s = parseSession(json);
    ASSERT_FALSE(s) << "accepted: " << json;
    for (const char* f : fragments)
        EXPECT_NE(s.error().message.find(f), std::string::npos) << s.error().message << "\n  wanted: " << f;
}

Session everyFieldChanged() {
    Session s = defaultSession();
    auto& b = s.attention.bias;
    b.slopes.heads = 3;
    b.slopes.scheme = SlopeScheme::Custom;
    b.slopes.custom = {0.5, 0.1, 1.0 / 3.0};
    b.slopes.maxBias = 6.5;
    b.queries = 5;
    b.keys = 9;
    b.mode = BiasMode::Mpt;
    b.mask = {MaskValue::Kind::Finite, -12345.678};
    b.layout = Layout::Qkh;
    b.dtype = DType::BF16;
    auto& c = s.attention.content;
    c.kind = ContentKind::Qk;
    c.seed = std::numeric_limits<std::uint64_t>::max();
    c.sigma = 0.25;
    c.dk = 80;
    c.temperature = 0.7;
    s.queryRow = 2;
    s.what = RenderWhat::Attention;
    s.head = 1;
    s.colormap = Colormap::Cividis;
    s.scale = ScaleMode::PerHead;
    s.width = 640;
    s.height = 480;
    s.trainLength = 4;
    s.maxMemory = 123456789;
    s.view = ExplorerView::Compare;
    s.compare =
        CompareOverrides{SlopeScheme::Custom,  3.5, DType::F16, BiasMode::Bloom, MaskValue{MaskValue::Kind::Lowest, 0},
                         {0.25, 0.125, 0.0625}};
    return s;
}

std::string tempPath(const char* name) {
    return (std::filesystem::temp_directory_path() / (std::string("alibi_test_session_") + name)).string();
}

}  // namespace

TEST(Session, DefaultsAreTheDocumentedOnes) {
    const Session s = defaultSession();
    const auto& b = s.attention.bias;
    EXPECT_EQ(b.slopes.heads, 8);
    EXPECT_EQ(b.queries, 16);
    EXPECT_EQ(b.keyCount(), 16);
    EXPECT_EQ(b.mode, BiasMode::Causal);
    EXPECT_EQ(b.slopes.scheme, SlopeScheme::Press);
    EXPECT_EQ(b.slopes.maxBias, 8);
    EXPECT_EQ(maskName(b.mask), "-1e9");
    EXPECT_EQ(b.dtype, DType::F32);
    EXPECT_EQ(b.layout, Layout::Hqk);
    EXPECT_EQ(s.attention.content.kind, ContentKind::Zero);
    EXPECT_EQ(s.colormap, Colormap::Viridis);
    EXPECT_EQ(s.scale, ScaleMode::Shared);
    EXPECT_EQ(s.maxMemory, std::uint64_t{2} << 30);
}

TEST(Session, RoundTripDefaultAndEveryField) {
    for (const Session& s : {defaultSession(), everyFieldChanged()}) {
        const std::string text = serializeSession(s);
        auto back = parseSession(text);
        ASSERT_TRUE(back) << back.error().message << "\n" << text;
        EXPECT_TRUE(*back == s) << text;
        EXPECT_EQ(serializeSession(*back), text);
    }
    EXPECT_FALSE(defaultSession() == everyFieldChanged());
}

TEST(Session, SerializationWritesEveryFieldPretty) {
    const std::string text = serializeSession(defaultSession());
    for (const char* key : {"\"version\": 1",
                            "\"heads\": 8",
                            "\"queries\": 16",
                            "\"keys\": 0",
                            "\"scheme\": \"press\"",
                            "\"max_bias\": 8.0",
                            "\"slopes\": []",
                            "\"mode\": \"causal\"",
                            "\"mask\": \"-1e9\"",
                            "\"layout\": \"hqk\"",
                            "\"dtype\": \"f32\"",
                            "\"content\": \"zero\"",
                            "\"seed\": 0",
                            "\"sigma\": 1.0",
                            "\"dk\": 64",
                            "\"temperature\": 1.0",
                            "\"query\": -1",
                            "\"what\": \"bias\"",
                            "\"head\": -1",
                            "\"colormap\": \"viridis\"",
                            "\"scale\": \"shared\"",
                            "\"width\": 1024",
                            "\"height\": 768",
                            "\"train_length\": 0",
                            "\"max_memory\": 2147483648"})
        EXPECT_NE(text.find(key), std::string::npos) << key << "\n" << text;
    EXPECT_EQ(text.rfind("{\n  \"version\": 1,\n  \"bias\": {\n    \"heads\": 8,", 0), 0U) << text;
}

TEST(Session, MissingFieldsKeepDefaults) {
    auto s = parseSession(R"({"version": 1})");
    ASSERT_TRUE(s) << s.error().message;
    Session old = defaultSession();
    old.attention.content.generator = kGeneratorLibm;  // see GeneratorRecipeOfOldSessions
    EXPECT_TRUE(*s == old);
    s = parseSession(R"({"version": 1, "bias": {"heads": 12, "mode": "bloom"}, "view": {"colormap": "magma"}})");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.bias.slopes.heads, 12);
    EXPECT_EQ(s->attention.bias.mode, BiasMode::Bloom);
    EXPECT_EQ(s->attention.bias.queries, 16);
    EXPECT_EQ(s->colormap, Colormap::Magma);
    EXPECT_EQ(s->width, 1024);
}

TEST(Session, GeneratorRecipeOfOldSessions) {
    // Sessions from before recipe 2 of the Gaussian generator have no `attention.generator`:
    // they keep recipe 1 (the C library's functions), so their content is what it was.
    auto s = parseSession(R"({"version": 1, "attention": {"content": "qk", "seed": 4}})");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.content.generator, kGeneratorLibm);
    EXPECT_EQ(defaultSession().attention.content.generator, kGeneratorPolynomial);
    const std::string text = serializeSession(defaultSession());
    EXPECT_NE(text.find("\"generator\": 2"), std::string::npos) << text;
    s = parseSession(text);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.content.generator, kGeneratorPolynomial);
    s = parseSession(serializeSession(*parseSession(R"({"version": 1})")));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.content.generator, kGeneratorLibm);  // saved again, still recipe 1
    expectError(R"({"version": 1, "attention": {"generator": 3}})", {"`attention.generator`"});
    expectError(R"({"version": 1, "attention": {"generator": "new"}})", {"`attention.generator`"});
}

TEST(Session, MaskAsNumberOrString) {
    auto s = parseSession(R"({"version": 1, "bias": {"mask": -10000}})");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.bias.mask.kind, MaskValue::Kind::Finite);
    EXPECT_EQ(s->attention.bias.mask.value, -10000);
    s = parseSession(R"({"version": 1, "bias": {"mask": "-10000"}})");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.bias.mask.value, -10000);
    s = parseSession(R"({"version": 1, "bias": {"mask": "-inf"}})");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.bias.mask.kind, MaskValue::Kind::NegInf);
    s = parseSession(R"({"version": 1, "bias": {"mask": "min"}})");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.bias.mask.kind, MaskValue::Kind::Lowest);
    s = parseSession(R"({"version": 1, "bias": {"mask": -1e9}})");
    ASSERT_TRUE(s);
    EXPECT_EQ(maskName(s->attention.bias.mask), "-1e9");
    expectError(R"({"version": 1, "bias": {"mask": "lots"}})", {"`bias.mask`", "'lots'", "-inf"});
    expectError(R"({"version": 1, "bias": {"mask": true}})", {"`bias.mask`", "true"});
}

TEST(Session, SlopesImplyCustomAndHeads) {
    auto s = parseSession(R"({"version": 1, "bias": {"slopes": [0.5, 0.25, 0.125]}})");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->attention.bias.slopes.scheme, SlopeScheme::Custom);
    EXPECT_EQ(s->attention.bias.slopes.heads, 3);
    EXPECT_EQ(s->attention.bias.slopes.custom, (std::vector<double>{0.5, 0.25, 0.125}));
    expectError(R"({"version": 1, "bias": {"scheme": "press", "slopes": [0.5]}})", {"`bias.slopes`", "custom"});
    expectError(R"({"version": 1, "bias": {"slopes": [0.5, -1]}})", {"`bias.slopes[1]`", "positive"});
    expectError(R"({"version": 1, "bias": {"scheme": "custom"}})", {"`bias.slopes`"});
    expectError(R"({"version": 1, "bias": {"heads": 4, "slopes": [0.5, 0.25]}})",
                {"`bias.slopes`", "2 slope(s)", "`bias.heads` is 4"});
}

// A custom list kept while another scheme is chosen must still be a list of positive finite
// slopes: a NaN in a session makes it unequal to itself (the ImGui storm's endless recompute).
TEST(Session, AKeptCustomListIsCheckedUnderEveryScheme) {
    Session s;
    s.attention.bias.slopes.heads = 2;
    ASSERT_EQ(s.attention.bias.slopes.scheme, SlopeScheme::Press);
    s.attention.bias.slopes.custom = {0.5, 0.25};
    EXPECT_TRUE(validateSession(s));
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -1.0, 0.0}) {
        s.attention.bias.slopes.custom = {0.5, bad};
        auto ok = validateSession(s);
        ASSERT_FALSE(ok) << bad;
        EXPECT_EQ(ok.error().field, Field::Slopes) << ok.error().message;
        EXPECT_NE(ok.error().message.find("slope 2 (head 1)"), std::string::npos) << ok.error().message;
    }
    s.attention.bias.slopes.custom = {0.5, 0.25};
    s.compare = CompareOverrides{};
    s.compare->custom = {std::numeric_limits<double>::quiet_NaN(), 0.25};
    auto ok = validateSession(s);
    ASSERT_FALSE(ok);
    EXPECT_NE(ok.error().message.find("compare"), std::string::npos) << ok.error().message;
}

TEST(Session, EveryErrorNamesItsField) {
    expectError(R"({"version": 1, "bias": {"mode": "foo"}})",
                {"session field `bias.mode`: unknown mode 'foo' (expected causal, symmetric, clamped, bloom, mpt)"});
    expectError(R"({"version": 1, "bias": {"heads": -3}})",
                {"session field `bias.heads`: expected an integer from 1 to 4096, got -3"});
    expectError(R"({"version": 1, "bias": {"heads": 1e9}})", {"`bias.heads`", "integer"});
    expectError(R"({"version": 1, "bias": {"heads": 8.0}})", {"`bias.heads`", "integer"});
    expectError(R"({"version": 1, "bias": {"heads": "8"}})", {"`bias.heads`", "\"8\""});
    expectError(R"({"version": 1, "bias": {"hedas": 8}})", {"session: unknown field `bias.hedas`"});
    expectError(R"({"version": 1, "colour": 8})", {"unknown field `colour`"});
    expectError(R"({"version": 1, "view": {"zoom": 2}})", {"unknown field `view.zoom`"});
    expectError(R"({"version": 1, "bias": {"queries": 0}})", {"`bias.queries`"});
    expectError(R"({"version": 1, "bias": {"keys": -1}})", {"`bias.keys`"});
    expectError(R"({"version": 1, "bias": {"scheme": "fancy"}})", {"`bias.scheme`", "'fancy'", "press"});
    expectError(R"({"version": 1, "bias": {"max_bias": -1}})", {"`bias.max_bias`"});
    expectError(R"({"version": 1, "bias": {"layout": "khq"}})", {"`bias.layout`", "hqk, qkh, 1hqk, flat"});
    expectError(R"({"version": 1, "bias": {"dtype": "f8"}})", {"`bias.dtype`", "f32"});
    expectError(R"({"version": 1, "bias": 3})", {"`bias`", "object"});
    expectError(R"({"version": 1, "attention": {"content": "noise"}})", {"`attention.content`", "gaussian"});
    expectError(R"({"version": 1, "attention": {"seed": -1}})", {"`attention.seed`"});
    expectError(R"({"version": 1, "attention": {"sigma": -1}})", {"`attention.sigma`"});
    expectError(R"({"version": 1, "attention": {"dk": 0}})", {"`attention.dk`"});
    expectError(R"({"version": 1, "attention": {"temperature": 0}})", {"`attention.temperature`"});
    expectError(R"({"version": 1, "attention": {"query": 16}})", {"`attention.query`"});
    expectError(R"({"version": 1, "view": {"what": "everything"}})", {"`view.what`", "attention"});
    expectError(R"({"version": 1, "view": {"head": 8}})", {"`view.head`", "0 to 7"});
    expectError(R"({"version": 1, "view": {"colormap": "jet"}})", {"`view.colormap`", "cividis"});
    expectError(R"({"version": 1, "view": {"scale": "log"}})", {"`view.scale`"});
    expectError(R"({"version": 1, "view": {"width": 0}})", {"`view.width`"});
    expectError(R"({"version": 1, "view": {"height": 100000}})", {"`view.height`"});
    expectError(R"({"version": 1, "view": {"train_length": -2}})", {"`view.train_length`"});
    expectError(R"({"version": 1, "max_memory": 0})", {"`max_memory`"});
}

TEST(Session, VersionAndNonJson) {
    expectError(R"({"version": 2})", {"version 2 is newer than this program supports (1)"});
    expectError(R"({"bias": {}})", {"missing field `version`"});
    expectError(R"({"version": "1"})", {"`version`"});
    expectError(R"({"version": 0})", {"`version`"});
    expectError(R"([1, 2])", {"not a session file"});
    expectError(R"({"version": 1, "bias": {"heads": })", {"not a session file: JSON parse error at byte 34"});
    expectError("", {"not a session file: JSON parse error"});
}

TEST(Session, SaveAndLoad) {
    const std::string path = tempPath("roundtrip.alibi.json");
    const Session s = everyFieldChanged();
    auto saved = saveSession(s, path);
    ASSERT_TRUE(saved) << saved.error().message;
    auto loaded = loadSession(path);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_TRUE(*loaded == s);
    std::remove(path.c_str());

    EXPECT_FALSE(loadSession(tempPath("does-not-exist.alibi.json")));

    // A bad file's error names the file and the field.
    const std::string bad = tempPath("bad.alibi.json");
    std::ofstream(bad) << R"({"version": 1, "bias": {"mode": "foo"}})";
    auto e = loadSession(bad);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find(bad), std::string::npos) << e.error().message;
    EXPECT_NE(e.error().message.find("`bias.mode`"), std::string::npos) << e.error().message;
    std::remove(bad.c_str());

    // Something far larger than any session is refused without being parsed.
    const std::string big = tempPath("big.alibi.json");
    {
        std::ofstream out(big, std::ios::binary);
        const std::string chunk(1 << 20, ' ');
        for (int k = 0; k < 17; ++k) out << chunk;
    }
    EXPECT_FALSE(loadSession(big));
    std::remove(big.c_str());

    // An invalid session is not written.
    Session invalid = defaultSession();
    invalid.head = 99;
    const std::string never = tempPath("never.alibi.json");
    EXPECT_FALSE(saveSession(invalid, never));
    EXPECT_FALSE(std::filesystem::exists(never));
}

TEST(Session, ExampleSessionsLoad) {
    const std::filesystem::path dir = std::filesystem::path(ALIBI_TEST_DATA_DIR) / ".." / ".." / "assets" / "sessions";
    struct Example {
        const char* file;
        int heads;
        BiasMode mode;
        DType dtype;
    };
    for (const Example& ex : {Example{"default.alibi.json", 8, BiasMode::Causal, DType::F32},
                              Example{"bloom-176b.alibi.json", 112, BiasMode::Bloom, DType::BF16},
                              Example{"mpt-7b.alibi.json", 32, BiasMode::Mpt, DType::BF16},
                              Example{"press-vs-geometric-12.alibi.json", 12, BiasMode::Causal, DType::F32},
                              Example{"fp16-mask-overflow.alibi.json", 8, BiasMode::Causal, DType::F16}}) {
        auto s = loadSession((dir / ex.file).string());
        ASSERT_TRUE(s) << ex.file << ": " << s.error().message;
        EXPECT_EQ(s->attention.bias.slopes.heads, ex.heads) << ex.file;
        EXPECT_EQ(s->attention.bias.mode, ex.mode) << ex.file;
        EXPECT_EQ(s->attention.bias.dtype, ex.dtype) << ex.file;
        EXPECT_EQ(s->attention.bias.slopes.maxBias, 8) << ex.file;
    }
    auto d = loadSession((dir / "default.alibi.json").string());
    ASSERT_TRUE(d);
    EXPECT_TRUE(*d == defaultSession());
}

TEST(Session, ViewFieldsRoundTripAndOldFilesPickAView) {
    // Written only when set, so files of older versions and of the CLI stay as they were.
    const std::string plain = serializeSession(defaultSession());
    EXPECT_EQ(plain.find("\"open\""), std::string::npos) << plain;
    EXPECT_EQ(plain.find("\"compare\""), std::string::npos) << plain;

    const std::string text = serializeSession(everyFieldChanged());
    EXPECT_NE(text.find("\"open\": \"compare\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"compare\": {\n    \"scheme\": \"custom\",\n    \"max_bias\": 3.5,\n    \"slopes\": [\n"),
              std::string::npos)
        << text;

    auto s = parseSession(R"({"version": 1, "view": {"what": "slopes"}})");
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->view);
    EXPECT_EQ(openView(*s), ExplorerView::Curves);
    s = parseSession(R"({"version": 1, "view": {"what": "attention", "open": "stages"}})");
    ASSERT_TRUE(s);
    EXPECT_EQ(openView(*s), ExplorerView::Stages);
    EXPECT_EQ(openView(defaultSession()), ExplorerView::Grid);
    for (const ExplorerView v :
         {ExplorerView::Grid, ExplorerView::Detail, ExplorerView::Curves, ExplorerView::Stages, ExplorerView::Compare,
          ExplorerView::Extrapolation, ExplorerView::Diagnose, ExplorerView::Stats})
        EXPECT_EQ(parseExplorerView(explorerViewName(v)), v);

    s = parseSession(R"({"version": 1, "compare": {"scheme": "geometric", "mask": "min"}})");
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->compare);
    EXPECT_EQ(s->compare->scheme, SlopeScheme::Geometric);
    EXPECT_FALSE(s->compare->dtype);
    const BiasParams b = applyOverrides(s->attention.bias, *s->compare);
    EXPECT_EQ(b.slopes.scheme, SlopeScheme::Geometric);
    EXPECT_EQ(b.mask.kind, MaskValue::Kind::Lowest);
    EXPECT_EQ(b.dtype, s->attention.bias.dtype);
}

TEST(Session, ViewFieldErrorsNameTheField) {
    expectError(R"({"version": 1, "view": {"open": "table"}})", {"`view.open`", "'table'", "grid, detail"});
    expectError(R"({"version": 1, "compare": {"scheme": "wild"}})", {"`compare.scheme`", "'wild'"});
    expectError(R"({"version": 1, "compare": {"scheme": "custom"}})", {"`compare.slopes`", "one per head"});
    expectError(R"({"version": 1, "compare": {"slopes": [0.5]}})", {"`compare.slopes`", "not custom"});
    expectError(R"({"version": 1, "compare": {"max_bias": -1}})", {"`compare.max_bias`"});
    expectError(R"({"version": 1, "compare": {"heads": 4}})", {"`compare.heads`", "known fields here"});
    expectError(R"({"version": 1, "compare": []})", {"`compare`", "expected an object"});
}

TEST(Session, CliCommand) {
    EXPECT_EQ(cliCommand(defaultSession(), "bias", "out.npy"), "alibi bias --heads 8 --seq 16 -o out.npy");
    Session s = defaultSession();
    auto& b = s.attention.bias;
    b.slopes.heads = 12;
    b.slopes.scheme = SlopeScheme::Geometric;
    b.slopes.maxBias = 16;
    b.keys = 32;
    b.mode = BiasMode::Bloom;
    b.mask = {MaskValue::Kind::NegInf, -std::numeric_limits<double>::infinity()};
    b.layout = Layout::Flat;
    b.dtype = DType::F16;
    EXPECT_EQ(cliCommand(s, "bias", "my file.npy"),
              "alibi bias --heads 12 --seq 16 --keys 32 --scheme geometric --max-bias 16 --mode bloom --mask -inf "
              "--layout flat --dtype f16 -o 'my file.npy'");
    EXPECT_EQ(cliCommand(s, "slopes", "-"),
              "alibi slopes --heads 12 --scheme geometric --max-bias 16 --dtype f16 -o -");

    Session c = defaultSession();
    c.attention.bias.slopes.heads = 2;
    c.attention.bias.slopes.scheme = SlopeScheme::Custom;
    c.attention.bias.slopes.custom = {0.5, 0.125};
    c.attention.bias.mask = {MaskValue::Kind::Finite, -10000};
    c.attention.content.kind = ContentKind::Gaussian;
    c.attention.content.seed = 7;
    c.attention.content.sigma = 2;
    c.attention.content.temperature = 0.5;
    c.queryRow = 3;
    EXPECT_EQ(
        cliCommand(c, "attention", "a.npy"),
        "alibi attention --heads 2 --seq 16 --slopes 0.5,0.125 --mask -10000 --content gaussian --seed 7 --sigma 2 "
        "--temperature 0.5 -o a.npy");
    EXPECT_EQ(cliCommand(c, "stats", "-"),
              "alibi stats --heads 2 --seq 16 --slopes 0.5,0.125 --mask -10000 --content gaussian --seed 7 --sigma 2 "
              "--temperature 0.5 --query 3 -o -");
    Session r = defaultSession();
    r.what = RenderWhat::Attention;
    r.head = 3;
    r.colormap = Colormap::Magma;
    r.width = 512;
    EXPECT_EQ(
        cliCommand(r, "render", "it's.png"),
        "alibi render --heads 8 --seq 16 --what attention --head 3 --colormap magma --width 512 -o 'it'\\''s.png'");
}

namespace {}  // namespace
