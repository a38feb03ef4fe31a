// A gtest fixture base for suites that share one Stack (fresh database,
// sluice-server, sluice-gateway) across their tests.
#ifndef SLUICE_INTEGRATION_SUITE_STACK_H_
#define SLUICE_INTEGRATION_SUITE_STACK_H_

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
    delete stack_;
    stack_ = nullptr;
  }

  static inline Stack* stack_ = nullptr;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_SUITE_STACK_H_
