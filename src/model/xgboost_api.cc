#include "model/xgboost_api.h"

#include <cmath>

#include "glimpse/error.h"
#include "model/xgboost_model_check.h"

namespace glimpse::model {

void CheckXgb(int rc, const std::string& what) {
  if (rc != 0) throw Error(what + ": " + XGBGetLastError());
}

XgbMatrix::XgbMatrix(const std::vector<float>& values, size_t rows, size_t cols) {
  // NaN marks a missing value; features are never NaN, so every entry is present.
  CheckXgb(XGDMatrixCreateFromMat(values.data(), rows, cols, std::nanf(""), &handle_),
           "XGBoost: creating a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
}

XgbMatrix::~XgbMatrix() {
  if (handle_ != nullptr) XGDMatrixFree(handle_);
}

void XgbMatrix::SetFloatInfo(const char* field, const std::vector<float>& values) {
  CheckXgb(XGDMatrixSetFloatInfo(handle_, field, values.data(), values.size()),
           std::string("XGBoost: setting '") + field + "'");
}

void XgbMatrix::SetUIntInfo(const char* field, const std::vector<unsigned>& values) {
  CheckXgb(XGDMatrixSetUIntInfo(handle_, field, values.data(), values.size()),
           std::string("XGBoost: setting '") + field + "'");
}

XgbBooster::XgbBooster(const XgbMatrix* cache) {
  DMatrixHandle dmats[1] = {cache != nullptr ? cache->handle() : nullptr};
  CheckXgb(XGBoosterCreate(dmats, cache != nullptr ? 1 : 0, &handle_),
           "XGBoost: creating a booster");
}

XgbBooster::~XgbBooster() {
  if (handle_ != nullptr) XGBoosterFree(handle_);
}

void XgbBooster::SetSeed(uint64_t seed) {
  SetParam("seed", std::to_string(seed & 0x7fffffffffffffffULL));
}

void XgbBooster::SetParam(const std::string& name, const std::string& value) {
  CheckXgb(XGBoosterSetParam(handle_, name.c_str(), value.c_str()),
           "XGBoost: parameter '" + name + "' = '" + value + "'");
}

void XgbBooster::UpdateOneIter(int iteration, const XgbMatrix& train) {
  CheckXgb(XGBoosterUpdateOneIter(handle_, iteration, train.handle()),
           "XGBoost: boosting round " + std::to_string(iteration));
}

std::vector<float> XgbBooster::PredictMargin(const XgbMatrix& data) const {
  bst_ulong length = 0;
  const float* result = nullptr;
  CheckXgb(XGBoosterPredict(handle_, data.handle(), /*option_mask=*/1, /*ntree_limit=*/0,
                            /*training=*/0, &length, &result),
           "XGBoost: predicting");
  return std::vector<float>(result, result + length);
}

std::string XgbBooster::SaveJson() const {
  bst_ulong length = 0;
  const char* bytes = nullptr;
  CheckXgb(XGBoosterSaveModelToBuffer(handle_, R"({"format": "json"})", &length, &bytes),
           "XGBoost: serialising the model");
  return std::string(bytes, length);
}

void XgbBooster::LoadJson(const Json& model) {
  CheckXgbModelJson(model);
  const std::string json = model.dump();
  CheckXgb(XGBoosterLoadModelFromBuffer(handle_, json.data(), json.size()),
           "XGBoost: reading the model");
}

void XgbBooster::LoadJson(const std::string& json) {
  Json parsed;
  try {
    parsed = Json::parse(json);
  } catch (const Json::exception& e) {
    throw Error(std::string("XGBoost model: not JSON: ") + e.what());
  }
  LoadJson(parsed);
}

}  // namespace glimpse::model
