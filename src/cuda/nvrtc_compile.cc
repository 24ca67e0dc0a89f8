// CompileCuda: CUDA C++ → CUBIN through NVRTC, and the kernels' resource usage.
//
// Map of this file:
//   - NVRTC in this process (CompileHere): program, options, log, CUBIN.
//   - Isolation (CompileCuda): NVRTC cannot be interrupted, so each compilation runs in a forked
//     child that sends its log and CUBIN back through a pipe; the parent waits with a deadline and
//     SIGKILLs the child when it passes. The child only calls NVRTC, write() and _exit(); the
//     parent never compiles in isolated mode, so no NVRTC lock can be held across the fork.
//   - ptxas' report (ParsePtxasReport) and the CUBIN's ELF attributes (ReadCubinResources).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <regex>
#include <sstream>

#include "glimpse/build_support.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"

#ifdef GLIMPSE_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace glimpse {

namespace {

struct RawCompile {
  bool ok = false;
  std::string log;
  std::string cubin;
};

#ifdef GLIMPSE_HAVE_NVRTC

RawCompile CompileHere(const std::string& code, const std::string& arch,
                       const std::vector<std::string>& extra_options) {
  RawCompile out;
  nvrtcProgram program = nullptr;
  nvrtcResult result =
      nvrtcCreateProgram(&program, code.c_str(), "glimpse_kernel.cu", 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(result);
    return out;
  }
  // -v makes ptxas print each function's registers, shared memory, stack frame and spills into
  // the program log; no fast math, so results match the float32 reference.
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17",
                                      "--ptxas-options=-v"};
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> pointers;
  for (const std::string& option : options) pointers.push_back(option.c_str());
  result = nvrtcCompileProgram(program, static_cast<int>(pointers.size()), pointers.data());
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    nvrtcGetProgramLog(program, out.log.data());
    out.log.resize(log_size - 1);  // the terminating NUL
  }
  if (result != NVRTC_SUCCESS) {
    // NVRTC does not always say why (ptxas' "too much shared data" stays silent): name the
    // result so that the log is never empty.
    out.log += std::string(out.log.empty() || out.log.back() == '\n' ? "" : "\n") +
               "nvrtcCompileProgram: " + nvrtcGetErrorString(result);
  } else {
    size_t cubin_size = 0;
    if (nvrtcGetCUBINSize(program, &cubin_size) == NVRTC_SUCCESS && cubin_size > 0) {
      out.cubin.resize(cubin_size);
      out.ok = nvrtcGetCUBIN(program, out.cubin.data()) == NVRTC_SUCCESS;
    }
    if (!out.ok) out.log += "\nNVRTC produced no CUBIN for " + arch;
  }
  nvrtcDestroyProgram(&program);
  return out;
}

#else

RawCompile CompileHere(const std::string&, const std::string&, const std::vector<std::string>&) {
  return {false, "NVRTC not available in this build (configured without the CUDA toolkit)", ""};
}

#endif

// ---- The pipe protocol between the compiling child and the parent: ok (1 byte), then the log
// and the CUBIN, each as a 64-bit length and its bytes.

