// What every builder needs around its compiler, whatever the target: a directory for its units,
// a number of parallel compiler runs, compiler messages cut to a readable length, and a pool of
// threads that each drive one compiler run at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace glimpse::process {

// `given` (created when missing), or — when empty — a fresh directory
// <temp>/<prefix>-XXXXXX. Throws Error naming the directory that cannot be made.
std::string MakeBuildDir(const std::string& given, const std::string& prefix);

// `given` when > 0, else the number of online CPUs (at least 1).
int BuildJobs(int given);

// The CPUs this process may run on (its affinity mask), in increasing order; {0} when unknown.
std::vector<int> AllowedCpus();

// Bytes of memory this process may use: MemTotal of /proc/meminfo, or the limit of its cgroup
// (cgroup v2 memory.max) when that is lower; 0 when neither can be read.
int64_t UsableMemoryBytes();

// `text` cut to `max_chars` bytes, with " …" after a cut.
std::string TruncateMessage(std::string text, size_t max_chars);

// Calls work(i) for every i in [0, count) on up to `threads` threads, each taking the next index
// when it finishes one; returns when all are done. When a call throws, no index is handed out
// after it, the calls already running finish, and the first exception is rethrown here.
void ForEachInParallel(size_t count, int threads, const std::function<void(size_t)>& work);

}  // namespace glimpse::process
