"""hipify-py: port CUDA source code to HIP for AMD GPUs."""

__version__ = "0.1.0"
