// Two IR features of glimpse/loop_nest.h: literal tables (TensorRole::kLiteral) and guarded stores
// (Access::zero_outside on a destination) — what Validate accepts and refuses, what EmitCpp
// writes, and a small nest using both compiled by the CPU builder and compared with a hand
// computation.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/loop_nest.h"

namespace glimpse {
namespace {

using E = AffineExpr;

// out[r][i] = L[r][i] · x[i] for i < 3, as loops r < 2, i < 4 whose last column (i = 3) lies
// outside out[2][3]: both statements have guarded destinations. L is a literal table.
LoopNest ScaledRows(const std::vector<float>& table) {
  LoopNest nest;
  nest.name = "scaled_rows";
  int x = nest.AddTensor({"x", {4}, "I", DType::kFloat32, TensorRole::kInput, 0});
  int l = nest.AddTensor({"L", {2, 4}, "RI", DType::kFloat32, TensorRole::kLiteral});
  nest.tensors[l].values = table;
  int out = nest.AddTensor({"out", {2, 3}, "RI", DType::kFloat32, TensorRole::kOutput});
  Access dst{out, {E::Var("r"), E::Var("i")}, /*zero_outside=*/true};
  Stmt zero(StmtKind::kZero, dst);
  Stmt mac(StmtKind::kMultiplyAdd, dst, Access{l, {E::Var("r"), E::Var("i")}},
           Access{x, {E::Var("i")}});
  nest.body.push_back(Node::MakeLoop(
      {"r", 2}, {Node::MakeLoop({"i", 4}, {Node::MakeStmt(zero), Node::MakeStmt(mac)})}));
  return nest;
}

const std::vector<float> kTable = {0.1f, -1.5f, 2.0f, 7.0f, 1e-3f, 3.0f, -0.125f, 9.0f};

TEST(LoopNestLiteralTest, ValidateAcceptsLiteralReadsAndGuardedStores) {
  EXPECT_NO_THROW(ScaledRows(kTable).Validate());
}

TEST(LoopNestLiteralTest, ValidateRefusesATableOfTheWrongSize) {
  LoopNest nest = ScaledRows({1.0f, 2.0f});
  try {
    nest.Validate();
    FAIL() << "accepted 2 values for 8 elements";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("literal table L has 2 values"), std::string::npos) << message;
    EXPECT_NE(message.find("needs 8"), std::string::npos) << message;
  }
}

TEST(LoopNestLiteralTest, ValidateRefusesNonFiniteValues) {
  std::vector<float> table = kTable;
  table[3] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(ScaledRows(table).Validate(), Error);
}

TEST(LoopNestLiteralTest, ValidateRefusesAnUnguardedStoreOutOfBounds) {
  LoopNest nest = ScaledRows(kTable);
  Stmt& zero = nest.body[0].body[0].body[0].stmt;
  zero.dst.zero_outside = false;
  try {
    nest.Validate();
    FAIL() << "accepted out[r][3]";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out dimension 1 is indexed in [0, 3]"), std::string::npos)
        << e.what();
  }
}

TEST(LoopNestLiteralTest, ValidateRefusesWritesToALiteral) {
  LoopNest nest = ScaledRows(kTable);
  int l = nest.TensorIndex("L");
  nest.body[0].body[0].body[0].stmt.dst = Access{l, {E::Var("r"), E::Var("i")}};
  EXPECT_THROW(nest.Validate(), Error);
  // Nor may prepare write one.
  LoopNest prepared = ScaledRows(kTable);
  prepared.prepare.push_back(Node::MakeLoop(
      {"p", 4}, {Node::MakeStmt(Stmt(StmtKind::kZero, Access{l, {E::Const(0), E::Var("p")}}))}));
  EXPECT_THROW(prepared.Validate(), Error);
}

TEST(LoopNestLiteralTest, PrepareMayReadALiteral) {
  LoopNest nest = ScaledRows(kTable);
  int l = nest.TensorIndex("L");
  int p = nest.AddTensor({"P", {4}, "I", DType::kFloat32, TensorRole::kPrepared});
  nest.prepare.push_back(
      Node::MakeLoop({"p", 4}, {Node::MakeStmt(Stmt(StmtKind::kCopy, Access{p, {E::Var("p")}},
                                                    Access{l, {E::Const(1), E::Var("p")}}))}));
  EXPECT_NO_THROW(nest.Validate());
}

TEST(LoopNestLiteralTest, NestToStringListsTheTable) {
  std::string text = NestToString(ScaledRows(kTable));
  EXPECT_NE(text.find("literal L[8] = {0.1, -1.5, 2, 7, 0.001, 3, -0.125, 9}"), std::string::npos)
      << text;
}

TEST(LoopNestLiteralTest, EmitCppWritesExactTablesAndGuards) {
  std::string code = EmitCpp(ScaledRows(kTable), "k");
  // Hexadecimal float literals: 0.1f exactly, and -1.5.
  EXPECT_NE(code.find("static const float L[8] = {0x1.99999ap-4f, -0x1.8p+0f,"), std::string::npos)
      << code;
  // The guard covers the column that can leave the output, not the row that cannot.
  EXPECT_NE(code.find("if ((i) < 3) { out[3 * r + i] = 0.0f; }"), std::string::npos) << code;
  EXPECT_EQ(code.find("(r) < 2"), std::string::npos) << code;
}

// The nest compiled by the CPU builder: the table's values are used exactly and nothing outside
// out[2][3] is written (the two floats after it keep their sentinel).
TEST(LoopNestLiteralTest, CompiledNestMatchesHandComputation) {
  std::string dir = testing::MakeTempDir("glimpse-literal-test");
  CpuBuilder builder(testing::FastBuild(dir));
  std::vector<BuildResult> builds = builder.BuildSources({{EmitCpp(ScaledRows(kTable), "k"), "k"}});
  ASSERT_EQ(builds.size(), 1u);
  ASSERT_EQ(builds[0].status, MeasureStatus::kOk) << builds[0].error;
  // The artifact is "<library>:<symbol>".
  const std::string& artifact = builds[0].artifact;
  const std::string path = artifact.substr(0, artifact.rfind(':'));
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  using Kernel = void (*)(const float* const*, float*);
  auto kernel = reinterpret_cast<Kernel>(dlsym(library, "k"));
  ASSERT_NE(kernel, nullptr);
  const std::vector<float> x = {3.0f, -2.0f, 0.5f, 11.0f};
  std::vector<float> out(8, -777.0f);
  const float* inputs[] = {x.data()};
  kernel(inputs, out.data());
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(out[r * 3 + i], kTable[r * 4 + i] * x[i]) << r << ", " << i;
    }
  }
  EXPECT_EQ(out[6], -777.0f);
  EXPECT_EQ(out[7], -777.0f);
  dlclose(library);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace glimpse
