// Map: layout naming (DescribeLayout) → the three primitive builders (convolution, inner product,
// matmul), which only fill a PrimitiveSetup → Execute, shared by all: reorders, first call and
// check, timing.
#include "onednn.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <type_traits>
#include <unordered_map>
#include <variant>

namespace glimpse::baselines {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

struct Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Engine& GetEngine() {
  static Engine engine;
  return engine;
}

// A memory descriptor in oneDNN's own notation: dimensions ordered by stride (outermost first),
// blocked dimensions in upper case, then the inner blocks — "nChw16c", "OIhw16i16o" — so that a
// reader sees which layout oneDNN chose. `letters` names the logical dimensions in order.
std::string DescribeLayout(const memory::desc& md, const std::string& letters) {
  const dnnl_memory_desc_t& c = md.data;
  if (c.format_kind != dnnl_blocked) return "opaque";
  const dnnl_blocking_desc_t& blocking = c.format_desc.blocking;
  const int ndims = std::min<int>(c.ndims, static_cast<int>(letters.size()));
  std::vector<int> order(ndims);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return blocking.strides[a] > blocking.strides[b]; });
  std::vector<bool> blocked(ndims, false);
  for (int i = 0; i < blocking.inner_nblks; ++i) blocked[blocking.inner_idxs[i]] = true;
  std::string text;
  for (int d : order) text += blocked[d] ? static_cast<char>(letters[d] - 'a' + 'A') : letters[d];
  for (int i = 0; i < blocking.inner_nblks; ++i) {
    text += std::to_string(blocking.inner_blks[i]) + letters[blocking.inner_idxs[i]];
  }
  return text;
}

// What a builder hands to Execute: the primitive, the operator's own (plain) descriptors, which
// input is which, and the letters that name each tensor's dimensions.
struct PrimitiveSetup {
  dnnl::primitive primitive;
  dnnl::primitive_desc_base pd;
  memory::desc src_plain, weights_plain, bias_plain, dst_plain;
  std::string src_letters, weights_letters, dst_letters;
};

dnnl::primitive_attr ReluAttr(bool relu) {
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// The descriptor a primitive is created with: `plain` itself, or for kBlocked the same
// dimensions with format_tag::any, leaving the layout to oneDNN.
memory::desc Choose(const memory::desc& plain, OneDnnLayout layout) {
  return layout == OneDnnLayout::kBlocked ? memory::desc(plain.dims(), kF32, Tag::any) : plain;
}

// conv2d (groups = 1) or depthwise_conv2d (groups = C, weights [C, 1, 1, R, S]).
template <typename Shape>
PrimitiveSetup BuildConvolution(const Shape& s, OneDnnLayout layout) {
  constexpr bool depthwise = std::is_same_v<Shape, DepthwiseConv2dShape>;
  int64_t out_channels = s.c;
  if constexpr (std::is_same_v<Shape, Conv2dShape>) out_channels = s.k;
  PrimitiveSetup setup;
  setup.src_plain = memory::desc({s.n, s.c, s.h, s.w}, kF32, Tag::nchw);
  setup.dst_plain = memory::desc({s.n, out_channels, s.OutH(), s.OutW()}, kF32, Tag::nchw);
  if (depthwise) {
    setup.weights_plain = memory::desc({s.c, 1, 1, s.r, s.s}, kF32, Tag::goihw);
    setup.weights_letters = "goihw";
  } else {
    setup.weights_plain = memory::desc({out_channels, s.c, s.r, s.s}, kF32, Tag::oihw);
    setup.weights_letters = "oihw";
  }
  setup.src_letters = setup.dst_letters = "nchw";
  if (s.bias) setup.bias_plain = memory::desc({out_channels}, kF32, Tag::x);
  auto choose = [&](const memory::desc& plain) { return Choose(plain, layout); };
  // oneDNN counts dilation from 0 (no dilation), glimpse from 1.
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      choose(setup.src_plain), choose(setup.weights_plain), setup.bias_plain,
      choose(setup.dst_plain), {s.stride, s.stride}, {s.dilation - 1, s.dilation - 1},
      {s.pad, s.pad}, {s.pad, s.pad});
  dnnl::convolution_forward::primitive_desc pd(desc, ReluAttr(s.relu), GetEngine().engine);
  setup.primitive = dnnl::convolution_forward(pd);
  setup.pd = pd;
  return setup;
}

