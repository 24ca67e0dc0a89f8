// The parts of libtorch the hwaware networks use: tensors, nn::Module and nn::Linear, Adam,
// torch::save / torch::load, manual_seed, NoGradGuard and set_num_threads. Included instead of
// <torch/torch.h>, which also brings the data loaders, every module and the JIT front end —
// about a third more compile time for each file that includes it.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>
