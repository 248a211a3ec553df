// Tests for <alibi/colormap.hpp> (to be written)
