// The forward pass against values computed here from the formulas: with q = k = 0 every head's
// attention is the ALiBi prior alone, softmax_j(-m (i - j)) over j <= i, with the model's press
// slopes (BLOOM: +m j, MPT: -m (T-1-j), the same after the softmax) or the changed ones; with
// every vocabulary row equal the next-token loss is ln V at every position. Falcon adds its bias
// before the 1/sqrt(head_dim) scaling, as bfloat16(bfloat16(m) * j). (The full pass is checked
// against independent NumPy forward passes in python/tests/test_lm.py and test_lm_falcon.py.)
#include <alibi/lm/forward.hpp>
#include "tiny_model_fixture.hpp"

#include <alibi/base/dtype.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace alibi::test {
namespace {

// The press rule of REFERENCES.md, written out: c = 2^floor(log2 H); 2^(-B(h+1)/c) for h < c,
// then 2^(-B(2k+1)/(2c)).
double pressSlope(int h, int heads, double b) {
    int c = 1;
    while (c * 2 <= heads) c *= 2;
    return h < c ? std::exp2(-b * (h + 1) / c) : std::exp2(-b * (2 * (h - c) + 1) / (2.0 * c));
}

double priorProbability(double m, int i, int j) {
    if (j > i) return 0.0;
    double sum = 0;
    for (int x = 0; x <= i; ++x) sum += std::exp(-m * (i - x));
    return std::exp(-m * (i - j)) / sum;
}

class LmForward : public TempDirTest {};

TEST_F(LmForward, ZeroQueriesAndKeysGiveTheAlibiPriorForEveryHeadCount) {
    for (auto arch : {lm::Architecture::Bloom, lm::Architecture::Mpt})
        for (int heads : {1, 2, 3, 4, 6, 12}) {
            TinyModel m;
            m.arch = arch;
            m.heads = heads;
            m.d = 2 * heads;
            m.layers = 2;
            std::mt19937 rng(3);
            std::normal_distribution<float> normal(0.0f, 0.5f);
            m.values = [&](const std::string& name, std::size_t n) {
                std::vector<float> v(n);
                const bool qk =
                    name.find("query_key_value") != std::string::npos || name.find("Wqkv") != std::string::npos;
                for (float& x : v) x = qk ? 0.0f : normal(rng);
                return v;
            };
            std::filesystem::remove_all(m_dir);
            std::filesystem::create_directories(m_dir);
            writeTinyModel(m_dir.string(), m);
            auto cp = lm::Checkpoint::open(m_dir.string());
            ASSERT_TRUE(cp) << cp.error().message;
            const int T = 7;
            lm::ForwardOptions options;
            options.keepAttention = true;
            auto run = lm::runForward(*cp, std::vector<std::int64_t>{3, 1, 4, 1, 5, 9, 2}, options);
            ASSERT_TRUE(run) << run.error().message;
            ASSERT_EQ(run->attention.size(), static_cast<std::size_t>(2 * heads * T * T));
            for (int layer = 0; layer < 2; ++layer)
                for (int h = 0; h < heads; ++h) {
                    const double slope = pressSlope(h, heads, 8.0);
                    EXPECT_NEAR(run->slopes[h], slope, 1e-15);
                    for (int i = 0; i < T; ++i)
                        for (int j = 0; j < T; ++j)
                            EXPECT_NEAR(run->attention[((layer * heads + h) * T + i) * T + j],
                                        priorProbability(slope, i, j), 2e-6)
                                << lm::architectureName(arch) << " H=" << heads << " layer " << layer << " head " << h
                                << " (" << i << ", " << j << ")";
                }
        }
}

// Falcon with q = k = 0: softmax_j(bf16(bf16(m) * j) / sqrt(head_dim)) over j <= i, the bias
// rounded as modeling_falcon.py's build_alibi_tensor holds it, for one k/v per head and for
// multi-query, sequential and parallel attention alike.
TEST_F(LmForward, FalconZeroQueriesAndKeysGiveItsScaledBfloat16Prior) {
    for (const bool multiQuery : {false, true})
        for (int heads : {1, 3, 4, 6, 12}) {
            TinyModel m;
            m.arch = lm::Architecture::Falcon;
            m.heads = heads;
            m.d = 4 * heads;  // head_dim 4: the bias is halved
            m.layers = 2;
            m.multiQuery = multiQuery;
            m.parallelAttn = multiQuery;
            std::mt19937 rng(5);
            std::normal_distribution<float> normal(0.0f, 0.5f);
            const std::int64_t hd = 4;
            m.values = [&](const std::string& name, std::size_t n) {
                std::vector<float> v(n);
                for (float& x : v) x = normal(rng);
                // Zero the q and k rows of query_key_value (weight and bias); keep v's.
                if (name.find("query_key_value") != std::string::npos) {
                    const std::size_t columns = name.ends_with(".weight") ? static_cast<std::size_t>(m.d) : 1;
                    const std::size_t rows = n / columns;
                    for (std::size_t r = 0; r < rows; ++r) {
                        const auto row = static_cast<std::int64_t>(r);
                        const bool value = multiQuery ? row >= (heads + 1) * hd : (row / hd) % 3 == 2;
                        if (!value) std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(r * columns), columns, 0.0f);
                    }
                }
                return v;
            };
            std::filesystem::remove_all(m_dir);
            std::filesystem::create_directories(m_dir);
            writeTinyModel(m_dir.string(), m);
            auto cp = lm::Checkpoint::open(m_dir.string());
            ASSERT_TRUE(cp) << cp.error().message;
            const int T = 9;
            lm::ForwardOptions options;
            options.keepAttention = true;
            auto run = lm::runForward(*cp, std::vector<std::int64_t>{3, 1, 4, 1, 5, 9, 2, 6, 5}, options);
            ASSERT_TRUE(run) << run.error().message;
            for (int layer = 0; layer < 2; ++layer)
                for (int h = 0; h < heads; ++h) {
                    const double mb = roundTo(DType::BF16, static_cast<float>(pressSlope(h, heads, 8.0)));
                    EXPECT_DOUBLE_EQ(run->slopes[h], mb / 2.0);  // the effective slope, bf16(m)/sqrt(4)
                    for (int i = 0; i < T; ++i) {
                        double sum = 0;
                        for (int x = 0; x <= i; ++x) sum += std::exp(roundTo(DType::BF16, mb * x) / 2.0);
                        for (int j = 0; j < T; ++j) {
                            const double want = j > i ? 0.0 : std::exp(roundTo(DType::BF16, mb * j) / 2.0) / sum;
                            EXPECT_NEAR(run->attention[((layer * heads + h) * T + i) * T + j], want, 2e-6)
                                << "H=" << heads << (multiQuery ? " multi-query" : "") << " layer " << layer << " head "
                                << h << " (" << i << ", " << j << ")";
                        }
                    }
                }
        }
}

