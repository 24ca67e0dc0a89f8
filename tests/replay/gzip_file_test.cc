#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::ErrorMessageOf;
using testing::MakeTempDir;
using testing::WriteTextFile;

std::string Gzip(const std::string& text) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, text.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(ReadMaybeGzipFile, ReadsPlainAndGzipFilesAlike) {
  std::string dir = MakeTempDir("glimpse-gzip");
  std::string text = "{\"cache\": {}}\n" + std::string(100000, ' ') + "end";
  std::string plain = WriteTextFile(dir, "plain.json", text);
  std::string packed = WriteTextFile(dir, "packed.json.gz", Gzip(text));
  EXPECT_EQ(ReadMaybeGzipFile(plain), text);
  EXPECT_EQ(ReadMaybeGzipFile(packed), text);
  // Concatenated members are one file, as gzip's tools read it.
  std::string joined = WriteTextFile(dir, "joined.gz", Gzip("abc") + Gzip("def"));
  EXPECT_EQ(ReadMaybeGzipFile(joined), "abcdef");
}

TEST(ReadMaybeGzipFile, InflatesTheShippedRecordedFile) {
  std::string text = ReadMaybeGzipFile(testing::RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.front(), '{');
  EXPECT_NE(text.find("\"cache\""), std::string::npos);
}

TEST(ReadMaybeGzipFile, MissingFileNamesThePath) {
  std::string path = MakeTempDir("glimpse-gzip") + "/absent.json.gz";
  std::string message = ErrorMessageOf([&] { ReadMaybeGzipFile(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST(ReadMaybeGzipFile, CorruptOrCutGzipNamesThePath) {
  std::string dir = MakeTempDir("glimpse-gzip");
  std::string packed = Gzip(std::string(5000, 'x') + "tail");
  std::string cut = WriteTextFile(dir, "cut.gz", packed.substr(0, packed.size() / 2));
  std::string message = ErrorMessageOf([&] { ReadMaybeGzipFile(cut); });
  EXPECT_NE(message.find(cut), std::string::npos) << message;
  EXPECT_NE(message.find("gzip"), std::string::npos) << message;

  std::string garbage = WriteTextFile(dir, "garbage.gz", std::string("\x1f\x8b") + "not deflate");
  message = ErrorMessageOf([&] { ReadMaybeGzipFile(garbage); });
  EXPECT_NE(message.find(garbage), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse
