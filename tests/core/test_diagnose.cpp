// Tests for <alibi/diagnose.hpp> (to be written)