bool WriteAll(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteBlob(int fd, const std::string& blob) {
  uint64_t size = blob.size();
  return WriteAll(fd, &size, sizeof size) && WriteAll(fd, blob.data(), blob.size());
}

bool ReadBlob(const std::string& message, size_t& position, std::string& blob) {
  uint64_t size = 0;
  if (message.size() - position < sizeof size) return false;
  std::memcpy(&size, message.data() + position, sizeof size);
  position += sizeof size;
  if (message.size() - position < size) return false;
  blob.assign(message, position, size);
  position += size;
  return true;
}

// Runs CompileHere in a child; the result's `ok` is false with a log saying what went wrong when
// the child dies, and `timed_out` is set when it was killed.
RawCompile CompileInChild(const std::string& code, const std::string& arch,
                          const CudaCompileOptions& options, bool& timed_out) {
  timed_out = false;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot create a pipe for NVRTC: ") + std::strerror(errno));
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error(std::string("cannot fork for NVRTC: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Keep only the pipe (as fd 3) and the standard streams: a write end of another compilation's
    // pipe, inherited from a concurrent fork, would hold that pipe open until this child exits.
    constexpr int kResultFd = 3;
    if (fds[1] != kResultFd && dup2(fds[1], kResultFd) < 0) _exit(1);
    close_range(kResultFd + 1, ~0U, 0);
    RawCompile raw = CompileHere(code, arch, options.extra_options);
    char ok = raw.ok ? 1 : 0;
    bool sent = WriteAll(kResultFd, &ok, 1) && WriteBlob(kResultFd, raw.log) &&
                WriteBlob(kResultFd, raw.cubin);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration<double>(options.timeout_s > 0 ? options.timeout_s : 1e9);
  std::string message;
  char buffer[1 << 16];
  for (;;) {
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd poll_fd{fds[0], POLLIN, 0};
    int ready = poll(&poll_fd, 1, static_cast<int>(std::min(left * 1000.0, 1e6)) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked above
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is done (or dead)
    message.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  RawCompile raw;
  if (timed_out) {
    std::ostringstream log;
    log << "NVRTC killed after " << options.timeout_s << " s";
    raw.log = log.str();
    return raw;
  }
  size_t position = 1;
  if (message.empty() || !ReadBlob(message, position, raw.log) ||
      !ReadBlob(message, position, raw.cubin)) {
    std::ostringstream log;
    if (WIFSIGNALED(status)) {
      log << "the NVRTC process died with signal " << WTERMSIG(status) << " ("
          << strsignal(WTERMSIG(status)) << ")";
    } else {
      log << "the NVRTC process exited with status " << WEXITSTATUS(status) << " without a result";
    }
    raw = {false, log.str(), ""};
    return raw;
  }
  raw.ok = message[0] == 1;
  return raw;
}

}  // namespace

bool NvrtcAvailable() {
#ifdef GLIMPSE_HAVE_NVRTC
  return true;
#else
  return false;
#endif
}

std::string NvrtcVersion() {
#ifdef GLIMPSE_HAVE_NVRTC
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "";
  return std::to_string(major) + "." + std::to_string(minor);
#else
  return "";
#endif
}

std::vector<std::string> NvrtcSupportedArchs() {
  static std::once_flag once;
  static std::vector<std::string> archs;
  std::call_once(once, [] {
#ifdef GLIMPSE_HAVE_NVRTC
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return;
    std::vector<int> numbers(static_cast<size_t>(count));
    if (nvrtcGetSupportedArchs(numbers.data()) != NVRTC_SUCCESS) return;
    for (int number : numbers) archs.push_back("sm_" + std::to_string(number));
#endif
  });
  return archs;
}

CudaCompileResult CompileCuda(const std::string& code, const std::string& arch,
                              const CudaCompileOptions& options) {
  static const std::regex kArchPattern("sm_[0-9]+[af]?");
  if (!std::regex_match(arch, kArchPattern)) {
    throw Error("CUDA architecture '" + arch + "': expected sm_<major><minor> such as sm_90");
  }
  CudaCompileResult result;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> supported = NvrtcSupportedArchs();
  std::string base_arch = arch;
  if (!base_arch.empty() && (base_arch.back() == 'a' || base_arch.back() == 'f')) {
    base_arch.pop_back();
  }
  RawCompile raw;
  if (NvrtcAvailable() &&
      std::find(supported.begin(), supported.end(), base_arch) == supported.end()) {
    raw.log = "NVRTC " + NvrtcVersion() + " cannot compile for " + arch + "; it supports";
    for (const std::string& name : supported) raw.log += " " + name;
  } else if (options.isolate) {
    raw = CompileInChild(code, arch, options, result.timed_out);
  } else {
    raw = CompileHere(code, arch, options.extra_options);
  }
  result.compile_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.ok = raw.ok;
  result.cubin = std::move(raw.cubin);
  result.resources = ParsePtxasReport(raw.log);
  if (result.ok) {
    // The report names every entry function; the CUBIN fills in any the log lost.
    // The system's per-block shared memory reserve, which `.nv.shared.*` includes from sm_80 on
    // (CUDA C++ Programming Guide, compute capability 8.x and later: 1 KB per block).
    const int64_t reserved = std::stoi(base_arch.substr(3)) >= 80 ? 1024 : 0;
    for (auto& [symbol, usage] : ReadCubinResources(result.cubin, reserved)) {
      result.resources.emplace(symbol, usage);
    }
  }
  result.log = result.ok ? std::move(raw.log)
                         : process::TruncateMessage(std::move(raw.log), options.max_error_chars);
  return result;
}

// ---- ptxas' report

std::map<std::string, CudaResourceUsage> ParsePtxasReport(const std::string& log) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kProperties(R"(Function properties for (\S+))");
  static const std::regex kFrame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  static const std::regex kCmem(R"((\d+) bytes cmem\[0\])");
  std::map<std::string, CudaResourceUsage> usage;
  std::string entry;       // the entry function the "Used …" line belongs to
  std::string properties;  // the function the next stack-frame line belongs to
  std::istringstream lines(log);
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("ptxas", 0) != 0) continue;
    if (std::regex_search(line, match, kEntry)) {
      entry = match[1];
      usage[entry];
    } else if (std::regex_search(line, match, kProperties)) {
      properties = match[1];
    } else if (std::regex_search(line, match, kFrame)) {
      // Non-entry (device) functions have properties too; only entry functions are kept.
      auto it = usage.find(properties);
      if (it != usage.end()) {
        it->second.local_bytes = std::stoll(match[1]);
        it->second.spill_stores = std::stoll(match[2]);
        it->second.spill_loads = std::stoll(match[3]);
      }
    } else if (!entry.empty() && std::regex_search(line, match, kUsed)) {
      CudaResourceUsage& current = usage[entry];
      current.registers = std::stoi(match[1]);
      if (std::regex_search(line, match, kSmem)) current.shared_bytes = std::stoll(match[1]);
      if (std::regex_search(line, match, kCmem)) current.constant_bytes = std::stoll(match[1]);
    }
  }
  return usage;
}

// ---- The CUBIN's ELF
//
// A CUBIN is an ELF64 little-endian file. Per-function figures live in the `.nv.info` section as
// a list of attributes: a format byte (1: no value, 2: one byte, 3: two bytes, 4: a 16-bit size
// and that many bytes), an attribute byte, then the value. EIATTR_REGCOUNT (0x2f) and
// EIATTR_FRAME_SIZE (0x11) carry (u32 symbol index, u32 value), the symbol indexing `.symtab`.
// A function's static shared memory is the size of its NOBITS section `.nv.shared.<function>`.

namespace {

constexpr uint8_t kEiattrFrameSize = 0x11;
constexpr uint8_t kEiattrRegCount = 0x2f;

template <typename T>
T Load(const std::string& image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) {
    throw Error("CUBIN: truncated ELF image (offset " + std::to_string(offset) + ")");
  }
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0;
  uint32_t link = 0;
};

}  // namespace

