// Tests for <alibi/png.hpp>: round trip through memory and a file, garbage rejected.
#include <alibi/render/png.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

using namespace alibi;

TEST(Png, RoundTrip) {
    Image image{3, 2, std::vector<Rgba>(6)};
    for (int k = 0; k < 6; ++k)
        image.pixels[k] = Rgba{static_cast<std::uint8_t>(40 * k), 7, 200, static_cast<std::uint8_t>(255 - k)};
    auto bytes = encodePng(image);
    ASSERT_TRUE(bytes);
    EXPECT_EQ((*bytes)[1], 'P');
    auto back = decodePng(*bytes);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->width, 3);
    EXPECT_EQ(back->height, 2);
    EXPECT_EQ(back->pixels, image.pixels);

    const auto path = (std::filesystem::temp_directory_path() / "alibi_test_roundtrip.png").string();
    ASSERT_TRUE(writePng(image, path));
    auto fromFile = readPng(path);
    ASSERT_TRUE(fromFile);
    EXPECT_EQ(fromFile->pixels, image.pixels);
    std::remove(path.c_str());
}

TEST(Png, GarbageAndTruncationAreErrors) {
    std::vector<std::uint8_t> garbage(100, 0x42);
    auto r = decodePng(garbage);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::BadInput);
    Image image{8, 8, std::vector<Rgba>(64, Rgba{1, 2, 3, 255})};
    auto bytes = *encodePng(image);
    bytes.resize(bytes.size() / 2);
    EXPECT_FALSE(decodePng(bytes));
    EXPECT_FALSE(encodePng(Image{2, 2, {}}));
    EXPECT_FALSE(readPng("/nonexistent/folder/x.png"));
}
