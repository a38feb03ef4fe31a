#include "sink/source/kafka_consumer.h"

#include <chrono>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sink/source/kafka_record.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

constexpr char kCommitMetric[] = "firehose_source_kafka_messages_commit_total";
// Upper bound on a synchronous commit (see CommitSync).
constexpr absl::Duration kSyncCommitTimeout = absl::Seconds(10);
// Longest async commits are held while this member rejoins its group.
constexpr absl::Duration kRejoinHoldLimit = absl::Seconds(15);
// Kafka protocol API keys (the Kafka protocol guide).
constexpr int16_t kJoinGroupApiKey = 11;
constexpr int16_t kSyncGroupApiKey = 14;

rd_kafka_topic_partition_list_t* ToList(const std::vector<PartitionOffset>& offsets) {
  auto* list = rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
  for (const PartitionOffset& o : offsets) {
    rd_kafka_topic_partition_list_add(list, o.tp.topic.c_str(), o.tp.partition)->offset = o.offset;
  }
  return list;
}

std::vector<TopicPartition> FromList(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  if (list == nullptr) return out;
  out.reserve(list->cnt);
  for (int i = 0; i < list->cnt; ++i) {
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  }
  return out;
}

}  // namespace

absl::Status KafkaError(rd_kafka_resp_err_t err, absl::string_view what) {
  std::string msg = absl::StrCat(what, ": ", rd_kafka_err2str(err));
  switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
      return absl::OkStatus();
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
      return absl::DeadlineExceededError(msg);
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
      return absl::UnavailableError(msg);
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
      return absl::UnauthenticatedError(msg);
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
      return absl::PermissionDeniedError(msg);
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
      return absl::InvalidArgumentError(msg);
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR__STATE:
      return absl::FailedPreconditionError(msg);
    default:
      return absl::UnknownError(msg);
  }
}

std::map<std::string, std::string> ConsumerProperties(const SourceConfig& config, int worker) {
  std::map<std::string, std::string> p = {
      {"bootstrap.servers", config.brokers},
      {"group.id", config.group_id},
      {"auto.offset.reset", config.auto_offset_reset},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      // The prefetch queue (librdkafka's defaults: 64 MiB here, and
      // queued.min.messages 100000). librdkafka 2.0.2 parks a partition whose
      // queue reached either bound until its broker thread next wakes, up to
      // 1 s later (2.1.0 added fetch.queue.backoff.ms), so a bound that binds
      // starves the worker: with 8192 kB the Kafka bench's worker waited for
      // records ~75 % of the time (79k against 169k records/s, 1 worker; peak
      // RSS 66 against 68 MiB); with queued.min.messages 10000, 17k records/s
      // at 37 MiB; 50000, 68k records/s at 54 MiB (sink/README.md, Dev tools).
      // SOURCE_KAFKA_CONSUMER_CONFIG_QUEUED_{MAX_MESSAGES_KBYTES,MIN_MESSAGES}
      // trade throughput for memory.
      {"queued.max.messages.kbytes", "65536"},
      {"enable.partition.eof", "false"},
      {"log_level", "4"},
  };
  for (const auto& [k, v] : config.kafka_properties) p[k] = v;
  if (!config.group_instance_id.empty() && worker >= 0) {
    p["group.instance.id"] = absl::StrCat(config.group_instance_id, "-", worker);
  }
  return p;
}

KafkaConsumer::KafkaConsumer(rd_kafka_t* rk, Metrics* metrics) : rk_(rk), metrics_(metrics) {}

KafkaConsumer::~KafkaConsumer() {
  if (rk_ == nullptr) return;
  Close().IgnoreError();
  if (queue_ != nullptr) rd_kafka_queue_destroy(queue_);
  if (sticky_ && !assigned_once_) {
    // librdkafka before 2.3 (Debian's 2.0.2) asserts in rd_kafka_destroy when
    // a sticky member joined its group but never received an assignment: its
    // assignor state is still NULL (librdkafka issue 4312, fixed in 2.3.0).
    // The group was left (or abandoned) by Close above; the handle is left to
    // the process's exit, which is what destroying a consumer precedes here.
    spdlog::debug("Kafka consumer closed before its first assignment: handle not destroyed "
                  "(librdkafka issue 4312)");
    return;
  }
  // After an abandoned close, destroying must not start another unbounded
  // consumer close (the group coordinator may be gone).
  rd_kafka_destroy_flags(rk_, close_abandoned_ ? RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE : 0);
}

