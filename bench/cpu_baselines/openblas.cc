#include "openblas.h"

#include <cblas.h>
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <variant>

#include "glimpse/error.h"

namespace glimpse::baselines {
namespace {

// The operator as a batch of row-major matrix products C[b] = A[b] · B[b]ᵀ.
struct Gemm {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool bias = false, relu = false;
};

Gemm AsGemm(const Operator& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) {
    return {1, d->m, d->n, d->k, d->bias, d->relu};
  }
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) {
    return {b->b, b->m, b->n, b->k, b->bias, b->relu};
  }
  throw Error("OpenBLAS runs dense and batch_matmul only, not " + OperatorName(op));
}

// C[b, i, j] += bias[j], then ReLU: the epilogue BLAS does not have.
void Epilogue(const Gemm& g, const float* bias, float* c) {
  if (!g.bias && !g.relu) return;
  for (int64_t row = 0; row < g.batch * g.m; ++row) {
    float* out = c + row * g.n;
    if (g.bias) {
      for (int64_t j = 0; j < g.n; ++j) out[j] += bias[j];
    }
    if (g.relu) {
      for (int64_t j = 0; j < g.n; ++j) out[j] = std::max(out[j], 0.0f);
    }
  }
}

Measurement Run(const Operator& op, const std::string& variant, const std::string& implementation,
                const std::string& note, const std::function<void(float*)>& compute,
                const std::vector<std::vector<float>>& inputs, const Reference* reference,
                const Protocol& protocol, CacheFlusher& flusher) {
  Measurement result;
  result.variant = variant;
  result.implementation = implementation;
  result.note = note;
  const Gemm g = AsGemm(op);
  std::vector<float> c(static_cast<size_t>(g.batch * g.m * g.n),
                       std::numeric_limits<float>::quiet_NaN());
  compute(c.data());
  if (reference != nullptr) {
    CheckResult check = CheckOutput(*reference, c.data(), static_cast<int64_t>(c.size()),
                                    OperatorReductionLength(op));
    result.checked = true;
    result.passed = check.passed;
    result.check = check.message;
  } else {
    result.check = "not checked";
  }
  if (!result.checked || result.passed) {
    std::vector<FlushedOperand> operands = {{c.data(), c.size() * sizeof(float)}};
    for (const auto& input : inputs)
      operands.push_back({input.data(), input.size() * sizeof(float)});
    result.samples_s = TimeCalls([&] { compute(c.data()); }, protocol, flusher, operands);
    result.median_s = Median(result.samples_s);
  }
  return result;
}

}  // namespace

std::string ConfigureOpenBlas(const std::vector<int>& cpus) {
  const int threads = static_cast<int>(cpus.size());
  openblas_set_num_threads(threads);
  // The OpenMP build runs on OpenMP's threads, which OMP_PROC_BIND=close already pins, and has no
  // openblas_setaffinity: look the function up rather than link it, so either build links.
  using SetAffinity = int (*)(int, size_t, cpu_set_t*);
  const auto set_affinity =
      reinterpret_cast<SetAffinity>(dlsym(RTLD_DEFAULT, "openblas_setaffinity"));
  if (openblas_get_parallel() == OPENBLAS_OPENMP || set_affinity == nullptr) {
    return std::to_string(openblas_get_num_threads()) +
           " threads, OpenMP's (pinned one per CPU by OMP_PROC_BIND=close)";
  }
  std::string pinned;
  int failures = 0, last_error = 0;
  for (int index = 0; index < threads; ++index) {
    // The caller is OpenBLAS's last thread index; keep it where OpenMP put the initial thread.
    const int cpu = index == threads - 1 ? cpus[0] : cpus[index + 1];
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (set_affinity(index, sizeof(set), &set) != 0) {
      ++failures;
      last_error = errno;
      continue;
    }
    pinned += (pinned.empty() ? "" : ",") + std::to_string(cpu);
  }
  std::string text = std::to_string(openblas_get_num_threads()) + " threads";
  text += failures == 0 ? ", pinned one per CPU (" + pinned + ")"
                        : ", " + std::to_string(failures) + " could not be pinned (" +
                              std::strerror(last_error) + ")";
  return text;
}

std::string OpenBlasDescription() {
  std::string text = openblas_get_config();
  // openblas_get_config() ends with a space in some builds.
  while (!text.empty() && text.back() == ' ') text.pop_back();
  text += std::string(", core ") + openblas_get_corename();
  switch (openblas_get_parallel()) {
    case OPENBLAS_SEQUENTIAL:
      text += ", sequential build";
      break;
    case OPENBLAS_THREAD:
      text += ", pthreads";
      break;
    default:
      text += ", OpenMP build";
      break;
  }
  return text;
}

bool OpenBlasSgemmApplies(const Operator& op) {
  return std::holds_alternative<DenseShape>(op) || std::holds_alternative<BatchMatmulShape>(op);
}

bool OpenBlasSgemvApplies(const Operator& op) {
  const auto* d = std::get_if<DenseShape>(&op);
  return d != nullptr && d->m == 1;
}

Measurement MeasureOpenBlasSgemm(const Operator& op, const std::vector<std::vector<float>>& inputs,
                                 const Reference* reference, const Protocol& protocol,
                                 CacheFlusher& flusher) {
  const Gemm g = AsGemm(op);
  const float* a = inputs.at(0).data();
  const float* b = inputs.at(1).data();
  const float* bias = g.bias ? inputs.at(2).data() : nullptr;
  auto compute = [=](float* c) {
    for (int64_t batch = 0; batch < g.batch; ++batch) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, g.m, g.n, g.k, 1.0f,
                  a + batch * g.m * g.k, g.k, b + batch * g.n * g.k, g.k, 0.0f,
                  c + batch * g.m * g.n, g.n);
    }
    Epilogue(g, bias, c);
  };
  std::string note = g.batch > 1 ? "one sgemm per batch; " : "";
  note += g.bias || g.relu ? "bias/ReLU added by a separate loop, timed" : "no epilogue";
  return Run(op, "openblas_sgemm", "cblas_sgemm(RowMajor, NoTrans, Trans)", note, compute, inputs,
             reference, protocol, flusher);
}

Measurement MeasureOpenBlasSgemv(const Operator& op, const std::vector<std::vector<float>>& inputs,
                                 const Reference* reference, const Protocol& protocol,
                                 CacheFlusher& flusher) {
  if (!OpenBlasSgemvApplies(op)) throw Error("sgemv applies to dense with M=1 only");
  const Gemm g = AsGemm(op);
  const float* a = inputs.at(0).data();
  const float* b = inputs.at(1).data();
  const float* bias = g.bias ? inputs.at(2).data() : nullptr;
  // C[0, n] = Σ_k B[n, k] · A[0, k]: B (N × K, row-major) times the vector A.
  auto compute = [=](float* c) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, g.n, g.k, 1.0f, b, g.k, a, 1, 0.0f, c, 1);
    Epilogue(g, bias, c);
  };
  const std::string note =
      g.bias || g.relu ? "bias/ReLU added by a separate loop, timed" : "no epilogue";
  return Run(op, "openblas_sgemv", "cblas_sgemv(RowMajor, NoTrans) on B", note, compute, inputs,
             reference, protocol, flusher);
}

}  // namespace glimpse::baselines
