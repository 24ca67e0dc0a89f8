#include "recorded_source.h"

#include "glimpse/error.h"

namespace glimpse::cli {

void RecordedSourceFlags::AddTo(CLI::App* command, bool positional) {
  const char* help =
      "recorded space to replay: a Kernel Tuner cache file (.json or .json.gz) or a T4 results "
      "file";
  if (positional) {
    command->add_option("file", path, help)->required();
  } else {
    // Not required here: `glimpse tune --target cpu` needs no recorded space; the replay path
    // checks for it (Load).
    command->add_option("--space", path, help);
  }
  command->add_option("--t1", t1_path,
                      "T1 input file giving the knobs' order and the restrictions "
                      "(Conditions) of the space");
  command->add_option("--restrict", restrictions,
                      "a restriction in Kernel Tuner syntax, e.g. 'block_size_x*block_size_y<=1024'"
                      " (repeatable)");
  command->add_option("--device", device,
                      "device name, for files that have none (or to override the file's)");
}

RecordedSpace RecordedSourceFlags::Load() const {
  if (path.empty()) {
    throw Error(
        "--space is required: a recorded space to replay (or tune generated kernels "
        "with --target cpu and --model NAME or --op TEXT)");
  }
  ReplayLoadOptions options;
  options.t1_path = t1_path;
  options.restrictions = restrictions;
  options.device_name = device;
  return LoadRecordedSpace(path, options);
}

}  // namespace glimpse::cli
