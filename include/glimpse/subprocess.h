// Child processes for the builder (compiler runs) and the runner (its worker): started in their
// own process group so that a timeout kills the whole tree (the compiler driver and cc1plus).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace glimpse::process {

struct ChildOptions {
  std::vector<std::string> argv;       // argv[0] is looked up in PATH
  std::vector<std::string> extra_env;  // "NAME=value" added to this process's environment
  std::string stdout_path;             // empty: /dev/null (ignored with pipes)
  std::string stderr_path;             // empty: /dev/null
  bool pipes = false;                  // connect stdin / stdout to pipes (to_child, from_child)
  std::vector<int> cpus;  // run only on these CPUs (and so do its children); empty: any
};

struct Child {
  pid_t pid = -1;
  int to_child = -1;    // write end of the child's stdin (pipes only)
  int from_child = -1;  // read end of the child's stdout (pipes only)
};

// Throws Error when the process cannot be created; a program that cannot be executed exits 127.
Child StartChild(const ChildOptions& options);

struct ChildExit {
  bool timed_out = false;
  bool signaled = false;
  int code = 0;  // exit status, or the signal number when `signaled`
};

// Waits up to `timeout_s` (≤ 0: forever); on timeout kills the child's process group with SIGKILL
// and reaps it.
ChildExit WaitChild(pid_t pid, double timeout_s);
// SIGKILL to the process group, then reaps. Safe to call on an exited, unreaped child.
void KillChild(pid_t pid);

}  // namespace glimpse::process
