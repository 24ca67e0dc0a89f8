#include "run_command.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace glimpse::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

pid_t Spawn(const std::vector<std::string>& args, const std::string& work_dir,
            const std::string& out_path, const std::string& err_path) {
  std::vector<std::string> argv_storage = {GlimpseBinary()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    if (!work_dir.empty() && chdir(work_dir.c_str()) != 0) _exit(127);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    for (std::string& arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

CommandResult RunGlimpse(const std::vector<std::string>& args, const std::string& work_dir) {
  std::string dir = MakeTempDir("glimpse-cmd");
  std::string out_path = dir + "/out", err_path = dir + "/err";
  pid_t pid = Spawn(args, work_dir, out_path, err_path);
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadAll(out_path);
  result.err = ReadAll(err_path);
  return result;
}

pid_t SpawnGlimpse(const std::vector<std::string>& args) {
  return Spawn(args, "", "/dev/null", "/dev/null");
}

}  // namespace glimpse::testing
