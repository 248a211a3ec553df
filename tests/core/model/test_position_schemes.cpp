// Tests for <alibi/model/position_schemes.hpp>: every scheme's values against an independent
// computation of its formula (explicit embedding vectors and rotation matrices, closed forms,
// T5 buckets worked out by hand from HF transformers' _relative_position_bucket, golden values
// computed with NumPy from the papers' formulas), and the curves' labels, order, attention
// normalisation and errors.
#include <alibi/model/position_schemes.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>
#include <vector>

using namespace alibi;

namespace {

// Vaswani et al.: PE(pos, 2k) = sin(pos / 10000^(2k/d)), PE(pos, 2k+1) = cos(pos / 10000^(2k/d)).
std::vector<double> sinusoidalEmbedding(double pos, int dim) {
    std::vector<double> p(static_cast<std::size_t>(dim));
    for (int k = 0; k < dim / 2; ++k) {
        const double angle = pos / std::pow(10000.0, 2.0 * k / dim);
        p[2 * static_cast<std::size_t>(k)] = std::sin(angle);
        p[2 * static_cast<std::size_t>(k) + 1] = std::cos(angle);
    }
    return p;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t n = 0; n < a.size(); ++n) s += a[n] * b[n];
    return s;
}

// trace(R(m)^T R(n)) for RoPE's block-diagonal rotations at positions m and n: E[q^T R(m)^T R(n) q]
// for q with i.i.d. unit-variance components, built from the 2 x 2 blocks themselves.
double ropeTrace(double m, double n, int dim) {
    double trace = 0;
    for (int k = 0; k < dim / 2; ++k) {
        const double theta = std::pow(10000.0, -2.0 * k / dim);
        const std::array<double, 4> a{std::cos(m * theta), -std::sin(m * theta), std::sin(m * theta),
                                      std::cos(m * theta)};
        const std::array<double, 4> b{std::cos(n * theta), -std::sin(n * theta), std::sin(n * theta),
                                      std::cos(n * theta)};
        // (A^T B)_00 + (A^T B)_11
        trace += a[0] * b[0] + a[2] * b[2] + a[1] * b[1] + a[3] * b[3];
    }
    return trace;
}