absl::StatusOr<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Create(const SourceConfig& config,
                                                                     Metrics* metrics, int worker) {
  char errstr[512];
  const std::map<std::string, std::string> properties = ConsumerProperties(config, worker);
  auto conf_or = NewKafkaConf(properties, "Kafka consumer (SOURCE_KAFKA_*)");
  if (!conf_or.ok()) return conf_or.status();
  rd_kafka_conf_t* conf = *conf_or;
  // The consumer object is the opaque of the callbacks; it is created before
  // rd_kafka_new so that the pointer is stable.
  auto self = std::unique_ptr<KafkaConsumer>(new KafkaConsumer(nullptr, metrics));
  // "sticky" and "cooperative-sticky" keep assignor state (see the destructor).
  auto strategy = properties.find("partition.assignment.strategy");
  self->sticky_ = strategy == properties.end() || absl::StrContains(strategy->second, "sticky");
  rd_kafka_conf_set_opaque(conf, self.get());
  rd_kafka_conf_set_rebalance_cb(conf, &KafkaConsumer::RebalanceCb);
  rd_kafka_conf_set_offset_commit_cb(conf, &KafkaConsumer::CommitCb);
  rd_kafka_conf_set_error_cb(conf, &KafkaConsumer::ErrorCb);
  if (rd_kafka_conf_interceptor_add_on_new(conf, "sluice-join-tracker", &KafkaConsumer::OnNew,
                                           self.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError("creating Kafka consumer: cannot add the JoinGroup interceptor");
  }
  if (auto m = properties.find("sasl.mechanism"); m != properties.end()) {
    self->sasl_mechanism_ = m->second;
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InvalidArgumentError(absl::StrCat("creating Kafka consumer: ", errstr));
  }
  self->rk_ = rk;
  rd_kafka_poll_set_consumer(rk);
  self->queue_ = rd_kafka_queue_get_consumer(rk);

  // The plain name, or the Java pattern translated to an anchored POSIX
  // regex (librdkafka subscribes by regex when the name starts with '^').
  const std::string& subscription = config.subscription.empty() ? config.topic : config.subscription;
  auto* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, subscription.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  if (err) return KafkaError(err, absl::StrCat("subscribing to ", subscription));
  return self;
}

rd_kafka_resp_err_t KafkaConsumer::OnNew(rd_kafka_t* rk, const rd_kafka_conf_t*, void* opaque,
                                         char*, size_t) {
  rd_kafka_interceptor_add_on_request_sent(rk, "sluice-join-tracker",
                                           &KafkaConsumer::OnRequestSent, opaque);
  rd_kafka_interceptor_add_on_response_received(rk, "sluice-join-tracker",
                                                &KafkaConsumer::OnResponseReceived, opaque);
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

rd_kafka_resp_err_t KafkaConsumer::OnRequestSent(rd_kafka_t*, int, const char*, int32_t,
                                                 int16_t api_key, int16_t, int32_t, size_t,
                                                 void* opaque) {
  if (api_key == kJoinGroupApiKey) {
    static_cast<KafkaConsumer*>(opaque)->join_sent_ms_.store(absl::ToUnixMillis(absl::Now()));
  }
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

rd_kafka_resp_err_t KafkaConsumer::OnResponseReceived(rd_kafka_t*, int, const char*, int32_t,
                                                      int16_t api_key, int16_t, int32_t, size_t,
                                                      int64_t, rd_kafka_resp_err_t,
                                                      void* opaque) {
  if (api_key == kSyncGroupApiKey) static_cast<KafkaConsumer*>(opaque)->join_sent_ms_.store(0);
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

bool KafkaConsumer::Joining() const {
  const int64_t sent = join_sent_ms_.load();
  return sent != 0 && absl::FromUnixMillis(sent) + kRejoinHoldLimit > absl::Now();
}

void KafkaConsumer::RebalanceCb(rd_kafka_t*, rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<KafkaConsumer*>(opaque)->OnRebalance(err, partitions);
}

void KafkaConsumer::OnRebalance(rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t* partitions) {
  const bool cooperative = std::strcmp(rd_kafka_rebalance_protocol(rk_), "COOPERATIVE") == 0;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    assigned_once_ = true;
    // The empty assignment librdkafka hands out right after an incremental
    // revoke belongs to the generation being left: keep holding.
    if (revoked_last_ && (partitions == nullptr || partitions->cnt == 0)) {
      revoked_last_ = false;
    } else {
      revoked_last_ = false;
      rejoining_ = false;
    }
    if (listener_) listener_->BeforePartitionsAssigned(FromList(partitions));
    if (listener_ && partitions != nullptr && partitions->cnt > 0) {
      // Start offsets go into the list itself: (incremental_)assign starts
      // fetching there, so no record from the committed offset is fetched.
      for (const PartitionOffset& o : listener_->StartOffsets(FromList(partitions))) {
        if (auto* e = rd_kafka_topic_partition_list_find(partitions, o.tp.topic.c_str(),
                                                         o.tp.partition)) {
          e->offset = o.offset;
        }
      }
    }
    if (cooperative) {
      rd_kafka_error_t* e = rd_kafka_incremental_assign(rk_, partitions);
      if (e) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk_, partitions);
    }
    if (paused_) rd_kafka_pause_partitions(rk_, partitions);
    if (listener_) listener_->OnPartitionsAssigned(FromList(partitions));
  } else {
    // Commit what is done before the partitions go (the listener commits
    // synchronously), then give them up. Under the cooperative protocol
    // only the partitions that move are revoked. Lost partitions (this
    // member was expelled) cannot be committed any more.
    const bool lost = rd_kafka_assignment_lost(rk_);
    if (listener_ && lost) {
      listener_->OnPartitionsLost(FromList(partitions));
    } else if (listener_) {
      listener_->OnPartitionsRevoked(FromList(partitions));
    }
    // After an incremental revoke librdkafka rejoins at once: a commit sent
    // while its JoinGroup waits carries the old generation and comes back
    // "illegal generation", which drops the whole assignment as lost.
    if (cooperative && !lost && partitions != nullptr && partitions->cnt > 0) {
      HoldCommits();
      revoked_last_ = true;
    }
    if (cooperative) {
      rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_, partitions);
      if (e) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk_, nullptr);
    }
  }
}

