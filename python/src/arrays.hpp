// Tensors across the language boundary without copies. Out: a core Tensor moves into a Python
// object (alibi_explorer.Tensor, which exports the buffer protocol) and the NumPy array handed
// back views its memory with that object as its base, so the memory lives exactly as long as
// an array still uses it. In: a C-contiguous, aligned NumPy array of a dtype the core knows is
// lent to the core as a borrowed Tensor; anything else is copied once into that form.
#pragma once

#include <alibi/base/tensor.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace alibi::python {

// Holds a core tensor for Python; the class `Tensor` of the module.
struct CoreTensor {
    Tensor tensor;
};

void registerArrays(pybind11::module_& m);

// A NumPy array over `tensor`'s memory whose base is the new alibi_explorer.Tensor object.
// bf16 comes back as uint16 bit patterns (NumPy has no bfloat16), as in the CLI's .npy files.
[[nodiscard]] pybind11::array toNumpy(Tensor&& tensor);

// A core view of `array`: borrowed when its layout allows (`*borrowed` set to true), else a
// copy in C order. float32/float64/float16 map to f32/f64/f16; uint16 holds bf16 bits.
// `keepAlive` receives whatever object owns the memory the returned tensor points into.
[[nodiscard]] Tensor fromNumpy(const pybind11::handle& input, pybind11::object& keepAlive, bool* borrowed);

}  // namespace alibi::python
