// Helpers of the driver and runner tests (tests/cuda/cuda_driver_test.cc, gpu_runner_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#ifndef GLIMPSE_FAKE_CUDA_DRIVER
#define GLIMPSE_FAKE_CUDA_DRIVER ""
#endif
#ifndef GLIMPSE_FAKE_GPU_DRIVER
#define GLIMPSE_FAKE_GPU_DRIVER ""
#endif

namespace glimpse::cuda_test {

// EXPECT_PRED_FORMAT2(HasPart, text, part): `text` contains `part`.
inline ::testing::AssertionResult HasPart(const char* text_expr, const char* part_expr,
                                          const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << text_expr << " is \"" << text << "\", which lacks "
                                       << part_expr << " (\"" << part << "\")";
}

// EXPECT_PRED_FORMAT2(StartsWith, text, prefix).
inline ::testing::AssertionResult StartsWith(const char* text_expr, const char* prefix_expr,
                                             const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << text_expr << " is \"" << text << "\", which does not start with " << prefix_expr;
}

// Sets (or, with nullopt, unsets) an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The fake libcuda built with the tests (tests/cuda/fake_driver); $GLIMPSE_FAKE_CUDA_DRIVER
// overrides the built path (the GPU-machine bundle sets it). Empty when neither exists.
inline std::string FakeDriver() {
  const char* env = std::getenv("GLIMPSE_FAKE_CUDA_DRIVER");
  return env != nullptr && *env != '\0' ? env : GLIMPSE_FAKE_CUDA_DRIVER;
}

// The emulating fake driver (tests/cuda/fake_driver, GLIMPSE_FAKE_CUDA_EMULATE);
// $GLIMPSE_FAKE_GPU_DRIVER overrides the built path. Empty when neither exists.
inline std::string FakeGpu() {
  const char* env = std::getenv("GLIMPSE_FAKE_GPU_DRIVER");
  return env != nullptr && *env != '\0' ? env : GLIMPSE_FAKE_GPU_DRIVER;
}

// A path no driver lives at.
inline constexpr const char* kMissingDriver = "/nonexistent/glimpse/libcuda.so.1";

}  // namespace glimpse::cuda_test