void KafkaConsumer::CommitCb(rd_kafka_t*, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* self = static_cast<KafkaConsumer*>(opaque);
  // _NO_OFFSET: nothing to commit, not a failure.
  if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) return;
  bool ok = err == RD_KAFKA_RESP_ERR_NO_ERROR;
  if (ok && offsets != nullptr) {
    for (int i = 0; i < offsets->cnt; ++i) {
      if (offsets->elems[i].err) ok = false;
    }
  }
  self->metrics_->Increment(kCommitMetric, {{"success", ok ? "true" : "false"}});
  if (ok) return;
  // Hand the refused offsets back to the worker, which commits them again:
  // otherwise a commit refused while the group rebalances is never repeated
  // and the next owner re-reads what was delivered.
  rd_kafka_resp_err_t first = err;
  if (offsets != nullptr) {
    for (int i = 0; i < offsets->cnt; ++i) {
      const auto& e = offsets->elems[i];
      if (!first) first = e.err;
      if ((err || e.err) && e.offset >= 0) {
        self->failed_commits_.push_back({{e.topic, e.partition}, e.offset});
      }
    }
  }
  ++self->commit_failures_;
  if (err == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS || first == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS) {
    self->HoldCommits();
  }
  const absl::Time now = absl::Now();
  if (now - self->last_commit_warning_ >= absl::Seconds(5)) {
    self->last_commit_warning_ = now;
    spdlog::warn("async offset commit refused: {} ({} so far; the offsets are committed again)",
                 rd_kafka_err2str(first), self->commit_failures_);
  }
}

void KafkaConsumer::ErrorCb(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* self = static_cast<KafkaConsumer*>(opaque);
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (code == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
      code == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED) {
    // Without an error callback librdkafka only logs these and retries the
    // connection for ever, so a sink with a wrong password sat idle. Java's
    // consumer throws an AuthenticationException from poll() (not
    // retriable), which stops a Firehose pod: sluice-sink stops too.
    if (self->authentication_error_.empty()) self->authentication_error_ = reason;
    return;
  }
  // What librdkafka printed itself before this callback existed ("1/1
  // brokers are down", a refused connection, ...), in the sink's log.
  spdlog::warn("Kafka consumer: {}: {}", rd_kafka_err2name(code), reason);
}

