// Tests for <alibi/plot.hpp> (to be written)
