// The fixture of the access store's tests against real PostgreSQL: a fresh
// database per test with the access migrations applied (and the core's
// audit_logs table, which the server's own migration creates).
#ifndef SLUICE_SERVER_ACCESS_STORE_TESTING_STORE_TEST_H_
#define SLUICE_SERVER_ACCESS_STORE_TESTING_STORE_TEST_H_

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "common/db/pool.h"
#include "common/db/testing/test_database.h"

namespace sluice::access::testing {

class StoreTest : public ::testing::Test {
 protected:
  // Creates db_ and pool_ (2 connections) and migrates; fails the test
  // (fatally) when PostgreSQL is unreachable.
  void SetUp() override;
  // Registers the noop provider "urn1" with one resource of `type`/`urn`
  // (and `name`); returns the resource's id ("" after a failed assertion).
  std::string CreateResource(const std::string& type, const std::string& urn,
                             const std::string& name = "");

  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_STORE_TESTING_STORE_TEST_H_
