#include "glimpse/build_support.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "glimpse/error.h"

namespace glimpse::process {

namespace fs = std::filesystem;

std::string MakeBuildDir(const std::string& given, const std::string& prefix) {
  if (!given.empty()) {
    std::error_code error;
    fs::create_directories(given, error);
    if (error) throw Error("cannot create the build directory " + given + ": " + error.message());
    return given;
  }
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a build directory under " + fs::temp_directory_path().string());
  }
  return pattern;
}

int BuildJobs(int given) {
  return given > 0 ? given : std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
}

std::vector<int> AllowedCpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

int64_t UsableMemoryBytes() {
  int64_t usable = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t value = 0;
  while (meminfo >> key >> value) {
    std::getline(meminfo, unit);
    if (key == "MemTotal:") {
      usable = value * 1024;  // kB
      break;
    }
  }
  // The cgroup this process is in ("0::/path" in cgroup v2), and its limit unless "max".
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroup, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    std::ifstream limit("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
    std::string text;
    if (limit >> text && !text.empty() && text != "max") {
      const int64_t bytes = std::atoll(text.c_str());
      if (bytes > 0) usable = usable > 0 ? std::min(usable, bytes) : bytes;
    }
  }
  return usable;
}

std::string TruncateMessage(std::string text, size_t max_chars) {
  if (text.size() > max_chars) {
    text.resize(max_chars);
    text += " …";
  }
  return text;
}

void ForEachInParallel(size_t count, int threads, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  // An exception may not leave a thread (that would end the process), so the first one is kept
  // and rethrown on the calling thread once every worker has stopped.
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto drive = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        next.store(count);  // hand out nothing more
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t size = std::min(count, static_cast<size_t>(std::max(1, threads)));
  for (size_t t = 0; t < size; ++t) pool.emplace_back(drive);
  for (std::thread& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace glimpse::process
