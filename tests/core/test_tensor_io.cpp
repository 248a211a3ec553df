// Tests for <alibi/tensor_io.hpp> (to be written)
