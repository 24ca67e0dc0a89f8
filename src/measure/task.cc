#include "glimpse/task.h"

#include <string>

namespace glimpse {

namespace {
// FNV-1a over the canonical text: stable across processes and machines (std::hash is not).
uint64_t Fnv1a(const std::string& text, uint64_t hash = 0xcbf29ce484222325ULL) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}
}  // namespace

std::string Task::WorkloadKey() const {
  // nlohmann::json dumps objects with sorted keys, so the text is canonical.
  uint64_t hash = Fnv1a(description.dump());
  hash = Fnv1a(HashToHex(space.Fingerprint()), hash);
  return HashToHex(hash);
}

}  // namespace glimpse