absl::Status KafkaConsumer::AuthenticationFailure(const std::string& reason) const {
  std::string hint =
      "check the credentials in SOURCE_KAFKA_CONSUMER_CONFIG_SASL_JAAS_CONFIG and the "
      "SOURCE_KAFKA_CONSUMER_CONFIG_SASL_MECHANISM and SECURITY_PROTOCOL the broker's listener "
      "expects";
  if (absl::StartsWith(sasl_mechanism_, "SCRAM") && rd_kafka_version() < 0x020601ff) {
    // Kafka 4.0 compares the client-final nonce exactly (RFC 5802); librdkafka
    // before 2.6.1 sends the client nonce twice there (librdkafka PR 4895).
    absl::StrAppend(&hint, "; note that librdkafka ", rd_kafka_version_str(),
                    " cannot complete SCRAM with Apache Kafka 4.0 or later brokers, whatever "
                    "the password (it repeats the client nonce, which those brokers refuse; "
                    "fixed in librdkafka 2.6.1): use SASL/PLAIN over TLS (SASL_SSL), or brokers "
                    "before 4.0");
  }
  return absl::UnauthenticatedError(
      absl::StrCat("Kafka authentication failed: ", reason, " (", hint, ")"));
}

void KafkaConsumer::HoldCommits() {
  if (!rejoining_) rejoin_since_ = absl::Now();
  rejoining_ = true;
}

std::vector<PartitionOffset> KafkaConsumer::TakeFailedCommits() {
  std::vector<PartitionOffset> out;
  out.swap(failed_commits_);
  return out;
}

void KafkaConsumer::Convert(rd_kafka_message_t* m, int64_t now_ms, std::vector<Message>* out) {
  if (m->err) {
    // Per-partition consumer errors (e.g. offset out of range) are reported by
    // librdkafka and recovered by it; they are not records.
    return;
  }
  if (m->rkt != last_rkt_) {
    last_rkt_ = m->rkt;
    last_topic_ = rd_kafka_topic_name(m->rkt);
  }
  ToMessage(m, last_topic_, now_ms, &out->emplace_back());
}

absl::Status KafkaConsumer::Poll(int max_records, absl::Duration timeout,
                                 std::vector<Message>* out) {
  if (closed_) return absl::FailedPreconditionError("consumer is closed");
  if (static_cast<int>(buf_.size()) < max_records) buf_.resize(max_records);
  int timeout_ms = static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(timeout), 1 << 30));
  // Wait for the first record (serving rebalance and commit callbacks), then
  // take what is already fetched without waiting: Kafka's poll() semantics.
  rd_kafka_message_t* first = rd_kafka_consumer_poll(rk_, timeout_ms);
  if (!authentication_error_.empty()) {
    if (first != nullptr) rd_kafka_message_destroy(first);
    return AuthenticationFailure(authentication_error_);
  }
  if (first == nullptr) return absl::OkStatus();
  int64_t now_ms = absl::ToUnixMillis(absl::Now());
  absl::Status status;
  if (first->err && first->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    // Fatal errors stop the worker; others are informational.
    char fatal[256];
    if (rd_kafka_fatal_error(rk_, fatal, sizeof(fatal)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      status = absl::InternalError(absl::StrCat("fatal Kafka consumer error: ", fatal));
    } else if (first->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
               first->err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
               first->err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
      status = KafkaError(first->err, "consuming");
    }
    rd_kafka_message_destroy(first);
    return status;
  }
  Convert(first, now_ms, out);
  rd_kafka_message_destroy(first);
  if (max_records > 1) {
    ssize_t n = rd_kafka_consume_batch_queue(queue_, 0, buf_.data(), max_records - 1);
    for (ssize_t i = 0; i < n; ++i) {
      Convert(buf_[i], now_ms, out);
      rd_kafka_message_destroy(buf_[i]);
    }
  }
  return absl::OkStatus();
}

