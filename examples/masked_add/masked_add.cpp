// PyTorch binding: masked_add(input, mask) -> output, all float32 CUDA tensors of equal size.
#include <torch/extension.h>

void launch_kernel(float* input, float* mask, float* output, int n);

torch::Tensor masked_add(torch::Tensor input, torch::Tensor mask) {
    TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
    TORCH_CHECK(mask.is_cuda(), "mask must be a CUDA tensor");
    TORCH_CHECK(input.scalar_type() == torch::kFloat32, "input must be float32");
    TORCH_CHECK(mask.scalar_type() == torch::kFloat32, "mask must be float32");
    TORCH_CHECK(input.numel() == mask.numel(), "input and mask must have the same size");
    input = input.contiguous();
    mask = mask.contiguous();
    torch::Tensor output = torch::empty_like(input);
    launch_kernel(input.data_ptr<float>(), mask.data_ptr<float>(), output.data_ptr<float>(),
                  static_cast<int>(input.numel()));
    return output;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("masked_add", &masked_add, "Add 1.0 where mask > 0.5 (CUDA)");
}
