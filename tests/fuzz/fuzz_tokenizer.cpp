// libFuzzer target for the tokenizer reader (tokenizer.json): any text must give a tokenizer or
// a clean error, never a crash, a hang or a leak. A tokenizer that loads must encode any text
// (here a few fixed ones and the input's own bytes) to ids it can decode and show.
#include <alibi/text/tokenizer.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto tokenizer = alibi::text::Tokenizer::fromJson(text);
    if (!tokenizer) {
        if (tokenizer.error().message.empty()) __builtin_trap();
        return 0;
    }
    const std::string samples[] = {"Hello world", " \n\t  x", "naïve 東京 😀",
                                   "<s>a</s>",    "\xff\xfe", std::string(text.substr(0, 256))};
    for (const std::string& sample : samples) {
        const std::vector<std::int32_t> ids = tokenizer->encode(sample);
        for (const std::int32_t id : ids) {
            if (id < 0 || id >= tokenizer->vocabSize()) __builtin_trap();
            (void)tokenizer->displayText(id);
        }
        (void)tokenizer->decode(ids);
    }
    return 0;
}
