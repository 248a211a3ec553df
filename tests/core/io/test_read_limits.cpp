// Issue 16: the limits every reader checks before work and the one set of parameter limits.
// Sessions nested 100,000 levels deep (which crashed the serializer), values echoed whole in
// messages, and parameters (a temperature of 1e-320) that gave probability rows summing to 0.
#include <alibi/io/session.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/params.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace alibi;

namespace {

std::string nested(const std::string& open, const std::string& close, int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += open;
    for (int i = 0; i < depth; ++i) s += close;
    return s;
}

}  // namespace

TEST(SessionLimits, DeepNestingIsRefusedBeforeParsing) {
    for (const int depth : {100000, 50000, 65}) {
        auto s = parseSession("{\"version\":1,\"bias\":{\"heads\":" + nested("[", "]", depth) + "}}");
        ASSERT_FALSE(s) << depth;
        EXPECT_EQ(s.error().code, ErrorCode::BadInput);
        EXPECT_NE(s.error().message.find("nested"), std::string::npos) << s.error().message;
    }
    auto top = parseSession(nested("[", "]", 100000));
    ASSERT_FALSE(top);
    EXPECT_NE(top.error().message.find("nested"), std::string::npos);
    auto objects = parseSession(nested("{\"a\":", "}", 100000));
    ASSERT_FALSE(objects);
    // Brackets inside strings do not count.
    auto quoted = parseSession("{\"version\":1,\"bias\":{\"scheme\":\"" + std::string(100000, '[') + "\"}}");
    ASSERT_FALSE(quoted);
    EXPECT_EQ(quoted.error().message.find("nested"), std::string::npos) << quoted.error().message;
}

TEST(SessionLimits, BadValuesAreQuotedAsShortEscapedExcerpts) {
    const auto expectShort = [](const std::string& json, const std::string& field) {
        auto s = parseSession(json);
        ASSERT_FALSE(s);
        EXPECT_LT(s.error().message.size(), 400u) << s.error().message.substr(0, 400);
        EXPECT_NE(s.error().message.find(field), std::string::npos) << s.error().message;
        for (const char c : s.error().message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << s.error().message;
    };
    expectShort("{\"version\":1,\"bias\":{\"scheme\":\"" + std::string(16 << 20, 'x') + "\"}}", "bias.scheme");
    expectShort("{\"version\":1,\"bias\":{\"scheme\":\"\xff\xfe\x1b[31m\"}}", "");
    std::string list = "[1";
    for (int i = 0; i < 100000; ++i) list += ",1";
    expectShort("{\"version\":1,\"bias\":{\"heads\":" + list + "]}}", "bias.heads");
    expectShort("{\"version\":1,\"bias\":{\"" + std::string(100000, 'k') + "\":1}}", "unknown field");
    expectShort("{\"version\":1,\"bias\":{\"scheme\":\"" + std::string(100000, 'x'), "");  // unterminated
}

TEST(ParameterLimits, TemperatureIsBoundedTheSameEverywhere) {
    AttentionParams p;
    for (const double t : {1e-320, 5e-324, 0.0, -1.0, 1e300, std::nan("")}) {
        p.content.temperature = t;
        auto ok = checkParameterLimits(p);
        ASSERT_FALSE(ok) << t;
        EXPECT_NE(ok.error().message.find("--temperature"), std::string::npos);
        EXPECT_NE(ok.error().message.find("attention.temperature"), std::string::npos);
        EXPECT_FALSE(validateAttention(p)) << t;
        // A session refuses the same values.
        auto s = parseSession("{\"version\":1,\"attention\":{\"temperature\":" +
                              (std::isnan(t) ? std::string("\"nan\"") : std::to_string(t)) + "}}");
        if (t != 0 && t > 0 && t < 1e-300) {
            // std::to_string prints tiny numbers as 0.000000: spell them out.
            s = parseSession(t == 1e-320 ? "{\"version\":1,\"attention\":{\"temperature\":1e-320}}"
                                         : "{\"version\":1,\"attention\":{\"temperature\":5e-324}}");
        }
        EXPECT_FALSE(s) << t;
    }
    for (const double t : {kTemperatureRange.min, 1.0, kTemperatureRange.max}) {
        p.content.temperature = t;
        EXPECT_TRUE(checkParameterLimits(p)) << t;
        auto s = parseSession("{\"version\":1,\"attention\":{\"temperature\":" + std::to_string(t) + "}}");
        if (t == kTemperatureRange.min) s = parseSession("{\"version\":1,\"attention\":{\"temperature\":1e-6}}");
        EXPECT_TRUE(s) << t;
    }
}

TEST(ParameterLimits, SigmaAndSlopesAreBounded) {
    AttentionParams p;
    p.content.sigma = 1e300;
    EXPECT_FALSE(validateAttention(p));
    p.content.sigma = kSigmaRange.max;
    EXPECT_TRUE(validateAttention(p));
    p.bias.slopes.scheme = SlopeScheme::Custom;
    p.bias.slopes.heads = 2;
    p.bias.slopes.custom = {1e300, 1};
    EXPECT_FALSE(validateAttention(p));
    EXPECT_FALSE(parseSession("{\"version\":1,\"bias\":{\"slopes\":[1e300,1]}}"));
    p.bias.slopes.custom = {kSlopeRange.max, 1};
    EXPECT_TRUE(validateAttention(p));
}

TEST(ParameterLimits, ExtremesWithinTheLimitsGiveProbabilityRows) {
    // The corner the limits are chosen for: the largest content, the steepest slopes, the
    // smallest temperature. Every row is finite and sums to 1.
    for (const BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric}) {
        AttentionParams p;
        p.bias.slopes.scheme = SlopeScheme::Custom;
        p.bias.slopes.heads = 2;
        p.bias.slopes.custom = {kSlopeRange.max, 1e-300};
        p.bias.queries = 16;
        p.bias.mode = mode;
        p.content.kind = ContentKind::Qk;
        p.content.sigma = kSigmaRange.max;
        p.content.temperature = kTemperatureRange.min;
        auto a = computeAttention(p);
        ASSERT_TRUE(a) << a.error().message;
        for (std::int64_t h = 0; h < 2; ++h)
            for (std::int64_t i = 0; i < 16; ++i) {
                double sum = 0;
                for (std::int64_t j = 0; j < 16; ++j) {
                    const double v = a->at(static_cast<std::uint64_t>((h * 16 + i) * 16 + j));
                    ASSERT_TRUE(std::isfinite(v));
                    sum += v;
                }
                EXPECT_NEAR(sum, 1.0, 1e-5) << "head " << h << " row " << i;
            }
    }
}
