// Tests for <alibi/stats.hpp> (to be written)
