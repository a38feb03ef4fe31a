// Receiver type "file": writes stay under the configured directory.
#include "server/notification/receivers/file/file_receiver.h"

#include <gtest/gtest.h>

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

std::string TmpDir() { return std::string(std::getenv("TEST_TMPDIR")); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file receivers' directory, created once per test binary.
std::string FileDir() {
  std::string dir = TmpDir() + "/files";
  mkdir(dir.c_str(), 0755);
  char real[PATH_MAX];
  return realpath(dir.c_str(), real) ? std::string(real) : dir;
}

class FileReceiverTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P() { return *plugin_; }
  FakeHttp http_;
  std::unique_ptr<ReceiverPlugin> plugin_ = FileReceiver::Create(ReceiverContext{&http_, {FileDir()}});
};

TEST_F(FileReceiverTest, FileAppendsJsonLinesUnderItsDirectory) {
  std::string dir = FileDir();
  ASSERT_TRUE(P().ValidateConfig({{"url", "out.jsonl"}}).ok());
  ASSERT_TRUE(P().ValidateConfig({{"url", dir + "/out.jsonl"}}).ok());
  ASSERT_TRUE(P().Send({{"url", "out.jsonl"}}, {{"n", 1}}).ok());
  ASSERT_TRUE(P().Send({{"url", dir + "/./out.jsonl"}}, {{"n", 2}}).ok());
  ASSERT_TRUE(P().Send({{"url", "file://" + dir + "/out.jsonl"}}, {{"n", 3}}).ok());
  EXPECT_EQ(ReadFile(dir + "/out.jsonl"), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
  // Subdirectories must exist; none are created.
  EXPECT_FALSE(P().Send({{"url", "nonexistent-dir/x"}}, json::object()).ok());
  ASSERT_EQ(mkdir((dir + "/sub").c_str(), 0755), 0);
  EXPECT_TRUE(P().Send({{"url", "sub/x.jsonl"}}, {{"n", 4}}).ok());
  EXPECT_EQ(ReadFile(dir + "/sub/x.jsonl"), "{\"n\":4}\n");
}

TEST_F(FileReceiverTest, FileRefusesPathsOutsideItsDirectory) {
  std::string dir = FileDir();
  for (const char* url : {"/etc/profile.d/zz.sh", "../escape.jsonl", "a/../../escape.jsonl",
                          "sub/../x", "/", "", ".", "file:///tmp/x"}) {
    absl::Status st = P().ValidateConfig({{"url", url}});
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_NE(st.message().find("configurations.url"), std::string::npos) << st;
    EXPECT_FALSE(P().Send({{"url", url}}, json::object()).ok()) << url;
  }
  EXPECT_FALSE(P().ValidateConfig({{"url", dir}}).ok());  // the directory itself
  EXPECT_FALSE(P().ValidateConfig({{"url", dir + "-other/x"}}).ok());
  EXPECT_FALSE(P().ValidateConfig({{"url", 1}}).ok());
  EXPECT_FALSE(P().Send({{"url", nullptr}}, json::object()).ok());
}

TEST_F(FileReceiverTest, FileRefusesSymlinkAndHardLinkEscapes) {
  std::string dir = FileDir();
  std::string outside = TmpDir() + "/outside";
  mkdir(outside.c_str(), 0755);
  std::ofstream(outside + "/target") << "original\n";
  // A symlinked directory and a symlinked file inside the directory.
  symlink(outside.c_str(), (dir + "/linkdir").c_str());
  symlink((outside + "/target").c_str(), (dir + "/linkfile").c_str());
  link((outside + "/target").c_str(), (dir + "/hardlink").c_str());
  for (const char* url : {"linkdir/target", "linkdir/new", "linkfile", "hardlink"}) {
    ASSERT_TRUE(P().ValidateConfig({{"url", url}}).ok()) << url;  // lexically fine
    absl::Status st = P().Send({{"url", url}}, {{"pwn", 1}});
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << url << ": " << st;
  }
  EXPECT_EQ(ReadFile(outside + "/target"), "original\n");
  EXPECT_NE(access((outside + "/new").c_str(), F_OK), 0);
}

TEST(FileReceiverDisabledTest, WithoutADirectoryTheTypeIsDisabled) {
  FakeHttp http;
  std::unique_ptr<ReceiverPlugin> file = FileReceiver::Create(ReceiverContext{&http, {}});
  absl::Status st = file->ValidateConfig({{"url", "/tmp/x"}});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("notification.file_receiver_dir"), std::string::npos) << st;
  EXPECT_EQ(file->Send({{"url", "/tmp/x"}}, json::object()).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice::notification::receivers
