// Tests for <alibi/png.hpp> (to be written)