std::map<std::string, CudaResourceUsage> ReadCubinResources(const std::string& cubin,
                                                            int64_t reserved_shared_bytes) {
  if (cubin.size() < 64 ||
      cubin.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      cubin[4] != 2 || cubin[5] != 1) {
    throw Error("CUBIN: not a little-endian ELF64 image");
  }
  const auto section_offset = Load<uint64_t>(cubin, 0x28);
  const auto entry_size = Load<uint16_t>(cubin, 0x3a);
  const auto count = Load<uint16_t>(cubin, 0x3c);
  const auto names_index = Load<uint16_t>(cubin, 0x3e);
  if (entry_size < 64 || names_index >= count) throw Error("CUBIN: bad section header table");
  std::vector<Section> sections(count);
  for (uint16_t i = 0; i < count; ++i) {
    const uint64_t at = section_offset + uint64_t{i} * entry_size;
    sections[i].type = Load<uint32_t>(cubin, at + 4);
    sections[i].offset = Load<uint64_t>(cubin, at + 24);
    sections[i].size = Load<uint64_t>(cubin, at + 32);
    sections[i].link = Load<uint32_t>(cubin, at + 40);
    sections[i].name = std::to_string(Load<uint32_t>(cubin, at));  // resolved below
  }
  auto string_at = [&](const Section& table, uint64_t index) {
    if (index >= table.size || table.offset + table.size > cubin.size()) {
      throw Error("CUBIN: string index out of range");
    }
    const char* begin = cubin.data() + table.offset + index;
    return std::string(begin, strnlen(begin, table.size - index));
  };
  const Section names = sections[names_index];
  for (Section& section : sections) section.name = string_at(names, std::stoull(section.name));

  constexpr uint32_t kSymtab = 2;
  std::map<std::string, CudaResourceUsage> usage;
  std::vector<std::string> symbols;  // .symtab index → name
  for (const Section& section : sections) {
    if (section.type != kSymtab || section.link >= count) continue;
    for (uint64_t at = 0; at + 24 <= section.size; at += 24) {
      const uint64_t entry = section.offset + at;
      const std::string name = string_at(sections[section.link], Load<uint32_t>(cubin, entry));
      symbols.push_back(name);
      constexpr uint8_t kFunction = 2;
      if ((Load<uint8_t>(cubin, entry + 4) & 0xf) == kFunction) usage[name];
    }
  }
  for (const Section& section : sections) {
    if (section.name.rfind(".nv.shared.", 0) == 0) {
      auto it = usage.find(section.name.substr(std::strlen(".nv.shared.")));
      if (it != usage.end()) {
        it->second.shared_bytes =
            std::max<int64_t>(0, static_cast<int64_t>(section.size) - reserved_shared_bytes);
      }
    }
    if (section.name != ".nv.info") continue;
    for (uint64_t at = section.offset; at + 2 <= section.offset + section.size;) {
      const auto format = Load<uint8_t>(cubin, at);
      const auto attribute = Load<uint8_t>(cubin, at + 1);
      uint64_t value_size = 0;
      if (format == 1) {
        value_size = 0;
      } else if (format == 2 || format == 3) {
        value_size = 2;
      } else if (format == 4) {
        value_size = 2 + Load<uint16_t>(cubin, at + 2);
      } else {
        throw Error("CUBIN: unknown .nv.info attribute format " + std::to_string(format));
      }
      if (format == 4 && (attribute == kEiattrRegCount || attribute == kEiattrFrameSize) &&
          value_size >= 10) {
        const auto symbol = Load<uint32_t>(cubin, at + 4);
        const auto value = Load<uint32_t>(cubin, at + 8);
        if (symbol < symbols.size()) {
          auto it = usage.find(symbols[symbol]);
          if (it != usage.end()) {
            if (attribute == kEiattrRegCount) it->second.registers = static_cast<int>(value);
            if (attribute == kEiattrFrameSize) it->second.local_bytes = value;
          }
        }
      }
      at += 2 + value_size;
    }
  }
  return usage;
}

}  // namespace glimpse
