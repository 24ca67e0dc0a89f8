// ReadMaybeGzipFile: whole-file read, inflated with zlib when the file starts with the gzip magic.
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "glimpse/error.h"
#include "glimpse/replay.h"

namespace glimpse {

namespace {

std::string Inflate(const std::string& compressed, const std::string& path) {
  std::string out;
  // The gzip trailer holds the inflated size mod 2^32: a good first guess for the buffer.
  if (compressed.size() >= 18) {
    uint32_t hint = 0;
    std::memcpy(&hint, compressed.data() + compressed.size() - 4, 4);
    if (hint < (1u << 31)) out.reserve(hint);
  }
  z_stream stream{};
  // 15 + 32: zlib window size, with automatic gzip/zlib header detection.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) {
    throw Error(path + ": cannot initialise zlib");
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  char buffer[1 << 16];
  int code = Z_OK;
  while (true) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    code = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
    if (code == Z_STREAM_END) {
      // Concatenated gzip members (as `cat a.gz b.gz` makes) are one file to gzip's tools.
      if (stream.avail_in == 0) break;
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    if (code != Z_OK) break;
    if (stream.avail_in == 0 && stream.avail_out != 0) {
      code = Z_BUF_ERROR;  // input ended inside a member
      break;
    }
  }
  std::string message = stream.msg ? stream.msg : "";
  inflateEnd(&stream);
  if (code != Z_STREAM_END) {
    throw Error(path + ": corrupt gzip data (" +
                (message.empty() ? std::string("stream ends early") : message) +
                "); expected a complete .gz file or plain JSON");
  }
  return out;
}

}  // namespace

std::string ReadMaybeGzipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file (missing or unreadable)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path + ": read error");
  std::string data = std::move(buffer).str();
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
      static_cast<unsigned char>(data[1]) == 0x8b) {
    return Inflate(data, path);
  }
  return data;
}

}  // namespace glimpse