absl::Status KafkaConsumer::Commit(const std::vector<PartitionOffset>& offsets, bool async) {
  if (offsets.empty()) return absl::OkStatus();
  rd_kafka_topic_partition_list_t* list = ToList(offsets);
  absl::Status status;
  if (async && rejoining_ && absl::Now() - rejoin_since_ > kRejoinHoldLimit) {
    // Never hold commits for long whatever the callbacks were.
    rejoining_ = false;
  }
  if (async && !rejoining_ && Joining()) {
    // This member's JoinGroup is in flight. The coordinator answers requests
    // on a connection in order, so this commit would be read once the join
    // has completed, with the generation it leaves: "illegal generation",
    // on which Debian 12's librdkafka 2.0.2 drops the whole
    // assignment as lost and the new owners re-read what this member
    // delivered (librdkafka issue 4059, fixed by its pull request 4908).
    spdlog::info("Kafka consumer: rejoining the group; offset commits wait for the new "
                 "assignment");
    HoldCommits();
  }
  if (async && rejoining_) {
    // The group is rebalancing: the broker would refuse this commit, and
    // librdkafka does not rejoin while commits are outstanding. Keep it for
    // the worker to send once this member has rejoined.
    failed_commits_.insert(failed_commits_.end(), offsets.begin(), offsets.end());
  } else if (async) {
    if (rd_kafka_resp_err_t err = rd_kafka_commit(rk_, list, 1); err) {
      metrics_->Increment(kCommitMetric, {{"success", "false"}});
    }
  } else {
    status = CommitSync(list);
  }
  rd_kafka_topic_partition_list_destroy(list);
  return status;
}

absl::Status KafkaConsumer::CommitSync(rd_kafka_topic_partition_list_t* list) {
  // rd_kafka_commit(..., async=0) waits without a bound; with the coordinator
  // gone (broker down during shutdown or a revoke) the worker would hang
  // forever. Commit through a private queue and wait at most
  // kSyncCommitTimeout: on timeout the offsets stay uncommitted and the
  // records are redelivered (at-least-once, nothing lost).
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  rd_kafka_resp_err_t err = rd_kafka_commit_queue(rk_, list, q, nullptr, nullptr);
  absl::Status status;
  if (err) {
    status = KafkaError(err, "committing offsets");
  } else {
    const absl::Time deadline = std::min(absl::Now() + kSyncCommitTimeout, shutdown_deadline_);
    rd_kafka_event_t* ev = nullptr;
    while (ev == nullptr && absl::Now() < deadline) {
      ev = rd_kafka_queue_poll(q, 100);
      if (ev != nullptr && rd_kafka_event_type(ev) != RD_KAFKA_EVENT_OFFSET_COMMIT) {
        rd_kafka_event_destroy(ev);
        ev = nullptr;
      }
    }
    if (ev == nullptr) {
      status = absl::DeadlineExceededError(
          "committing offsets: no answer from the group coordinator in time (the records are "
          "redelivered)");
    } else {
      err = rd_kafka_event_error(ev);
      if (const rd_kafka_topic_partition_list_t* res = rd_kafka_event_topic_partition_list(ev)) {
        for (int i = 0; !err && i < res->cnt; ++i) err = res->elems[i].err;
      }
      if (err) status = KafkaError(err, "committing offsets");
      rd_kafka_event_destroy(ev);
    }
  }
  rd_kafka_queue_destroy(q);
  metrics_->Increment(kCommitMetric, {{"success", status.ok() ? "true" : "false"}});
  return status;
}

void KafkaConsumer::SetPaused(bool paused) {
  if (paused == paused_) return;
  paused_ = paused;
  rd_kafka_topic_partition_list_t* assigned = nullptr;
  if (rd_kafka_assignment(rk_, &assigned) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
  if (paused) {
    rd_kafka_pause_partitions(rk_, assigned);
  } else {
    rd_kafka_resume_partitions(rk_, assigned);
  }
  rd_kafka_topic_partition_list_destroy(assigned);
}

void KafkaConsumer::KeepAlive() {
  if (closed_) return;
  // rd_kafka_consumer_poll is what resets the max.poll.interval.ms timer;
  // with every partition paused (pausing also drops what was prefetched)
  // it serves only group and commit events.
  rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 0);
  if (m == nullptr) return;
  if (!m->err && m->rkt != nullptr) {
    // Not expected while paused; never let a record slip past the worker:
    // rewind its partition so that the next Poll after resuming returns it.
    rd_kafka_topic_partition_list_t* at = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(at, rd_kafka_topic_name(m->rkt), m->partition)->offset =
        m->offset;
    rd_kafka_error_t* e = rd_kafka_seek_partitions(rk_, at, 5000);
    if (e != nullptr) rd_kafka_error_destroy(e);
    rd_kafka_topic_partition_list_destroy(at);
  }
  rd_kafka_message_destroy(m);
}