const PositionCurve* find(const PositionSchemes& s, const std::string& name) {
    for (const PositionCurve& c : s.curves)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace

// Worked by hand from T5Attention._relative_position_bucket (num_buckets 32, max_distance 128):
// decoder: max_exact 16, bucket = 16 + trunc(ln(n/16) / ln(8) * 16) for n >= 16, at most 31;
// encoder: 16 buckets per side, max_exact 8, bucket = 8 + trunc(ln(n/8) / ln(16) * 8), at most 15,
// keys ahead (relative position > 0) in 16 + that.
TEST(T5Bucket, DecoderMatchesHandComputedBuckets) {
    const std::vector<std::pair<std::int64_t, int>> expected{{0, 0},   {1, 1},    {15, 15},  {16, 16},
                                                             {17, 16}, {100, 30}, {128, 31}, {1000, 31}};
    for (const auto& [d, bucket] : expected) EXPECT_EQ(t5RelativePositionBucket(-d, false), bucket) << "d = " << d;
    // 100: 16 + trunc(ln(6.25) / ln(8) * 16) = 16 + trunc(14.10) = 30; 32: 16 + trunc(5.33) = 21.
    EXPECT_EQ(t5RelativePositionBucket(-32, false), 21);
    // A decoder never looks ahead: every key ahead is bucket 0.
    for (std::int64_t ahead : {1, 5, 200}) EXPECT_EQ(t5RelativePositionBucket(ahead, false), 0);
}

TEST(T5Bucket, EncoderMatchesHandComputedBuckets) {
    const std::vector<std::pair<std::int64_t, int>> expected{{0, 0},   {1, 1},    {15, 9},   {16, 10},
                                                             {17, 10}, {100, 15}, {128, 15}, {1000, 15}};
    for (const auto& [d, bucket] : expected) {
        EXPECT_EQ(t5RelativePositionBucket(-d, true), bucket) << "behind, d = " << d;
        if (d > 0) {
            EXPECT_EQ(t5RelativePositionBucket(d, true), 16 + bucket) << "ahead, d = " << d;
        }
    }
    // 15: 8 + trunc(ln(15/8) / ln(16) * 8) = 8 + trunc(1.81) = 9; 64: 8 + trunc(6.0) = 14 (exact in float32).
    EXPECT_EQ(t5RelativePositionBucket(-64, true), 14);
    EXPECT_EQ(t5RelativePositionBucket(-63, true), 13);
}

TEST(PositionSchemes, KerpleKernels) {
    for (double d : {0.0, 1.0, 7.0, 100.0}) {
        EXPECT_DOUBLE_EQ(kerpleLogBias(d, 2.0, 0.5), -2.0 * std::log(1.0 + 0.5 * d));
        EXPECT_DOUBLE_EQ(kerplePowerBias(d, 1.5, 0.5), -1.5 * std::sqrt(d));
    }
}

TEST(PositionSchemes, SinusoidalMatchesExplicitEmbeddings) {
    for (int dim : {16, 128}) {
        for (double d : {0.0, 1.0, 5.0, 37.0, 300.0}) {
            const double i = 400, j = i - d;  // any absolute positions d apart
            const double pp = dot(sinusoidalEmbedding(i, dim), sinusoidalEmbedding(j, dim));
            EXPECT_NEAR(sinusoidalInnerProduct(d, dim), pp, 1e-9) << "dim " << dim << ", d " << d;
        }
    }
}

// Sandwich as NeMo's SandwichRelativePositionEmbedding builds it: the embeddings' frequencies are
// 1/10000^(2k/dbar) for k = 1..dbar/2 (torch.arange(1, dbar/2 + 1)), the inner product minus dbar/2,
// divided by 8h/H for the 1-based head h.
TEST(PositionSchemes, SandwichMatchesExplicitEmbeddings) {
    const auto embedding = [](double pos, int dbar) {
        std::vector<double> p;
        for (int k = 1; k <= dbar / 2; ++k) {
            const double angle = pos / std::pow(10000.0, 2.0 * k / dbar);
            p.push_back(std::sin(angle));
            p.push_back(std::cos(angle));
        }
        return p;
    };
    for (int dbar : {16, 128}) {
        for (double d : {0.0, 1.0, 5.0, 37.0, 300.0}) {
            const double pp = dot(embedding(700, dbar), embedding(700 - d, dbar));
            EXPECT_NEAR(sandwichInnerProduct(d, dbar), pp, 1e-9) << "dbar " << dbar << ", d " << d;
            for (int heads : {1, 8, 12})
                for (int h = 0; h < heads; ++h)
                    EXPECT_NEAR(sandwichBias(d, dbar, sandwichCompression(h, heads)),
                                (pp - dbar / 2.0) * heads / (8.0 * (h + 1)), 1e-9);
        }
        EXPECT_DOUBLE_EQ(sandwichBias(0, dbar, 0.5), 0.0);  // shifted to 0 at d = 0
    }
    EXPECT_DOUBLE_EQ(sandwichCompression(0, 8), 1.0);  // ALiBi's divisor 8h/H: h = 1 of 8
    EXPECT_DOUBLE_EQ(sandwichCompression(7, 8), 8.0);
    EXPECT_DOUBLE_EQ(sandwichCompression(0, 16), 0.5);
}

// Golden values computed with NumPy from the formulas (not from this code), e.g. for Sandwich:
//   k = np.arange(1, dbar // 2 + 1)
//   pp = np.cos(d * (1.0 / 10000.0 ** (2 * k / dbar))).sum();  bias = (pp - dbar / 2) / (h * 8 / H)
// RoPE: theta = 10000.0 ** (-2 * np.arange(dim // 2) / dim); expected = 2 * np.cos(d * theta).sum() / sqrt(dim);
// bound = np.abs(np.cumsum(np.exp(1j * d * theta))).sum() / (dim // 2).
// Sinusoidal: np.cos(d / 10000.0 ** (2 * np.arange(dim // 2) / dim)).sum(). KERPLE: -r1 * np.log1p(r2 * d),
// -r1 * d ** r2.
TEST(PositionSchemes, FormulasMatchNumPyGoldenValues) {
    struct SandwichGolden {
        double d, pp128, pp16, h1of8, h8of8, h1of12;
    };
    for (const SandwichGolden& g : std::vector<SandwichGolden>{
             {1, 62.553381494899483, 7.9448639326193602, -1.4466185051005169, -0.18082731313756462,
              -2.1699277576507754},
             {5, 47.901349659376748, 6.8533776509855429, -16.098650340623252, -2.0123312925779064, -24.147975510934877},
             {37, 35.641588227237563, 5.1146646471415993, -28.358411772762437, -3.5448014715953047,
              -42.537617659143656},
             {300, 20.671517466426309, 2.512885905280287, -43.328482533573691, -5.4160603166967114,
              -64.992723800360537}}) {
        EXPECT_NEAR(sandwichInnerProduct(g.d, 128), g.pp128, 1e-11) << g.d;
        EXPECT_NEAR(sandwichInnerProduct(g.d, 16), g.pp16, 1e-11) << g.d;
        EXPECT_NEAR(sandwichBias(g.d, 128, sandwichCompression(0, 8)), g.h1of8, 1e-11) << g.d;
        EXPECT_NEAR(sandwichBias(g.d, 128, sandwichCompression(7, 8)), g.h8of8, 1e-11) << g.d;
        EXPECT_NEAR(sandwichBias(g.d, 128, sandwichCompression(0, 12)), g.h1of12, 1e-11) << g.d;
    }
    const std::vector<std::array<double, 3>> ropeExpected{
        {1, 7.729207915404757, 10.976716221977899},
        {10, 5.2629072061519437, 7.5695821405226358},
        {123, 2.7317964571985929, 4.5313577116693748}};  // d, d_k = 64, d_k = 128
    for (const auto& [d, dim64, dim128] : ropeExpected) {
        EXPECT_NEAR(ropeExpectedLogit(d, 64), dim64, 1e-11) << d;
        EXPECT_NEAR(ropeExpectedLogit(d, 128), dim128, 1e-11) << d;
    }
    const std::vector<std::array<double, 3>> ropeBound{
        {1, 8.1458907569708003, 31.538166142658085},
        {20, 4.5315356648563716, 15.242430108721916},
        {250, 2.4238453590786273, 6.5481790319415953}};  // d, d_k = 32, d_k = 128
    for (const auto& [d, dim32, dim128] : ropeBound) {
        EXPECT_NEAR(ropeDecayBound(d, 32), dim32, 1e-11) << d;
        EXPECT_NEAR(ropeDecayBound(d, 128), dim128, 1e-11) << d;
    }
    EXPECT_NEAR(ropeDecayBound(0, 128), 32.5, 1e-12);  // (d_k/2 + 1)/2
    for (const auto& [d, pp] : std::vector<std::pair<double, double>>{
             {1, 62.093683805767625}, {40, 32.578823066610731}, {300, 19.649870813398628}})
        EXPECT_NEAR(sinusoidalInnerProduct(d, 128), pp, 1e-11) << d;
    const std::vector<std::array<double, 4>> kerple{{1, -0.81093021621632877, -1.5, -0.29999999999999999},
                                                    {7, -3.0081547935525479, -3.9686269665968861, -8.1995104319577159},
                                                    {100, -7.8636512654486515, -15, -753.56592945287389}};
    for (const auto& [d, log, power, steep] : kerple) {
        EXPECT_NEAR(kerpleLogBias(d, 2.0, 0.5), log, 1e-12) << d;
        EXPECT_NEAR(kerplePowerBias(d, 1.5, 0.5), power, 1e-12) << d;
        EXPECT_NEAR(kerplePowerBias(d, 0.3, 1.7), steep, 1e-10) << d;
    }
}

TEST(PositionSchemes, RopeExpectationMatchesRotationTrace) {
    const int dim = 64;
    for (double d : {0.0, 1.0, 10.0, 123.0}) {
        const double m = 500, n = m - d;
        EXPECT_NEAR(ropeExpectedLogit(d, dim), ropeTrace(n, m, dim) / std::sqrt(dim), 1e-9) << d;
    }
    EXPECT_NEAR(ropeExpectedLogit(0, dim), std::sqrt(dim), 1e-12);  // |q|^2 / sqrt(d_k) on average
}

TEST(PositionSchemes, RopeDecayBoundMatchesPartialSums) {
    const int dim = 32;
    // At d = 0 every |S_j| = j: (1/16) * (1 + ... + 16) = 8.5.
    EXPECT_NEAR(ropeDecayBound(0, dim), 8.5, 1e-12);
    for (double d : {1.0, 20.0, 250.0}) {
        double total = 0;
        for (int j = 1; j <= dim / 2; ++j) {
            double re = 0, im = 0;
            for (int k = 0; k < j; ++k) {
                re += std::cos(d * std::pow(10000.0, -2.0 * k / dim));
                im += std::sin(d * std::pow(10000.0, -2.0 * k / dim));
            }
            total += std::hypot(re, im);
        }
        EXPECT_NEAR(ropeDecayBound(d, dim), total / (dim / 2), 1e-9) << d;
    }
    EXPECT_LT(ropeDecayBound(250, dim), ropeDecayBound(0, dim));  // the long-term decay
}

TEST(PositionSchemes, CurvesCarryTheSixLabelsAndTheirFormulas) {
    PositionSchemesParams p;
    p.slopes.heads = 8;
    p.maxDistance = 200;
    auto s = positionSchemeCurves(p);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    std::set<std::string> labels;
    for (const PositionCurve& c : s->curves) {
        labels.insert(c.label);
        EXPECT_FALSE(c.formula.empty()) << c.name;
        EXPECT_FALSE(c.source.empty()) << c.name;
        ASSERT_EQ(c.x.size(), 201u) << c.name;
        EXPECT_EQ(c.x.back(), 200.0);
    }
    EXPECT_EQ(labels, (std::set<std::string>{"ALiBi", "RoPE", "sinusoidal", "T5", "KERPLE", "Sandwich"}));
    // ALiBi: -m_h d with the press slopes 1/2 .. 1/256, one curve per head.
    for (int h = 0; h < 8; ++h) {
        const PositionCurve& c = s->curves[static_cast<std::size_t>(h)];
        EXPECT_EQ(c.head, h);
        const double m = std::exp2(-(h + 1));
        for (int d : {0, 1, 37, 200}) EXPECT_DOUBLE_EQ(c.y[static_cast<std::size_t>(d)], -m * d);
    }
    const PositionCurve* decoder = find(*s, "T5 decoder");
    const PositionCurve* encoder = find(*s, "T5 encoder");
    ASSERT_TRUE(decoder && encoder);
    // The illustrative profile at the hand-computed buckets: v(b) = -2.5 ln(1 + b) + 0.3 sin(2.3 b).
    const auto v = [](int b) { return -2.5 * std::log(1.0 + b) + 0.3 * std::sin(2.3 * b); };
    EXPECT_DOUBLE_EQ(decoder->y[100], v(30));
    EXPECT_DOUBLE_EQ(decoder->y[17], v(16));
    EXPECT_DOUBLE_EQ(encoder->y[100], v(15));
    EXPECT_DOUBLE_EQ(encoder->y[15], v(9));
    EXPECT_NE(decoder->formula.find("illustrative, not learned"), std::string::npos);
    const PositionCurve* log = find(*s, "KERPLE log");
    ASSERT_TRUE(log);
    EXPECT_DOUBLE_EQ(log->y[9], -2.0 * std::log(10.0));  // r1 = 2, r2 = 1
    const PositionCurve* power = find(*s, "KERPLE power");
    ASSERT_TRUE(power);
    EXPECT_DOUBLE_EQ(power->y[16], -4.0);  // r1 = 1, r2 = 1/2
    ASSERT_TRUE(find(*s, "RoPE decay bound"));
    // The bound is drawn scaled to sqrt(d_k) at d = 0 (its raw value there is (64 + 1) / 2).
    const PositionCurve* bound = find(*s, "RoPE decay bound");
    ASSERT_TRUE(bound);
    EXPECT_NEAR(bound->y[0], std::sqrt(128.0), 1e-12);
    EXPECT_NEAR(bound->y[77], ropeDecayBound(77, 128) * std::sqrt(128.0) / 32.5, 1e-12);
    // Sinusoidal: p_i·p_j / sqrt(d_model), 64 / sqrt(128) at d = 0.
    const PositionCurve* sinusoidal = find(*s, "sinusoidal p_i·p_j/sqrt(d)");
    ASSERT_TRUE(sinusoidal);
    EXPECT_NEAR(sinusoidal->y[0], 64.0 / std::sqrt(128.0), 1e-12);
    EXPECT_NEAR(sinusoidal->y[40], dot(sinusoidalEmbedding(90, 128), sinusoidalEmbedding(50, 128)) / std::sqrt(128.0),
                1e-9);
    // Sandwich: the first and last head, (p_i·p_j - 64) / (8h/H) with dbar = 128: h = 1 (scale 1), h = 8 (scale 1/8).
    const PositionCurve* sandwichFirst = find(*s, "Sandwich h0 (scale 1)");
    const PositionCurve* sandwichLast = find(*s, "Sandwich h7 (scale 1/8)");
    ASSERT_TRUE(sandwichFirst && sandwichLast);
    EXPECT_EQ(sandwichFirst->head, 0);
    EXPECT_EQ(sandwichLast->head, 7);
    EXPECT_EQ(sandwichFirst->variant, 0);
    EXPECT_EQ(sandwichLast->variant, 1);
    EXPECT_DOUBLE_EQ(sandwichFirst->y[0], 0.0);
    EXPECT_NEAR(sandwichFirst->y[37], -28.358411772762437, 1e-11);  // NumPy golden, as above
    EXPECT_NEAR(sandwichLast->y[37], -3.5448014715953047, 1e-11);
    EXPECT_NE(sandwichFirst->formula.find("dbar = 128"), std::string::npos);
    EXPECT_NE(sandwichFirst->source.find("NeMo"), std::string::npos);
    // One caption line per scheme variant; ALiBi's heads share one.
    const auto notes = schemeNotes(*s);
    EXPECT_EQ(notes.size(), 10u);  // ALiBi, RoPE x2, sinusoidal, T5 x2, KERPLE x2, Sandwich first and last head
    EXPECT_EQ(curveValueAt(*log, 9.2), log->y[9]);
    EXPECT_FALSE(curveValueAt(*log, 201).has_value());
}

TEST(PositionSchemes, SandwichHeadsFollowTheSessionHeadCount) {
    PositionSchemesParams p;
    p.maxDistance = 40;
    p.slopes.heads = 12;
    p.sandwichDim = 16;
    auto s = positionSchemeCurves(p);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    std::vector<const PositionCurve*> sandwich;
    for (const PositionCurve& c : s->curves)
        if (c.scheme == PositionScheme::Sandwich) sandwich.push_back(&c);
    ASSERT_EQ(sandwich.size(), 2u);
    EXPECT_EQ(sandwich[0]->name, "Sandwich h0 (scale 1.5)");  // 8h/H = 8/12
    EXPECT_EQ(sandwich[1]->name, "Sandwich h11 (scale 1/8)");
    EXPECT_NEAR(sandwich[0]->y[37], 5.1146646471415993 * 1.5 - 8 * 1.5, 1e-11);  // NumPy: dbar = 16, d = 37
    p.slopes.heads = 1;  // one head: one curve, h = 1 of H = 1, divided by 8
    s = positionSchemeCurves(p);
    ASSERT_TRUE(s.has_value());
    sandwich.clear();
    for (const PositionCurve& c : s->curves)
        if (c.scheme == PositionScheme::Sandwich) sandwich.push_back(&c);
    ASSERT_EQ(sandwich.size(), 1u);
    EXPECT_EQ(sandwich[0]->name, "Sandwich h0 (scale 1/8)");
    EXPECT_NEAR(sandwich[0]->y[5], (6.8533776509855429 - 8) / 8, 1e-11);
}

TEST(PositionSchemes, AttentionIsTheSoftmaxOfTheBiasAlone) {
    PositionSchemesParams p;
    p.slopes.heads = 4;
    p.maxDistance = 50;
    p.quantity = SchemeQuantity::Attention;
    auto s = positionSchemeCurves(p);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    EXPECT_EQ(s->omitted, (std::vector<PositionScheme>{PositionScheme::RoPE, PositionScheme::Sinusoidal}));
    for (const PositionCurve& c : s->curves) {
        EXPECT_NE(c.scheme, PositionScheme::RoPE);
        EXPECT_NE(c.scheme, PositionScheme::Sinusoidal);
        double sum = 0;
        for (double y : c.y) sum += y;
        EXPECT_NEAR(sum, 1.0, 1e-12) << c.name;
    }
    // ALiBi head 0 (m = 1/4 for H = 4): a geometric series, (1 - r) r^d / (1 - r^51) with r = e^-m.
    const double r = std::exp(-0.25);
    for (int d : {0, 3, 50})
        EXPECT_NEAR(s->curves[0].y[static_cast<std::size_t>(d)], (1 - r) * std::pow(r, d) / (1 - std::pow(r, 51)),
                    1e-12);
    // KERPLE log with r1 = 2, r2 = 1: exp(-2 ln(1 + d)) = 1 / (1 + d)^2, normalised by sum_{k=1}^{51} 1/k^2.
    double norm = 0;
    for (int k = 1; k <= 51; ++k) norm += 1.0 / (k * k);
    EXPECT_NEAR(find(*s, "KERPLE log")->y[4], (1.0 / 25.0) / norm, 1e-12);
}

TEST(PositionSchemes, BadParametersSayWhatToDo) {
    PositionSchemesParams p;
    p.maxDistance = 0;
    auto s = positionSchemeCurves(p);
    ASSERT_FALSE(s.has_value());
    EXPECT_NE(s.error().message.find("1..65536"), std::string::npos);
    p.maxDistance = 10;
    p.ropeDim = 7;
    EXPECT_FALSE(positionSchemeCurves(p).has_value());
    p.ropeDim = 64;
    p.sandwichDim = 0;
    s = positionSchemeCurves(p);
    ASSERT_FALSE(s.has_value());
    EXPECT_NE(s.error().message.find("Sandwich dimension"), std::string::npos);
    p.sandwichDim = 128;
    p.slopes.heads = 0;
    EXPECT_FALSE(positionSchemeCurves(p).has_value());
}