PrimitiveSetup BuildInnerProduct(const DenseShape& s, OneDnnLayout layout) {
  PrimitiveSetup setup;
  setup.src_plain = memory::desc({s.m, s.k}, kF32, Tag::nc);
  setup.weights_plain = memory::desc({s.n, s.k}, kF32, Tag::oi);
  setup.dst_plain = memory::desc({s.m, s.n}, kF32, Tag::nc);
  if (s.bias) setup.bias_plain = memory::desc({s.n}, kF32, Tag::x);
  setup.src_letters = setup.dst_letters = "nc";
  setup.weights_letters = "oi";
  auto choose = [&](const memory::desc& plain) { return Choose(plain, layout); };
  dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         choose(setup.src_plain), choose(setup.weights_plain),
                                         setup.bias_plain, choose(setup.dst_plain));
  dnnl::inner_product_forward::primitive_desc pd(desc, ReluAttr(s.relu), GetEngine().engine);
  setup.primitive = dnnl::inner_product_forward(pd);
  setup.pd = pd;
  return setup;
}

// C[b] = A[b] · B[b]ᵀ: oneDNN's weights are [B, K, N]; glimpse's B[b, n, k] is that tensor with
// strides (N·K, 1, K), format tag acb.
PrimitiveSetup BuildMatmul(const BatchMatmulShape& s, OneDnnLayout layout) {
  PrimitiveSetup setup;
  setup.src_plain = memory::desc({s.b, s.m, s.k}, kF32, Tag::abc);
  setup.weights_plain = memory::desc({s.b, s.k, s.n}, kF32, Tag::acb);
  setup.dst_plain = memory::desc({s.b, s.m, s.n}, kF32, Tag::abc);
  if (s.bias) setup.bias_plain = memory::desc({1, 1, s.n}, kF32, Tag::abc);
  setup.src_letters = setup.weights_letters = setup.dst_letters = "abc";
  auto choose = [&](const memory::desc& plain) { return Choose(plain, layout); };
  dnnl::matmul::desc desc(choose(setup.src_plain), choose(setup.weights_plain), setup.bias_plain,
                          choose(setup.dst_plain));
  dnnl::matmul::primitive_desc pd(desc, ReluAttr(s.relu), GetEngine().engine);
  setup.primitive = dnnl::matmul(pd);
  setup.pd = pd;
  return setup;
}

// Memory in the primitive's layout for `user` (the operator's data in its plain layout): the user
// memory itself when the layouts agree, else a new buffer filled by a reorder (not timed).
memory ToPrimitiveLayout(memory user, const memory::desc& wanted) {
  if (user.get_desc() == wanted) return user;
  Engine& e = GetEngine();
  memory converted(wanted, e.engine);
  dnnl::reorder(user, converted).execute(e.stream, user, converted);
  e.stream.wait();
  return converted;
}

void FillNan(memory& m) {
  float* data = static_cast<float*>(m.get_data_handle());
  std::fill(data, data + m.get_desc().get_size() / sizeof(float),
            std::numeric_limits<float>::quiet_NaN());
}

