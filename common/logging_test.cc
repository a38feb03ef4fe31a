#include "common/logging.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "common/trace/trace_context.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"

namespace sluice {
namespace {

// Runs `fn` with stderr redirected to a file and returns what it wrote.
template <typename Fn>
std::string CaptureStderr(Fn fn) {
  std::fflush(stderr);
  char path[] = "/tmp/logging_test_XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(2);
  dup2(fd, 2);
  fn();
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string out;
  FILE* f = std::fopen(path, "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  close(fd);
  unlink(path);
  return out;
}

TEST(Logging, LinesCarryTheCurrentTraceId) {
  ASSERT_TRUE(InitLogging("logging-test", "info").ok());
  auto ctx = trace::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  ASSERT_TRUE(ctx.has_value());
  std::string out = CaptureStderr([&] {
    spdlog::info("msg=\"outside\"");
    trace::ContextScope scope(*ctx);
    spdlog::info("msg=\"inside\"");
  });
  auto nl = out.find('\n');
  ASSERT_NE(nl, std::string::npos) << out;
  std::string first = out.substr(0, nl), second = out.substr(nl + 1);
  EXPECT_NE(first.find("msg=\"outside\""), std::string::npos);
  EXPECT_EQ(first.find("trace_id="), std::string::npos) << first;
  EXPECT_NE(second.find("msg=\"inside\" trace_id=4bf92f3577b34da6a3ce929d0e0e4736 "
                        "span_id=00f067aa0ba902b7"),
            std::string::npos)
      << second;
}

}  // namespace
}  // namespace sluice
