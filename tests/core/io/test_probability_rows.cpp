// The per-element passes of reading attention probabilities (io/probability_rows): every
// length around the vector width, data at an odd address, and each kind of bad value in the
// vector part and in the tail.
#include "probability_rows.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using alibi::detail::RowCheck;

struct Stored {
    std::vector<std::byte> bytes;
    const std::byte* data() const { return bytes.data() + 1; }  // deliberately misaligned
};

Stored store(const std::vector<float>& values) {
    Stored s;
    s.bytes.resize(values.size() * 4 + 1);
    if (!values.empty()) std::memcpy(s.bytes.data() + 1, values.data(), values.size() * 4);
    return s;
}

TEST(ProbabilityRows, WidenCheckAndSumEveryLength) {
    for (std::size_t n = 0; n <= 35; ++n) {
        std::vector<float> values(n);
        double expected = 0;
        for (std::size_t k = 0; k < n; ++k) expected += (values[k] = static_cast<float>(k % 5) / 17.0f);
        const Stored s = store(values);
        std::vector<double> out(n, -1.0);
        const RowCheck c = alibi::detail::widenCheckF32(s.data(), out.data(), n, 1e-6);
        EXPECT_FALSE(c.outside) << n;
        EXPECT_NEAR(c.sum, expected, 1e-12) << n;
        for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(out[k], static_cast<double>(values[k])) << n << " " << k;
        const RowCheck again = alibi::detail::checkRow(out.data(), n, 1e-6);
        EXPECT_FALSE(again.outside);
        EXPECT_EQ(again.sum, c.sum);
    }
}

TEST(ProbabilityRows, BadValuesAreNoticedWhereverTheyAre) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (const float bad : {nan, inf, -inf, -0.01f, 1.01f}) {
        for (const std::size_t at : {0UL, 3UL, 7UL, 8UL, 16UL, 18UL}) {  // vector lanes and the tail of 19
            std::vector<float> values(19, 0.01f);
            values[at] = bad;
            const Stored s = store(values);
            std::vector<double> out(values.size());
            EXPECT_TRUE(alibi::detail::widenCheckF32(s.data(), out.data(), out.size(), 1e-6).outside)
                << bad << " at " << at;
            EXPECT_TRUE(alibi::detail::checkRow(out.data(), out.size(), 1e-6).outside) << bad << " at " << at;
        }
    }
    // Inside the tolerance is not outside.
    std::vector<double> edge{-1e-7, 1 + 1e-7, 0.5};
    EXPECT_FALSE(alibi::detail::checkRow(edge.data(), edge.size(), 1e-6).outside);
}

TEST(ProbabilityRows, NormaliseClampsAndDivides) {
    std::vector<double> v{-1e-9, 0.2, 0.3, 0.5, 0.25, 0.25, 0.1, 0.1, 0.3};
    alibi::detail::normaliseRow(v.data(), v.size(), 2.0);
    const std::vector<double> expected{0.0, 0.1, 0.15, 0.25, 0.125, 0.125, 0.05, 0.05, 0.15};
    for (std::size_t k = 0; k < v.size(); ++k) EXPECT_NEAR(v[k], expected[k], 1e-17) << k;
}

}  // namespace
