// libFuzzer target for the session-file reader (*.alibi.json): any text must give a session or
// a clean error naming the field, never a crash, a hang or a leak. A session that parses must
// survive serializeSession -> parseSession unchanged, so what a GUI saves it reads back.
#include <alibi/io/session.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto session = alibi::parseSession(text);
    if (!session) {
        if (session.error().message.empty()) __builtin_trap();
        return 0;
    }
    (void)alibi::validateSession(*session);
    auto again = alibi::parseSession(alibi::serializeSession(*session));
    if (!again || !(*again == *session)) __builtin_trap();
    return 0;
}
