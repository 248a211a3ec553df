// Links one core layer whole (every object of its library) with only the layers below it: a
// call from that layer into a higher one leaves an undefined symbol, and this program does not
// link. tests/CMakeLists.txt builds one such program per layer; running it does nothing.
int main() {
    return 0;
}
