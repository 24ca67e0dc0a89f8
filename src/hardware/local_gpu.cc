// The local NVIDIA GPUs, as nvidia-smi reports them, matched against the GPU table.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/hardware.h"

namespace glimpse {
namespace {

constexpr int kTimeoutMs = 15000;  // nvidia-smi can hang on a wedged driver

// The first executable `name` on $PATH, "" when none.
std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

struct Output {
  int exit_code = -1;
  bool timed_out = false;
  std::string text;  // stdout and stderr together
};

Output Run(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error("cannot create a pipe to run nvidia-smi");
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error("cannot start nvidia-smi (fork failed)");
  }
  if (pid == 0) {  // only async-signal-safe calls until exec
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  Output out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
  char buffer[4096];
  while (true) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    if (left <= 0) {
      out.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd fd{fds[0], POLLIN, 0};
    int ready = poll(&fd, 1, left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above ends the loop
    ssize_t got = read(fds[0], buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    out.text.append(buffer, static_cast<size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!out.timed_out) out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// nvidia-smi prints "[N/A]" or "[Not Supported]" for what it cannot report.
double Number(const std::string& cell, const std::string& what, const std::string& line) {
  if (cell.empty() || cell.front() == '[') return 0.0;
  try {
    size_t used = 0;
    double value = std::stod(cell, &used);
    if (used == cell.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("cannot read {} '{}' in nvidia-smi's line '{}'", what, cell, line));
}

const char* kFields = "index,name,memory.total,clocks.max.sm,clocks.max.memory,driver_version";

std::vector<LocalGpu> Parse(const std::string& text, bool with_compute_cap, const GpuTable& table) {
  std::vector<LocalGpu> gpus;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line = Trim(line);
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream parts(line);
    for (std::string cell; std::getline(parts, cell, ',');) cells.push_back(Trim(cell));
    size_t expected = with_compute_cap ? 7 : 6;
    if (cells.size() != expected) {
      throw Error(fmt::format("nvidia-smi printed '{}'; expected {} comma-separated fields ({}{})",
                              line, expected, kFields, with_compute_cap ? ",compute_cap" : ""));
    }
    LocalGpu gpu;
    gpu.index = static_cast<int>(Number(cells[0], "index", line));
    gpu.name = cells[1];
    gpu.memory_bytes = static_cast<int64_t>(Number(cells[2], "memory.total", line)) << 20;  // MiB
    gpu.max_sm_clock_mhz = Number(cells[3], "clocks.max.sm", line);
    gpu.max_memory_clock_mhz = Number(cells[4], "clocks.max.memory", line);
    gpu.driver_version = cells[5];
    if (with_compute_cap && !cells[6].empty() && cells[6].front() != '[') {
      gpu.compute_capability = cells[6];
    }
    if (const GpuSpec* spec = table.Find(gpu.name)) {
      gpu.in_table = true;
      gpu.spec = *spec;
    } else {
      gpu.spec.name = gpu.name;
      gpu.spec.vendor = GpuVendor::kNvidia;
      gpu.spec.compute_capability = gpu.compute_capability;
      gpu.spec.memory_bytes = gpu.memory_bytes;
      gpu.spec.boost_clock_mhz = gpu.max_sm_clock_mhz;
      gpu.spec.sources = {{"memory_bytes", "nvidia-smi memory.total (this machine)"},
                          {"boost_clock_mhz", "nvidia-smi clocks.max.sm (this machine)"},
                          {"compute_capability", "nvidia-smi compute_cap (this machine)"}};
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

}  // namespace

Json LocalGpu::ToJson() const {
  return {{"index", index},
          {"name", name},
          {"driver_version", driver_version},
          {"compute_capability", compute_capability},
          {"memory_bytes", memory_bytes},
          {"max_sm_clock_mhz", max_sm_clock_mhz},
          {"max_memory_clock_mhz", max_memory_clock_mhz},
          {"in_table", in_table},
          {"spec", spec.ToJson()}};
}

std::vector<LocalGpu> DescribeLocalNvidiaGpus(const GpuTable& table) {
  std::string smi = FindOnPath("nvidia-smi");
  if (smi.empty()) return {};
  auto query = [&](bool with_compute_cap) {
    std::string fields = std::string(kFields) + (with_compute_cap ? ",compute_cap" : "");
    return Run({smi, "--query-gpu=" + fields, "--format=csv,noheader,nounits"});
  };
  bool with_compute_cap = true;
  Output out = query(true);
  if (!out.timed_out && out.exit_code != 0) {  // drivers before 510 lack compute_cap
    with_compute_cap = false;
    out = query(false);
  }
  if (out.timed_out) {
    throw Error(fmt::format("{} did not answer within {} s", smi, kTimeoutMs / 1000));
  }
  if (out.exit_code != 0) {
    throw Error(fmt::format("{} failed (exit code {}): {}", smi, out.exit_code, Trim(out.text)));
  }
  return Parse(out.text, with_compute_cap, table);
}

}  // namespace glimpse