Measurement Execute(const Operator& op, PrimitiveSetup setup, OneDnnLayout layout,
                    const std::vector<std::vector<float>>& inputs, const Reference* reference,
                    const Protocol& protocol, CacheFlusher& flusher) {
  Engine& e = GetEngine();
  Measurement result;
  result.variant = OneDnnVariant(layout);
  // oneDNN reads its inputs only; the memories wrap the caller's buffers without copying.
  auto wrap = [&](const memory::desc& md, const std::vector<float>& data) {
    return memory(md, e.engine, const_cast<float*>(data.data()));
  };
  memory src_user = wrap(setup.src_plain, inputs.at(0));
  memory weights_user = wrap(setup.weights_plain, inputs.at(1));
  memory src = ToPrimitiveLayout(src_user, setup.pd.src_desc(0));
  memory weights = ToPrimitiveLayout(weights_user, setup.pd.weights_desc(0));
  std::vector<float> dst_plain_data(setup.dst_plain.get_size() / sizeof(float));
  memory dst_user(setup.dst_plain, e.engine, dst_plain_data.data());
  const memory::desc dst_desc = setup.pd.dst_desc(0);
  memory dst = dst_desc == setup.dst_plain ? dst_user : memory(dst_desc, e.engine);

  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (!setup.bias_plain.is_zero()) args[DNNL_ARG_BIAS] = wrap(setup.bias_plain, inputs.at(2));
  auto call = [&] {
    setup.primitive.execute(e.stream, args);
    e.stream.wait();
  };

  // The first call, checked: NaN first, so an element never written cannot pass.
  FillNan(dst);
  call();
  if (reference != nullptr) {
    if (dst != dst_user) {
      dnnl::reorder(dst, dst_user).execute(e.stream, dst, dst_user);
      e.stream.wait();
    }
    CheckResult check =
        CheckOutput(*reference, dst_plain_data.data(), static_cast<int64_t>(dst_plain_data.size()),
                    OperatorReductionLength(op));
    result.checked = true;
    result.passed = check.passed;
    result.check = check.message;
  } else {
    result.check = "not checked";
  }

  result.implementation = std::string(setup.pd.impl_info_str()) + " (src " +
                          DescribeLayout(src.get_desc(), setup.src_letters) + ", weights " +
                          DescribeLayout(weights.get_desc(), setup.weights_letters) + ", dst " +
                          DescribeLayout(dst.get_desc(), setup.dst_letters) + ")";
  if (layout == OneDnnLayout::kBlocked) {
    result.note = (src != src_user || weights != weights_user)
                      ? "format_tag::any; input/weight reorders before timing, not timed"
                      : "format_tag::any; oneDNN kept the plain layouts, no reorder";
  } else {
    result.note = "plain layouts, no reorder";
  }
  if (!result.checked || result.passed) {
    // Every memory the primitive reads or writes (in its own layouts where it reordered).
    std::vector<FlushedOperand> operands;
    for (const auto& [arg, mem] : args) {
      operands.push_back({mem.get_data_handle(), mem.get_desc().get_size()});
    }
    result.samples_s = TimeCalls(call, protocol, flusher, operands);
    result.median_s = Median(result.samples_s);
  }
  return result;
}

const char* IsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "older than avx2";
  }
}

}  // namespace

std::string OneDnnVariant(OneDnnLayout layout) {
  return layout == OneDnnLayout::kBlocked ? "onednn_blocked" : "onednn_plain";
}

Measurement MeasureOneDnn(const Operator& op, OneDnnLayout layout,
                          const std::vector<std::vector<float>>& inputs, const Reference* reference,
                          const Protocol& protocol, CacheFlusher& flusher) {
  try {
    PrimitiveSetup setup = std::visit(
        [&](const auto& s) {
          using Shape = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<Shape, Conv2dShape> ||
                        std::is_same_v<Shape, DepthwiseConv2dShape>) {
            return BuildConvolution(s, layout);
          } else if constexpr (std::is_same_v<Shape, DenseShape>) {
            return BuildInnerProduct(s, layout);
          } else {
            return BuildMatmul(s, layout);
          }
        },
        op);
    return Execute(op, std::move(setup), layout, inputs, reference, protocol, flusher);
  } catch (const dnnl::error& error) {
    Measurement result;
    result.variant = OneDnnVariant(layout);
    result.error = std::string("oneDNN: ") + error.what();
    result.check = "not run";
    return result;
  }
}

std::string OneDnnDescription() {
  const dnnl_version_t* version = dnnl::version();
  std::string text = "oneDNN " + std::to_string(version->major) + "." +
                     std::to_string(version->minor) + "." + std::to_string(version->patch);
  text += version->cpu_runtime == DNNL_RUNTIME_OMP ? " (OpenMP runtime)" : " (non-OpenMP runtime)";
  return text + ", ISA " + IsaName(dnnl::get_effective_cpu_isa());
}

}  // namespace glimpse::baselines
