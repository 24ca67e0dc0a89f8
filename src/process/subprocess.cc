#include "glimpse/subprocess.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "glimpse/error.h"

extern char** environ;

namespace glimpse::process {

namespace {

int OpenOutput(const std::string& path) {
  return path.empty() ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                      : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

Child StartChild(const ChildOptions& options) {
  // Everything the child needs is prepared before fork: between fork and exec only
  // async-signal-safe calls are made, since the parent may have other threads.
  std::vector<char*> argv;
  for (const std::string& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) env_storage.emplace_back(*e);
  for (const std::string& e : options.extra_env) env_storage.push_back(e);
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  if (options.pipes && (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)) {
    throw Error(std::string("cannot create pipes: ") + std::strerror(errno));
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : options.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw Error("cpu " + std::to_string(cpu) + " out of range");
    CPU_SET(cpu, &cpus);
  }
  int out_fd = options.pipes ? -1 : OpenOutput(options.stdout_path);
  int err_fd = OpenOutput(options.stderr_path);
  pid_t pid = fork();
  if (pid < 0) throw Error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    // Affinity is inherited across exec and by the program's own children (cc1plus, as).
    if (!options.cpus.empty() && sched_setaffinity(0, sizeof(cpus), &cpus) != 0) _exit(126);
    if (options.pipes) {
      dup2(in_pipe[0], 0);
      dup2(out_pipe[1], 1);
    } else {
      int null_in = open("/dev/null", O_RDONLY);
      dup2(null_in, 0);
      dup2(out_fd, 1);
    }
    dup2(err_fd, 2);
    execvpe(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that a kill right after start reaches the group
  if (out_fd >= 0) close(out_fd);
  if (err_fd >= 0) close(err_fd);
  Child child;
  child.pid = pid;
  if (options.pipes) {
    close(in_pipe[0]);
    close(out_pipe[1]);
    child.to_child = in_pipe[1];
    child.from_child = out_pipe[0];
  }
  return child;
}

ChildExit WaitChild(pid_t pid, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::microseconds(200);
  while (true) {
    int status = 0;
    pid_t done = waitpid(pid, &status, timeout_s > 0 ? WNOHANG : 0);
    if (done == pid) {
      ChildExit exit;
      exit.signaled = WIFSIGNALED(status);
      exit.code = exit.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
      return exit;
    }
    if (done < 0 && errno != EINTR) return ChildExit{false, true, SIGKILL};
    if (timeout_s > 0 && std::chrono::steady_clock::now() >= deadline) {
      KillChild(pid);
      return ChildExit{true, true, SIGKILL};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20'000));
  }
}

void KillChild(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace glimpse::process
