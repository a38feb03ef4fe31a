// A gtest fixture base for suites that share one Stack (fresh database,
// sluice-server, sluice-gateway) across their tests.
#ifndef SLUICE_INTEGRATION_SUITE_STACK_H_
#define SLUICE_INTEGRATION_SUITE_STACK_H_

#include <iostream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "integration/harness.h"

namespace sluice::integration {

// Subclasses call StartSuiteStack from their SetUpTestSuite; the stack is
// stopped after the suite. One suite at a time uses `stack_` (gtest runs
// suites one after another).
class SuiteStackTest : public ::testing::Test {
 protected:
  // Starts the suite's stack with `config_yaml` as the server's config file
  // (none when empty); fails the suite when it cannot start.
  static void StartSuiteStack(std::string config_yaml) {
    Stack::Options opts;
    opts.config_yaml = std::move(config_yaml);
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack).release();
  }
  static void TearDownTestSuite() {
    // When a test failed, what the server and the gateway said: their logs
    // live in TEST_TMPDIR, which bazel removes.
    const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    if (stack_ != nullptr && suite != nullptr && suite->failed_test_count() > 0) {
      std::cerr << "---- sluice-server (" << (stack_->server().Running() ? "running" : "exited")
                << "), the end of its log ----\n"
                << Tail(stack_->server().Output(), 60) << "---- sluice-gateway, the end of its log ----\n"
                << Tail(stack_->gateway().Output(), 30) << "----\n";
    }
    delete stack_;
    stack_ = nullptr;
  }

  static inline Stack* stack_ = nullptr;

 private:
  // The last `lines` lines of `text`.
  static std::string Tail(const std::string& text, int lines) {
    size_t pos = text.size();
    while (pos > 0 && lines >= 0) {
      pos = text.rfind('\n', pos - 1);
      if (pos == std::string::npos) return text;
      --lines;
    }
    return text.substr(pos == 0 ? 0 : pos + 1);
  }
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_SUITE_STACK_H_
