// Tests for <alibi/attention.hpp> (to be written)
