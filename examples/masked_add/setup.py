from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

# On a ROCm build of PyTorch, CUDAExtension builds the same extension with hipcc and passes it
# extra_compile_args["nvcc"]; `hipify-py convert` points `sources` at the converted files and
# turns the nvcc flags into hipcc ones (see the README's "PyTorch extensions" section).
setup(
    name="masked_add",
    ext_modules=[
        CUDAExtension(
            name="masked_add",
            sources=["masked_add.cpp", "masked_add_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
