// Replay-loop overhead per measurement: the real time the whole loop (strategy, replay lookup,
// bookkeeping, and optionally the database) spends per replayed measurement. Goal: well under
// 1 ms, so that studies of thousands of tuning runs are cheap.
//
// Usage: bench_replay_loop [recorded-file [t1-file]]
//   default: the GEMM space on the RTX 2080 Ti from ../shared when present, else the bundled
//   convolution space.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "glimpse/database.h"
#include "glimpse/evaluation.h"
#include "glimpse/replay.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"

namespace fs = std::filesystem;
using namespace glimpse;

int main(int argc, char** argv) {
  std::string path, t1;
  std::vector<std::string> restrictions;
  if (argc > 1) {
    path = argv[1];
    if (argc > 2) t1 = argv[2];
  } else {
    fs::path shared = fs::path(GLIMPSE_SOURCE_DIR).parent_path() /
                      "shared/datasets/benchmark_hub/gemm/RTX_2080_Ti.json.gz";
    if (fs::exists(shared)) {
      path = shared.string();
      // CLBlast's GEMM restrictions: the recorded space is exactly the configurations they admit.
      restrictions = {"KWG % KWI == 0",
                      "MWG % (MDIMC * VWM) == 0",
                      "NWG % (NDIMC * VWN) == 0",
                      "MWG % (MDIMA * VWM) == 0",
                      "NWG % (NDIMB * VWN) == 0",
                      "KWG % ((MDIMC * NDIMC)/MDIMA) == 0",
                      "KWG % ((MDIMC * NDIMC)/NDIMB) == 0"};
    } else {
      path = std::string(GLIMPSE_SOURCE_DIR) + "/data/recorded/convolution_milo/A100.json.gz";
      t1 = std::string(GLIMPSE_SOURCE_DIR) + "/data/recorded/t1/convolution_milo.json";
    }
  }
  ReplayLoadOptions load;
  load.t1_path = t1;
  load.restrictions = restrictions;
  auto recorded = std::make_shared<RecordedSpace>(LoadRecordedSpace(path, load));
  Task task = recorded->MakeTask();
  std::cout << fmt::format(
      "replay-loop overhead — {}\n{} ({} recorded configurations, {} valid, {} restrictions)\n\n",
      MachineDescription(), path, recorded->entries.size(), task.space.CountValid(),
      restrictions.size());
  std::cout << fmt::format("{:<8} {:<10} {:>7} {:>14} {:>12} {:>16}\n", "tuner", "database",
                           "batch", "measurements", "total (s)", "per meas. (µs)");

  for (const char* tuner_name : {"random", "ga"}) {
    for (bool with_database : {false, true}) {
      for (int batch : {16, 64}) {
        const int64_t budget = std::min<int64_t>(4000, recorded->entries.size());
        auto tuner = MakeTuner(tuner_name);
        ReplayRunner runner(recorded);
        NullBuilder builder;
        std::string db_path = (fs::temp_directory_path() / "glimpse-bench-replay.db").string();
        fs::remove(db_path);
        fs::remove(db_path + "-wal");
        fs::remove(db_path + "-shm");
        std::unique_ptr<Database> database;
        if (with_database) database = std::make_unique<Database>(db_path);
        TuneOptions options;
        options.max_measurements = budget;
        options.batch_size = batch;
        options.seed = 1;
        options.progress = ProgressMode::kQuiet;
        auto start = std::chrono::steady_clock::now();
        TuneSummary summary = Tune(task, *tuner, builder, runner, database.get(), options);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << fmt::format("{:<8} {:<10} {:>7} {:>14} {:>12.3f} {:>16.1f}\n", tuner_name,
                                 with_database ? "sqlite" : "none", batch, summary.measurements,
                                 seconds, 1e6 * seconds / summary.measurements);
      }
    }
  }
  return 0;
}
