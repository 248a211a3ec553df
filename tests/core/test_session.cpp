// Tests for <alibi/session.hpp> (to be written)
