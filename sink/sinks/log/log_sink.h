// SINK_TYPE=log: writes every message to standard output in a readable,
// one-line form, for debugging, trying out filters and measuring throughput.
#ifndef SLUICE_SINK_SINKS_LOG_LOG_SINK_H_
#define SLUICE_SINK_SINKS_LOG_LOG_SINK_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "sink/message.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Appends a one-line text form of `message` to `out`:
// `order_number: "A1" status: ACTIVE address { city: "Pune" } tags: ["a", "b"]`.
// Scalars are `name: value` (strings C-escaped, UTF-8 kept), nested messages
// are `name { ... }` (protobuf text form), repeated fields are
// `name: [v1, v2]` with messages as `{...}` elements. Unset fields are omitted.
void AppendMessageText(const google::protobuf::Message& message, std::string* out);

// Appends `ms` (milliseconds since the epoch) as RFC 3339 UTC with
// milliseconds, e.g. "2024-05-01T10:00:00.123Z".
void AppendRfc3339Millis(int64_t ms, std::string* out);

// SINK_TYPE=log reads no variables of its own.
struct LogSinkConfig {
  // Always OK.
  static absl::StatusOr<LogSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// The log sink. Prepare() renders the whole batch into one buffer; Execute()
// writes it with a single fwrite and one fflush. Each line reads
// `topic=<t> partition=<p> offset=<o> timestamp=<rfc3339> [key="<escaped>"] message=<text>`
// where <text> is `{AppendMessageText}` of the decoded record, or the raw value
// C-escaped in quotes when nothing was decoded (json input).
class LogSink : public TwoStageSink {
 public:
  // Writes to `out` (not owned; stdout in production, a tmpfile in tests).
  explicit LogSink(FILE* out) : out_(out) {}

  using Config = LogSinkConfig;  // for CreateFromContext<LogSink>

  // The registry's sink: writes to stdout. Always OK.
  static absl::StatusOr<std::unique_ptr<LogSink>> Create(LogSinkConfig config, Metrics* metrics);

  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // A failed write fails the whole batch with SINK_UNKNOWN_ERROR.
  std::vector<FailedMessage> Execute() override;
  // Same result as Prepare()+Execute() without copying the batch.
  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
  absl::string_view Name() const override { return "log"; }

 private:
  // Renders `batch` into buffer_.
  void Render(const std::vector<Message>& batch);
  // Writes buffer_ and flushes; returns the error text, empty on success.
  std::string Flush();

  FILE* out_;
  std::string buffer_;                    // rendered lines of the prepared batch
  std::vector<Message> prepared_;         // kept only to report a failed write
  int64_t cached_second_ = INT64_MIN;     // last formatted second, for speed
  std::string cached_second_text_;        // "YYYY-MM-DDTHH:MM:SS"
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_LOG_LOG_SINK_H_
