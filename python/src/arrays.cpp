// Zero-copy tensor exchange with NumPy (arrays.hpp).
#include "arrays.hpp"

#include <pybind11/stl.h>

#include <fmt/format.h>

#include <string>

namespace py = pybind11;

namespace alibi::python {
namespace {

// The buffer-protocol format character of each dtype.
std::string bufferFormat(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return py::format_descriptor<float>::format();
        case DType::F64:
            return py::format_descriptor<double>::format();
        case DType::F16:
            return "e";
        case DType::BF16:
            return py::format_descriptor<std::uint16_t>::format();
    }
    return "B";
}

py::dtype numpyDtype(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return py::dtype("float32");
        case DType::F64:
            return py::dtype("float64");
        case DType::F16:
            return py::dtype("float16");
        case DType::BF16:
            return py::dtype("uint16");
    }
    return py::dtype("uint8");
}

std::vector<py::ssize_t> rowMajorStrides(const Shape& shape, std::size_t itemSize) {
    std::vector<py::ssize_t> strides(shape.size());
    py::ssize_t step = static_cast<py::ssize_t>(itemSize);
    for (std::size_t k = shape.size(); k-- > 0;) {
        strides[k] = step;
        step *= static_cast<py::ssize_t>(shape[k]);
    }
    return strides;
}

py::buffer_info bufferOf(CoreTensor& t) {
    const Shape& shape = t.tensor.shape();
    const std::size_t item = dtypeSize(t.tensor.dtype());
    return py::buffer_info(t.tensor.bytes(), static_cast<py::ssize_t>(item), bufferFormat(t.tensor.dtype()),
                           static_cast<py::ssize_t>(shape.size()), std::vector<py::ssize_t>(shape.begin(), shape.end()),
                           rowMajorStrides(shape, item));
}

}  // namespace

void registerArrays(py::module_& m) {
    py::class_<CoreTensor>(m, "Tensor", py::buffer_protocol(), R"doc(
Memory of a tensor the core computed. Every array the module returns is a view of one of these
(``array.base``); it frees the memory when no array uses it any more. It exports the buffer
protocol, so ``numpy.asarray(t)`` or ``memoryview(t)`` view it without a copy.

Example:
    >>> a = alibi_explorer.bias(heads=2, seq=4)
    >>> type(a.base).__name__, a.base.dtype, a.base.shape
    ('Tensor', 'f32', (2, 4, 4))
)doc")
        .def_buffer(&bufferOf)
        .def_property_readonly("shape",
                               [](const CoreTensor& t) {
                                   py::tuple out(t.tensor.shape().size());
                                   for (std::size_t k = 0; k < t.tensor.shape().size(); ++k)
                                       out[k] = t.tensor.shape()[k];
                                   return out;
                               })
        .def_property_readonly(
            "dtype", [](const CoreTensor& t) { return std::string(dtypeName(t.tensor.dtype())); },
            "The core's dtype name: f32, f64, f16 or bf16.")
        .def_property_readonly(
            "metadata", [](const CoreTensor& t) { return t.tensor.metadata; },
            "Every parameter as strings (what .safetensors exports hold in __metadata__).")
        .def_property_readonly("nbytes", [](const CoreTensor& t) { return t.tensor.byteSize(); })
        .def("__repr__", [](const CoreTensor& t) {
            return fmt::format("<alibi_explorer.Tensor {} {}>", shapeString(t.tensor.shape()),
                               dtypeName(t.tensor.dtype()));
        });
}

py::array toNumpy(Tensor&& tensor) {
    const DType dtype = tensor.dtype();
    const Shape shape = tensor.shape();
    auto owner = py::cast(CoreTensor{std::move(tensor)}, py::return_value_policy::move);
    auto& held = owner.cast<CoreTensor&>();
    return py::array(numpyDtype(dtype), std::vector<py::ssize_t>(shape.begin(), shape.end()),
                     rowMajorStrides(shape, dtypeSize(dtype)), held.tensor.bytes(), owner);
}

Tensor fromNumpy(const py::handle& input, py::object& keepAlive, bool* borrowed) {
    py::array array = py::reinterpret_borrow<py::array>(input);
    const char kind = array.dtype().kind();
    const auto item = array.itemsize();
    DType dtype = DType::F32;
    if (kind == 'f' && item == 4)
        dtype = DType::F32;
    else if (kind == 'f' && item == 8)
        dtype = DType::F64;
    else if (kind == 'f' && item == 2)
        dtype = DType::F16;
    else if (kind == 'u' && item == 2)
        dtype = DType::BF16;
    else
        throw py::value_error(
            fmt::format("array: dtype {} is not one the core reads; give float32, float64, float16, or uint16 holding "
                        "bfloat16 bits "
                        "(torch: t.view(torch.int16).numpy().view('uint16'))",
                        py::str(array.dtype()).cast<std::string>()));
    Shape shape(array.shape(), array.shape() + array.ndim());
    const int flags = py::array::c_style;
    const bool native = array.dtype().attr("isnative").cast<bool>();
    const bool aligned = (array.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    const bool contiguous = (array.flags() & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;
    *borrowed = native && aligned && contiguous;
    if (!*borrowed) {
        // One copy into native byte order, aligned, C order.
        array = py::array::ensure(
            py::module_::import("numpy").attr("ascontiguousarray")(array, array.dtype().attr("newbyteorder")("=")),
            flags);
    }
    keepAlive = array;
    auto* data = static_cast<std::byte*>(const_cast<void*>(array.data()));
    return Tensor::borrow(std::move(shape), dtype, {data, static_cast<std::size_t>(array.nbytes())});
}

}  // namespace alibi::python
