// Tests for <alibi/output_file.hpp> (to be written)
