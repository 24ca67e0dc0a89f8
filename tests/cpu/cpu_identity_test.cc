// Which CPU this is (glimpse/cpu_identity.h): a model name with a number is the name; a virtual
// machine's generic name gets the family and model that tell microarchitectures apart.
#include "glimpse/cpu_identity.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "glimpse/cpu.h"

namespace glimpse {
namespace {

std::string NameOf(const std::string& cpuinfo) {
  std::istringstream in(cpuinfo);
  return CpuNameFromCpuinfo(in);
}

// Two processors of a KVM guest, as /proc/cpuinfo prints them (abridged).
std::string GuestCpuinfo(const std::string& name, int family, int model) {
  std::string block =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: " + std::to_string(family) +
      "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: " + name +
      "\nstepping\t: 1\nflags\t\t: fpu vme\n";
  return block + "\n" + "processor\t: 1\ncpu family\t: 99\nmodel\t\t: 99\nmodel name\t: other\n\n";
}

TEST(CpuIdentity, AGenericNameGetsFamilyAndModelSoThatTwoMicroarchitecturesDiffer) {
  const std::string zen3 = NameOf(GuestCpuinfo("AMD EPYC", 25, 1));
  const std::string zen4 = NameOf(GuestCpuinfo("AMD EPYC", 25, 17));
  EXPECT_EQ(zen3, "AMD EPYC (family 25, model 1)");
  EXPECT_EQ(zen4, "AMD EPYC (family 25, model 17)");
  EXPECT_EQ(NameOf(GuestCpuinfo("Intel(R) Xeon(R) Processor", 6, 207)),
            "Intel(R) Xeon(R) Processor (family 6, model 207)");
}

TEST(CpuIdentity, ANameWithAModelNumberIsTheName) {
  EXPECT_EQ(NameOf(GuestCpuinfo("AMD EPYC 9R14 96-Core Processor", 25, 17)),
            "AMD EPYC 9R14 96-Core Processor");
  // The "model" key is not "model name": a name line before the model line still counts once.
  EXPECT_EQ(NameOf("model name\t: Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz\nmodel\t\t: 158\n"),
            "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz");
}

TEST(CpuIdentity, WhatCpuinfoDoesNotSayIsLeftOut) {
  EXPECT_EQ(NameOf("model name\t: AMD EPYC\nmodel\t\t: 1\n"), "AMD EPYC (model 1)");
  EXPECT_EQ(NameOf("model name\t: AMD EPYC\n"), "AMD EPYC");
  // No model name (some ARM kernels print none): "cpu".
  EXPECT_EQ(NameOf("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n"), "cpu");
  EXPECT_EQ(NameOf(""), "cpu");
}

TEST(CpuIdentity, ThisMachineIsNamedFromItsCpuinfo) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool named = false;
  while (std::getline(cpuinfo, line)) named = named || line.rfind("model name", 0) == 0;
  if (!named) GTEST_SKIP() << "/proc/cpuinfo names no model here";
  const std::string name = CpuDeviceName();
  EXPECT_NE(name, "cpu");
  EXPECT_EQ(name.find('\n'), std::string::npos) << name;
}

TEST(CpuIdentity, TheWarmActivationsProtocolKeepsItsRecordsUnderItsOwnDevice) {
  EXPECT_EQ(CpuRecordsDevice(false), CpuDeviceName());
  EXPECT_EQ(CpuRecordsDevice(true), CpuDeviceName() + " [activations warm]");
  const Operator op = ParseOperator("dense:M=1,N=8,K=16");
  CpuTargetOptions options;
  EXPECT_EQ(CpuTarget(options).MakeTask(op).device, CpuDeviceName());
  options.warm_activations = true;
  const CpuTarget warm(options);
  EXPECT_EQ(warm.Device(), CpuRecordsDevice(true));
  EXPECT_EQ(warm.MakeTask(op).device, CpuRecordsDevice(true));
}

}  // namespace
}  // namespace glimpse
