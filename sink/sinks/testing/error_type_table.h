// A sink test's table of error types: each row is one outcome of the sink
// (an HTTP status range, a driver error, a timeout...) and the error type
// goto Firehose assigns to it, with a comment naming the upstream file and
// line (firehose 857761c6 or depot 13215cc) it comes from. The tests take
// every expected type from the table (FirehoseType), and when the whole
// suite ran, a row no test looked up fails the run, so each row is pinned
// by a real outcome.
#ifndef SLUICE_SINK_SINKS_TESTING_ERROR_TYPE_TABLE_H_
#define SLUICE_SINK_SINKS_TESTING_ERROR_TYPE_TABLE_H_

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/string_view.h"
#include "sink/message.h"

namespace sluice::sink::testing {

struct ErrorTypeRow {
  absl::string_view outcome;
  ErrorType type;
};

class ErrorTypeTable {
 public:
  explicit ErrorTypeTable(std::vector<ErrorTypeRow> rows) : rows_(std::move(rows)) {
    // Registered once per table; checks at the end of the run.
    ::testing::AddGlobalTestEnvironment(new Check(this));
  }

  // The type of `outcome`'s row; a test failure when there is none.
  ErrorType operator()(absl::string_view outcome) {
    for (const ErrorTypeRow& r : rows_) {
      if (r.outcome == outcome) {
        used_.insert(std::string(outcome));
        return r.type;
      }
    }
    ADD_FAILURE() << "no row \"" << outcome << "\" in the error-type table";
    return ErrorType::kDefaultError;
  }

 private:
  class Check : public ::testing::Environment {
   public:
    explicit Check(ErrorTypeTable* t) : t_(t) {}
    void TearDown() override {
      if (::testing::GTEST_FLAG(filter) != "*") return;  // a partial run
      for (const ErrorTypeRow& r : t_->rows_) {
        EXPECT_TRUE(t_->used_.count(std::string(r.outcome)) > 0)
            << "error-type row \"" << r.outcome << "\" is checked by no test";
      }
    }

   private:
    ErrorTypeTable* t_;
  };

  std::vector<ErrorTypeRow> rows_;
  std::set<std::string> used_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_ERROR_TYPE_TABLE_H_
