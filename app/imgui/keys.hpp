// Key indices of io.KeysDown. Dear ImGui 1.86's GLFW backend indexes io.KeysDown by GLFW key code
// (GLFW_KEY_*, ASCII for letters and digits); these constants name the ones the explorer's
// shortcuts use, so the panel code includes no GLFW header and the logic tests can press them.
#pragma once

namespace alibi::imgui::keys {

inline constexpr int kDigit0 = 48;  // '0'; '1'..'7' follow
inline constexpr int kC = 67;
inline constexpr int kE = 69;
inline constexpr int kO = 79;
inline constexpr int kP = 80;
inline constexpr int kQ = 81;
inline constexpr int kR = 82;
inline constexpr int kS = 83;
inline constexpr int kY = 89;
inline constexpr int kZ = 90;
inline constexpr int kMinus = 45;
inline constexpr int kEqual = 61;
inline constexpr int kRight = 262;
inline constexpr int kLeft = 263;
inline constexpr int kDown = 264;
inline constexpr int kUp = 265;
inline constexpr int kPageUp = 266;
inline constexpr int kPageDown = 267;
inline constexpr int kL = 76;
inline constexpr int kHome = 268;
inline constexpr int kEnd = 269;
inline constexpr int kF1 = 290;
inline constexpr int kF5 = 294;
inline constexpr int kF9 = 298;
inline constexpr int kF11 = 300;
inline constexpr int kKeypadSubtract = 333;
inline constexpr int kKeypadAdd = 334;

}  // namespace alibi::imgui::keys