absl::Status KafkaConsumer::Seek(const std::vector<PartitionOffset>& offsets) {
  if (offsets.empty()) return absl::OkStatus();
  rd_kafka_topic_partition_list_t* list = ToList(offsets);
  absl::Status status;
  // Purges what was prefetched for these partitions (librdkafka versions
  // its fetch queue per seek), so the next poll starts at the new offsets.
  if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk_, list, 10000)) {
    status = absl::UnavailableError(absl::StrCat("seeking: ", rd_kafka_error_string(e)));
    rd_kafka_error_destroy(e);
  }
  for (int i = 0; status.ok() && i < list->cnt; ++i) {
    if (list->elems[i].err) {
      status = KafkaError(list->elems[i].err,
                          absl::StrCat("seeking ", list->elems[i].topic, "-",
                                       list->elems[i].partition, " to ", list->elems[i].offset));
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  return status;
}

std::vector<PartitionStatus> KafkaConsumer::Partitions() {
  std::vector<PartitionStatus> out;
  rd_kafka_topic_partition_list_t* assigned = nullptr;
  if (rd_kafka_assignment(rk_, &assigned) != RD_KAFKA_RESP_ERR_NO_ERROR) return out;
  rd_kafka_position(rk_, assigned);
  for (int i = 0; i < assigned->cnt; ++i) {
    const auto& e = assigned->elems[i];
    PartitionStatus s;
    s.tp = {e.topic, e.partition};
    s.position = e.offset >= 0 ? e.offset : -1;
    int64_t low = -1, high = -1;
    if (rd_kafka_get_watermark_offsets(rk_, e.topic, e.partition, &low, &high) ==
            RD_KAFKA_RESP_ERR_NO_ERROR &&
        high >= 0) {
      s.high_watermark = high;
      if (s.position >= 0) s.lag = std::max<int64_t>(0, high - s.position);
    }
    s.paused = paused_;
    out.push_back(std::move(s));
  }
  rd_kafka_topic_partition_list_destroy(assigned);
  return out;
}

absl::Status KafkaConsumer::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  if (shutdown_deadline_ == absl::InfiniteFuture()) {
    return KafkaError(rd_kafka_consumer_close(rk_), "closing consumer");
  }
  // rd_kafka_consumer_close waits without a bound for the revoke, its commit
  // and the LeaveGroup; with the broker gone that took ~36 s. Close in the
  // background and serve its queue (rebalance callback included) until the
  // deadline.
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk_);
  absl::Status status;
  if (rd_kafka_error_t* e = rd_kafka_consumer_close_queue(rk_, q)) {
    status = absl::UnknownError(absl::StrCat("closing consumer: ", rd_kafka_error_string(e)));
    rd_kafka_error_destroy(e);
  } else {
    while (!rd_kafka_consumer_closed(rk_) && absl::Now() < shutdown_deadline_) {
      // Events, not callbacks (rd_kafka_queue_poll_callback asserts on the
      // error events a closing consumer forwards here). The final revoke is
      // served as the rebalance callback would: its commit is bounded by the
      // same deadline.
      rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 100);
      if (ev == nullptr) continue;
      if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_REBALANCE) {
        OnRebalance(rd_kafka_event_error(ev), rd_kafka_event_topic_partition_list(ev));
      }
      rd_kafka_event_destroy(ev);
    }
    if (!rd_kafka_consumer_closed(rk_)) {
      close_abandoned_ = true;
      status = absl::DeadlineExceededError(
          "closing consumer: the group was not left before the shutdown deadline (the broker "
          "will expire this member after session.timeout.ms)");
    }
  }
  rd_kafka_queue_destroy(q);
  return status;
}

}  // namespace sluice::sink
