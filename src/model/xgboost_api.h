// Thin ownership wrappers over XGBoost's C API: every call's return code is checked and a failure
// becomes a glimpse::Error carrying XGBGetLastError().
#pragma once

#include <xgboost/c_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/json.h"

namespace glimpse::model {

// Throws Error("<what>: <XGBoost's last error>") when rc != 0.
void CheckXgb(int rc, const std::string& what);

// A dense float32 matrix handed to XGBoost (row-major, rows × cols).
class XgbMatrix {
 public:
  XgbMatrix(const std::vector<float>& values, size_t rows, size_t cols);
  ~XgbMatrix();
  XgbMatrix(const XgbMatrix&) = delete;
  XgbMatrix& operator=(const XgbMatrix&) = delete;

  void SetFloatInfo(const char* field, const std::vector<float>& values);
  // "group" for ranking: the sizes of consecutive row groups, in row order.
  void SetUIntInfo(const char* field, const std::vector<unsigned>& values);
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

class XgbBooster {
 public:
  // A booster whose training data (prediction cache) is `cache` (may be null).
  explicit XgbBooster(const XgbMatrix* cache);
  ~XgbBooster();
  XgbBooster(const XgbBooster&) = delete;
  XgbBooster& operator=(const XgbBooster&) = delete;

  void SetParam(const std::string& name, const std::string& value);
  // XGBoost's "seed" is a signed 64-bit integer and a larger value is an error at the first
  // boosting round; glimpse's seeds are any uint64 (a hash, say), so the top bit is dropped. Seeds
  // below 2^63 are passed unchanged.
  void SetSeed(uint64_t seed);
  void UpdateOneIter(int iteration, const XgbMatrix& train);
  // Raw margins (option_mask 1); for rank:pairwise and reg:squarederror they equal predictions.
  std::vector<float> PredictMargin(const XgbMatrix& data) const;
  std::string SaveJson() const;
  // Checked first (CheckXgbModelJson): a malformed model is an Error, never handed to XGBoost.
  void LoadJson(const Json& model);
  void LoadJson(const std::string& json);  // parsed, then as above

 private:
  BoosterHandle handle_ = nullptr;
};

}  // namespace glimpse::model
