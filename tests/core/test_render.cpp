// Tests for <alibi/render.hpp> (to be written)
