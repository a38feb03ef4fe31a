// Consumer over librdkafka's C API: one group member, batch consumption from
// the consumer queue (rd_kafka_consume_batch_queue), manual commits, and a
// rebalance callback that lets the worker commit before partitions are
// revoked. librdkafka error codes become absl::Status here and nowhere else.
#ifndef SLUICE_SINK_SOURCE_KAFKA_CONSUMER_H_
#define SLUICE_SINK_SOURCE_KAFKA_CONSUMER_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "librdkafka/rdkafka.h"
#include "sink/config.h"
#include "sink/metrics.h"
#include "sink/source/consumer.h"

namespace sluice::sink {

// The librdkafka properties for `config` (bootstrap, group, offset reset, no
// auto commit, then the pass-through SOURCE_KAFKA_CONSUMER_CONFIG_* values,
// which win). With config.group_instance_id set, worker N (0-based) gets
// group.instance.id "<id>-N" (static membership); a negative `worker` (a
// reader outside the group, such as the control API's peek) gets none.
std::map<std::string, std::string> ConsumerProperties(const SourceConfig& config, int worker = -1);

class KafkaConsumer : public Consumer {
 public:
  // Creates the consumer and subscribes to config.subscription (config.topic
  // when empty; a regex when it starts with '^'). InvalidArgument names a rejected librdkafka property.
  // `metrics` (not owned) receives the async commit outcomes. `worker` is
  // the worker's index (see ConsumerProperties).
  static absl::StatusOr<std::unique_ptr<KafkaConsumer>> Create(const SourceConfig& config,
                                                               Metrics* metrics, int worker = 0);
  ~KafkaConsumer() override;

  absl::Status Poll(int max_records, absl::Duration timeout, std::vector<Message>* out) override;
  absl::Status Commit(const std::vector<PartitionOffset>& offsets, bool async) override;
  std::vector<PartitionOffset> TakeFailedCommits() override;
  void SetPaused(bool paused) override;
  void KeepAlive() override;
  absl::Status Seek(const std::vector<PartitionOffset>& offsets) override;
  std::vector<PartitionStatus> Partitions() override;
  void SetRebalanceListener(RebalanceListener* listener) override { listener_ = listener; }
  void SetShutdownDeadline(absl::Time deadline) override { shutdown_deadline_ = deadline; }
  absl::Status Close() override;

 private:
  KafkaConsumer(rd_kafka_t* rk, Metrics* metrics);
  static void RebalanceCb(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void CommitCb(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                       rd_kafka_topic_partition_list_t* offsets, void* opaque);
  // librdkafka's client-level errors (served on the worker thread inside
  // Poll): logged; an authentication failure is kept for Poll to return.
  static void ErrorCb(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  // Interceptors (librdkafka broker threads): a JoinGroup request sent marks
  // this member as joining until its SyncGroup response arrives.
  static rd_kafka_resp_err_t OnNew(rd_kafka_t* rk, const rd_kafka_conf_t* conf, void* opaque,
                                   char* errstr, size_t errstr_size);
  static rd_kafka_resp_err_t OnRequestSent(rd_kafka_t* rk, int sockfd, const char* brokername,
                                           int32_t brokerid, int16_t api_key, int16_t api_version,
                                           int32_t corr_id, size_t size, void* opaque);
  static rd_kafka_resp_err_t OnResponseReceived(rd_kafka_t* rk, int sockfd,
                                                const char* brokername, int32_t brokerid,
                                                int16_t api_key, int16_t api_version,
                                                int32_t corr_id, size_t size, int64_t rtt,
                                                rd_kafka_resp_err_t err, void* opaque);
  // Whether a JoinGroup of this member is in flight (sent less than
  // kRejoinHoldLimit ago, and no SyncGroup response since).
  bool Joining() const;
  // The Unauthenticated status Poll returns for `reason` (librdkafka's text).
  absl::Status AuthenticationFailure(const std::string& reason) const;
  void OnRebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions);
  // Keeps async commits (failed_commits_) until this member has rejoined.
  void HoldCommits();
  // Synchronous commit bounded in time; DeadlineExceeded when the coordinator
  // does not answer (e.g. the broker is down).
  absl::Status CommitSync(rd_kafka_topic_partition_list_t* list);
  void Convert(rd_kafka_message_t* m, int64_t now_ms, std::vector<Message>* out);

  rd_kafka_t* rk_;
  rd_kafka_queue_t* queue_ = nullptr;
  Metrics* metrics_;
  RebalanceListener* listener_ = nullptr;
  bool paused_ = false;
  bool closed_ = false;
  // Close gave up waiting for the group to be left (shutdown deadline): the
  // destructor must not wait for it either.
  bool close_abandoned_ = false;
  // The assignment strategy keeps sticky assignor state, and whether any
  // assignment arrived: the destructor's guard against librdkafka issue 4312.
  bool sticky_ = false;
  bool assigned_once_ = false;
  std::string sasl_mechanism_;       // as configured, for the failure message
  std::string authentication_error_;  // librdkafka's reason, once one came (ErrorCb)
  absl::Time shutdown_deadline_ = absl::InfiniteFuture();
  // Refused async commits (CommitCb, served on the worker thread inside Poll).
  std::vector<PartitionOffset> failed_commits_;
  // An async commit was refused with "rebalance in progress": async commits
  // are kept (failed_commits_) until the next rebalance callback.
  bool rejoining_ = false;
  absl::Time rejoin_since_;
  // When the last JoinGroup was sent (Unix ms; 0: none in flight). Set and
  // cleared by the interceptors, read by Commit on the worker thread.
  std::atomic<int64_t> join_sent_ms_{0};
  bool revoked_last_ = false;  // the last rebalance callback was an incremental revoke
  int64_t commit_failures_ = 0;                       // since start, for the log line
  absl::Time last_commit_warning_ = absl::InfinitePast();
  std::vector<rd_kafka_message_t*> buf_;  // reused batch buffer
  std::string last_topic_;                // interned topic name of the last record
  const rd_kafka_topic_t* last_rkt_ = nullptr;
};

// Turns a librdkafka error into a Status with `what` as context.
absl::Status KafkaError(rd_kafka_resp_err_t err, absl::string_view what);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_KAFKA_CONSUMER_H_
