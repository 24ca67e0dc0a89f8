// glimpse/cpu_identity.h — which CPU this is, as the device of tuning records, the machine of a
// corpus and the training machine of a performance model (CpuDeviceName, glimpse/cpu.h).
//
// Why not the model name alone: a virtual machine's CPU is often named generically — "AMD EPYC",
// "Intel(R) Xeon(R) Processor" — and the same name then covers different microarchitectures. A
// Zen 3 guest (no AVX-512) and a Zen 4 guest (AVX-512) both call themselves "AMD EPYC", so their
// records would share a device in the database, and a model trained on one would be taken, without
// a warning, as trained on the other. A name without a digit carries no model number; it gets the
// family and model that /proc/cpuinfo gives with it, which tell microarchitectures apart.
#pragma once

#include <istream>
#include <string>

namespace glimpse {

// The first processor's "model name" of a /proc/cpuinfo text; when that name has no digit, with
// " (family F, model M)" from the same processor's "cpu family" and "model" lines (as far as they
// are given). "cpu" when there is no model name.
std::string CpuNameFromCpuinfo(std::istream& cpuinfo);

}  // namespace glimpse