TEST_F(LmForward, SlopeChangesReachTheAttention) {
    TinyModel m;
    m.heads = 4;
    m.values = [](const std::string& name, std::size_t n) {
        const bool qk = name.find("query_key_value") != std::string::npos;
        return std::vector<float>(n, qk ? 0.0f : 0.1f);
    };
    writeTinyModel(m_dir.string(), m);
    auto cp = lm::Checkpoint::open(m_dir.string());
    ASSERT_TRUE(cp);
    lm::ForwardOptions options;
    options.keepAttention = true;
    options.slopes.scheme = SlopeScheme::Geometric;
    options.slopes.maxBias = 4.0;
    options.slopes.scale = 0.5;
    options.slopes.headSlopes[2] = 1.5;
    const int T = 5;
    auto run = lm::runForward(*cp, std::vector<std::int64_t>{1, 2, 3, 4, 5}, options);
    ASSERT_TRUE(run) << run.error().message;
    const double expected[4] = {0.5 * std::exp2(-1.0), 0.5 * std::exp2(-2.0), 1.5, 0.5 * std::exp2(-4.0)};
    for (int h = 0; h < 4; ++h) {
        EXPECT_NEAR(run->slopes[h], expected[h], 1e-15);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j)
                EXPECT_NEAR(run->attention[(h * T + i) * T + j], priorProbability(expected[h], i, j), 2e-6);
    }
    lm::ForwardOptions badHead;
    badHead.slopes.headSlopes[4] = 0.1;
    auto refused = lm::runForward(*cp, std::vector<std::int64_t>{1, 2}, badHead);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("heads 0 to 3"), std::string::npos);
    EXPECT_EQ(lm::describe(options.slopes), "scheme geometric, max_bias 4, slopes x0.5, head 2 = 1.5");
}

TEST_F(LmForward, EqualVocabularyRowsGiveLossLnV) {
    for (auto arch : {lm::Architecture::Bloom, lm::Architecture::Mpt}) {
        TinyModel m;
        m.arch = arch;
        m.vocab = 37;
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, 0.5f);
        m.values = [&](const std::string& name, std::size_t n) {
            std::vector<float> v(n);
            if (name == "word_embeddings.weight" || name == "wte.weight") {
                for (std::size_t i = 0; i < n; ++i) v[i] = 0.1f * static_cast<float>(i % 8) - 0.3f;
            } else {
                for (float& x : v) x = normal(rng);
            }
            return v;
        };
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
        writeTinyModel(m_dir.string(), m);
        auto cp = lm::Checkpoint::open(m_dir.string());
        ASSERT_TRUE(cp);
        auto run = lm::runForward(*cp, std::vector<std::int64_t>{0, 36, 5, 5, 20});
        ASSERT_TRUE(run) << run.error().message;
        ASSERT_EQ(run->loss.size(), 4u);
        for (float l : run->loss) EXPECT_NEAR(l, std::log(37.0), 1e-5);
        EXPECT_NEAR(run->meanLoss, std::log(37.0), 1e-5);
    }
}

}  // namespace
}  // namespace alibi::test
