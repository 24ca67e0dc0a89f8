// The files that describe hardware and the Glimpse tuner's models: the GPU table, the Blueprint,
// the prior generator, the acquisition network, the validity ensemble, and the tuner's options
// (`--tuner-option` JSON). Each is JSON; the input is tried as every one of them.
#include "fuzz_input.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/hardware.h"
#include "glimpse/prior_generator.h"
#include "glimpse/validity_ensemble.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  const std::optional<Json> json = fuzz::AsJson(data, size);
  if (!json) return 0;
  fuzz::Expect([&] { GpuTable::FromJson(*json, "gpus.json"); });
  fuzz::Expect([&] { Blueprint::FromJson(*json, "blueprint.json"); });
  fuzz::Expect([&] { PriorGenerator::FromJson(*json, "prior.json"); });
  fuzz::Expect([&] { AcquisitionNetwork::FromJson(*json, "acquisition.json"); });
  fuzz::Expect([&] { ValidityEnsembleModel::FromJson(*json, "validity.json"); });
  fuzz::Expect([&] { GlimpseTunerOptions::FromJson(*json); });
  return 0;
}
