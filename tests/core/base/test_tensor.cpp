// Tests for <alibi/tensor.hpp>: sizes, overflow, the budget message, sources.
#include <alibi/base/tensor.hpp>

#include <gtest/gtest.h>

using namespace alibi;

TEST(Tensor, ElementCountAndOverflow) {
    EXPECT_EQ(elementCount({2, 3, 4}), 24U);
    EXPECT_EQ(elementCount({}), 1U);
    EXPECT_FALSE(elementCount({1LL << 40, 1LL << 40}));
    EXPECT_FALSE(elementCount({-1, 3}));
    EXPECT_EQ(shapeString({2, 3}), "(2, 3)");
    EXPECT_EQ(shapeString({7}), "(7,)");
}

TEST(Tensor, HumanBytes) {
    EXPECT_EQ(humanBytes(512), "512 B");
    EXPECT_EQ(humanBytes(3ULL << 30), "3.0 GiB");
    EXPECT_EQ(humanBytes(1536ULL << 20), "1.5 GiB");
}

TEST(Tensor, AllocateRespectsBudget) {
    auto ok = Tensor::allocate({4, 4}, DType::F64, 128);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->byteSize(), 128U);
    auto no = Tensor::allocate({4, 5}, DType::F64, 128, "test tensor");
    ASSERT_FALSE(no);
    EXPECT_EQ(no.error().code, ErrorCode::TooLarge);
    EXPECT_NE(no.error().message.find("test tensor"), std::string::npos);
    EXPECT_FALSE(Tensor::allocate({1LL << 40, 1LL << 40}, DType::F32));
}

TEST(Tensor, LargeBufferIsUsable) {
    auto t = Tensor::allocate({1 << 21}, DType::F32);  // 8 MiB: mmap + huge-page path
    ASSERT_TRUE(t);
    t->set(0, 1.5);
    t->set(t->size() - 1, -2.0);
    EXPECT_EQ(t->at(0), 1.5);
    EXPECT_EQ(t->at(t->size() - 1), -2.0);
}

TEST(Tensor, SourceAndMaterialize) {
    Tensor t({2, 3}, DType::F16);
    for (std::uint64_t k = 0; k < 6; ++k) t.set(k, static_cast<double>(k) - 2);
    auto src = tensorSource(t);
    auto copy = materialize(*src);
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->shape(), t.shape());
    for (std::uint64_t k = 0; k < 6; ++k) EXPECT_EQ(copy->at(k), t.at(k));
    EXPECT_FALSE(materialize(*src, 4));
}

TEST(Tensor, BorrowReadsAndWritesForeignMemoryWithoutOwningIt) {
    alignas(8) float memory[6] = {1, 2, 3, 4, 5, 6};
    {
        Tensor t = Tensor::borrow({2, 3}, DType::F32, std::as_writable_bytes(std::span(memory)));
        EXPECT_EQ(t.bytes(), reinterpret_cast<std::byte*>(memory));
        EXPECT_EQ(t.size(), 6U);
        EXPECT_EQ(t.at(4), 5.0);
        t.set(0, -1.0);
        Tensor moved = std::move(t);  // a move keeps it borrowed
        EXPECT_EQ(moved.at(5), 6.0);
    }  // destruction must not free the caller's (stack) memory
    EXPECT_EQ(memory[0], -1.0F);
}
