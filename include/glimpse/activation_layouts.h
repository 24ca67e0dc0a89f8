// glimpse/activation_layouts.h — which activations of a model graph are kept channel-blocked
// (NCHW[b]c, glimpse/ops.h's in_block / out_block) from one convolution to the next.
//
// A convolution kernel that reads and writes blocked activations does no packing and no
// unpacking of its own (on VGG-16's and ResNet-50's largest layers those took a fifth to a third
// of the kernel). The plan keeps an activation blocked where its readers can take it so:
//   - conv2d and depthwise_conv2d layers read any layout (their in_block is the input's) and
//     write blocked (out_block = ActivationBlockFor(channels)) unless the output is a graph
//     output or no reader takes it blocked; depthwise writes its input's block (one block for
//     both);
//   - ReLU, Clip, an Add of two activations of one shape, max and average pooling and global
//     average pooling work on either layout, lane by lane (global pooling's [N, C, 1, 1] result is
//     the same bytes in both: it is NCHW);
//   - every other op (flatten, reshape, concat, softmax, the plain convolution, dense and
//     batch_matmul layers) and every graph output take NCHW.
// Where a reader wants another layout than its tensor's, the compiled model reorders it first
// (glimpse/model_compile.h counts those reorders).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "glimpse/model_graph.h"

namespace glimpse {

// The channel block of an activation of `channels` channels: the largest of 16, 8 and 4 that
// divides it, 0 (NCHW) when none does.
int64_t ActivationBlockFor(int64_t channels);

struct ActivationLayoutPlan {
  // Per graph tensor, the block it is written in (0: NCHW; constants and graph inputs are NCHW).
  std::vector<int64_t> tensor_block;
  // (graph op index, tensor) → the block that op reads the tensor in, for every activation an op
  // (a layer: its own op) reads; a differing tensor_block means a reorder before the op.
  std::map<std::pair<int, int>, int64_t> read_block;

  int64_t ReadBlock(int op, int tensor) const;  // 0 when not listed
};

// Plans the layouts of `graph`'s activations and sets the in_block / out_block of the
// convolution layers of `layers` (GraphLayers(graph)) to match.
ActivationLayoutPlan PlanBlockedActivations(const ModelGraph& graph,
                                            std::vector<GraphLayer>& layers);

}  // namespace glimpse
