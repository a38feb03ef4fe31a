// Notifications and the delivery queue on PostgreSQL (alerts and silences:
// alert_store.cc).
#include "absl/strings/str_cat.h"
#include "common/trace/trace_context.h"
#include "server/notification/store/sql_util.h"
#include "server/notification/store/store.h"

namespace sluice::notification {

using namespace sqlutil;  // NOLINT: local helpers

namespace {

double Seconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

const std::string kMessageCols =
    "m.id, m.notification_id, m.receiver_id, m.receiver_type, m.status, m.try_count, "
    "m.max_tries, m.last_error, " +
    Micros("m.created_at") + ", " + Micros("m.updated_at") + ", " + Micros("m.expire_at") + ", " +
    Micros("m.next_attempt_at");

Message MessageFromRow(const soci::row& row) {
  Message m;
  m.id = static_cast<uint64_t>(row.get<long long>(0));
  m.notification_id = static_cast<uint64_t>(row.get<long long>(1));
  m.receiver_id = static_cast<uint64_t>(row.get<long long>(2));
  m.receiver_type = row.get<std::string>(3);
  m.status = row.get<std::string>(4);
  m.try_count = row.get<int>(5);
  m.max_tries = row.get<int>(6);
  m.last_error = row.get<std::string>(7);
  m.created_at = TimeFromMicros(row.get<long long>(8));
  m.updated_at = TimeFromMicros(row.get<long long>(9));
  m.expire_at = TimeFromMicros(row.get<long long>(10));
  m.next_attempt_at = TimeFromMicros(row.get<long long>(11));
  return m;
}

}  // namespace

absl::StatusOr<uint64_t> PostgresNotificationRepository::Create(
    const Notification& n, const std::vector<Delivery>& deliveries, int max_tries,
    absl::Time expire_at) {
  long long id = 0;
  // One statement (atomic on its own, one round trip): the notification and
  // its messages, or nothing when the idempotency key is already taken.
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    std::string data = n.data.dump(), labels = LabelsText(n.labels);
    std::string traceparent = trace::CurrentTraceparent();
    nlohmann::json rows = nlohmann::json::array();
    for (const Delivery& d : deliveries) {
      rows.push_back({{"receiver_id", d.receiver_id},
                      {"receiver_type", d.receiver_type},
                      {"config_override", d.config_override}});
    }
    std::string rows_text = rows.dump();
    double exp = Seconds(expire_at);
    soci::indicator ind = soci::i_null;
    sql << "WITH n AS (INSERT INTO notifications (idempotency_key, template, data, labels, source, "
           "created_by, traceparent) VALUES (NULLIF(:k, ''), :t, CAST(:d AS jsonb), "
           "CAST(:l AS jsonb), :s, :cb, NULLIF(:tp, '')) "
           "ON CONFLICT (idempotency_key) DO NOTHING RETURNING id), "
           "m AS (INSERT INTO notification_messages (notification_id, receiver_id, receiver_type, "
           "config_override, max_tries, expire_at) SELECT n.id, (x->>'receiver_id')::bigint, "
           "x->>'receiver_type', x->'config_override', :mt, to_timestamp(:e) "
           "FROM n, jsonb_array_elements(CAST(:rows AS jsonb)) x) "
           "SELECT id FROM n",
        soci::use(n.idempotency_key), soci::use(n.template_name), soci::use(data),
        soci::use(labels), soci::use(n.source), soci::use(n.created_by), soci::use(traceparent),
        soci::use(max_tries),
        soci::use(exp),
        soci::use(rows_text), soci::into(id, ind);
    if (!sql.got_data() || ind == soci::i_null) {
      // A concurrent request with the same key won: return its id.
      sql << "SELECT id FROM notifications WHERE idempotency_key = :k",
          soci::use(n.idempotency_key), soci::into(id);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<uint64_t> PostgresNotificationRepository::FindByIdempotencyKey(
    absl::string_view key) {
  long long id = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string k(key);
    soci::indicator ind = soci::i_null;
    sql << "SELECT id FROM notifications WHERE idempotency_key = :k", soci::use(k),
        soci::into(id, ind);
    if (!sql.got_data() || ind == soci::i_null) id = 0;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<std::vector<Message>> PostgresNotificationRepository::ListMessages(
    uint64_t notification_id) {
  std::vector<Message> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    long long key = static_cast<long long>(notification_id);
    int exists = 0;
    sql << "SELECT count(*) FROM notifications WHERE id = :id", soci::use(key), soci::into(exists);
    if (exists == 0) {
      return absl::NotFoundError(absl::StrCat("notification ", notification_id, " not found"));
    }
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kMessageCols
                     << " FROM notification_messages m WHERE m.notification_id = :id ORDER BY m.id",
         soci::use(key));
    for (const soci::row& row : rs) out.push_back(MessageFromRow(row));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> PostgresNotificationRepository::GetCreator(uint64_t notification_id) {
  std::string created_by;
  bool found = false;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    long long key = static_cast<long long>(notification_id);
    sql << "SELECT created_by FROM notifications WHERE id = :id", soci::use(key),
        soci::into(created_by);
    found = sql.got_data();
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!found) return absl::NotFoundError(absl::StrCat("notification ", notification_id, " not found"));
  return created_by;
}

absl::StatusOr<std::vector<Notification>> PostgresNotificationRepository::ListNotifications(
    const NotificationFilter& filter, int limit) {
  std::vector<Notification> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    std::string labels = LabelsText(filter.labels);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT id, template, data::text, labels::text, source, created_by, "
                     << Micros("created_at")
                     << " FROM notifications WHERE CAST(:cb AS text) IN ('', created_by) "
                        "AND CAST(:t AS text) IN ('', template) AND CAST(:s AS text) IN ('', source) "
                        "AND labels @> CAST(:l AS jsonb) ORDER BY id DESC LIMIT "
                     << limit,
         soci::use(filter.created_by), soci::use(filter.template_name), soci::use(filter.source),
         soci::use(labels));
    for (const soci::row& row : rs) {
      Notification n;
      n.id = static_cast<uint64_t>(row.get<long long>(0));
      n.template_name = row.get<std::string>(1);
      n.data = JsonFromText(row.get<std::string>(2));
      n.labels = LabelsFromText(row.get<std::string>(3));
      n.source = row.get<std::string>(4);
      n.created_by = row.get<std::string>(5);
      n.created_at = TimeFromMicros(row.get<long long>(6));
      out.push_back(std::move(n));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<int> PostgresNotificationRepository::ExpireDue(absl::Time now) {
  long long n = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    double t = Seconds(now);
    soci::statement stmt =
        (sql.prepare << "UPDATE notification_messages SET status = 'expired', updated_at = now(), "
                        "last_error = CASE WHEN last_error = '' THEN 'expired before delivery' "
                        "ELSE 'expired before delivery; last error: ' || last_error END "
                        "WHERE status = 'enqueued' AND expire_at < to_timestamp(:t)",
         soci::use(t));
    stmt.execute(true);
    n = Affected(stmt);
    // A worker that died during the last try leaves a stale lease: do not
    // exceed max_tries by claiming it again.
    sql << "UPDATE notification_messages SET status = 'failed', updated_at = now(), "
           "last_error = 'lease expired during the last try (worker lost); last error: ' || "
           "last_error WHERE status = 'pending' AND lease_until < now() AND try_count >= max_tries";
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<int>(n);
}

absl::StatusOr<int64_t> PostgresNotificationRepository::DeletePublished(absl::Time before) {
  long long n = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    double t = Seconds(before);
    soci::statement stmt =
        (sql.prepare << "DELETE FROM notification_messages WHERE status = 'published' "
                        "AND updated_at < to_timestamp(:t)",
         soci::use(t));
    stmt.execute(true);
    n = Affected(stmt);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<int64_t>(n);
}

absl::StatusOr<std::vector<ClaimedMessage>> PostgresNotificationRepository::Claim(
    int limit, absl::Duration lease) {
  std::vector<ClaimedMessage> out;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) {
    double lease_s = absl::ToDoubleSeconds(lease);
    // Claim due rows, skipping those other workers (or replicas) hold.
    soci::rowset<soci::row> rs =
        (sql.prepare
             << "WITH due AS (SELECT id FROM notification_messages "
                "WHERE (status = 'enqueued' AND next_attempt_at <= now()) "
                "OR (status = 'pending' AND lease_until < now()) "
                "ORDER BY next_attempt_at, id LIMIT :lim FOR UPDATE SKIP LOCKED), "
                "claimed AS (UPDATE notification_messages m SET status = 'pending', "
                "try_count = m.try_count + 1, lease_until = now() + make_interval(secs => :lease), "
                "lease_token = gen_random_uuid(), "
                "updated_at = now() FROM due WHERE m.id = due.id RETURNING m.*) "
                "SELECT "
             << kMessageCols
             << ", m.config_override::text, n.template, n.data::text, "
                "COALESCE(r.configurations::text, ''), (r.id IS NOT NULL)::int, "
                "COALESCE(t.name, ''), COALESCE(t.body, ''), COALESCE(t.variables::text, '[]'), "
                "m.lease_token::text, COALESCE(t.engine, 'mustache'), "
                "COALESCE(r.parent_id, 0), COALESCE(p.type, ''), "
                "COALESCE(p.configurations::text, ''), n.labels::text, n.source, "
                "COALESCE(n.traceparent, '') "
                "FROM claimed m JOIN notifications n ON n.id = m.notification_id "
                "LEFT JOIN receivers r ON r.id = m.receiver_id "
                "LEFT JOIN receivers p ON p.id = r.parent_id AND r.parent_id <> 0 "
                "LEFT JOIN templates t ON t.name = n.template ORDER BY m.id",
         soci::use(limit), soci::use(lease_s));
    for (const soci::row& row : rs) {
      ClaimedMessage c;
      c.message = MessageFromRow(row);
      c.config_override = JsonFromText(row.get<std::string>(12));
      c.template_name = row.get<std::string>(13);
      c.data = JsonFromText(row.get<std::string>(14));
      c.receiver_config = JsonFromText(row.get<std::string>(15));
      c.receiver_exists = row.get<int>(16) != 0;
      c.lease = row.get<std::string>(20);
      c.parent_id = static_cast<uint64_t>(row.get<long long>(22));
      c.parent_type = row.get<std::string>(23);
      if (!c.parent_type.empty()) c.parent_config = JsonFromText(row.get<std::string>(24));
      c.labels = JsonFromText(row.get<std::string>(25));
      c.source = row.get<std::string>(26);
      c.traceparent = row.get<std::string>(27);
      if (!row.get<std::string>(17).empty()) {
        Template t;
        t.name = row.get<std::string>(17);
        t.body = row.get<std::string>(18);
        t.engine = row.get<std::string>(21);
        for (const auto& v : JsonFromText(row.get<std::string>(19))) {
          if (!v.is_object()) continue;  // a throw here would fail every Claim
          auto field = [&](const char* k) {
            return v.contains(k) && v[k].is_string() ? v[k].get<std::string>() : std::string();
          };
          t.variables.push_back(TemplateVariable{field("name"), field("type"), field("default"),
                                                 field("description")});
        }
        c.user_template = std::move(t);
      }
      out.push_back(std::move(c));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

namespace {

// Every outcome UPDATE matches only the claimed row: its id, `pending`, and
// the claim's lease token (Claim replaces it, every outcome clears it). It
// also clears the lease.
constexpr char kHeldSet[] = "lease_token = NULL, lease_until = NULL, updated_at = now() ";
constexpr char kHeldWhere[] =
    "WHERE id = :id AND status = 'pending' AND lease_token::text = :lease";
// MarkPublished also matches a row ExpireDue failed because this claim's
// lease ran out on the last try (it keeps the token): the send did succeed.
constexpr char kPublishedWhere[] =
    "WHERE id = :id AND status IN ('pending', 'failed') AND lease_token::text = :lease";

// Aborted when the UPDATE matched nothing: the lease moved on.
absl::Status HeldOrAborted(long long affected, uint64_t message_id) {
  if (affected > 0) return absl::OkStatus();
  return absl::AbortedError(absl::StrCat(
      "message ", message_id,
      ": the lease was lost (the message was claimed again); outcome not recorded"));
}

}  // namespace

absl::Status PostgresNotificationRepository::MarkPublished(uint64_t message_id,
                                                           absl::string_view lease) {
  long long affected = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long id = static_cast<long long>(message_id);
    std::string token(lease);
    soci::statement stmt =
        (sql.prepare << "UPDATE notification_messages SET status = 'published', " << kHeldSet
                     << kPublishedWhere,
         soci::use(id), soci::use(token));
    stmt.execute(true);
    affected = Affected(stmt);
    return absl::OkStatus();
  });
  return st.ok() ? HeldOrAborted(affected, message_id) : st;
}

absl::Status PostgresNotificationRepository::MarkFailed(uint64_t message_id,
                                                        absl::string_view lease,
                                                        absl::string_view error) {
  long long affected = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long id = static_cast<long long>(message_id);
    std::string token(lease), e(error);
    soci::statement stmt =
        (sql.prepare << "UPDATE notification_messages SET status = 'failed', last_error = :e, "
                     << kHeldSet << kHeldWhere,
         soci::use(e), soci::use(id), soci::use(token));
    stmt.execute(true);
    affected = Affected(stmt);
    return absl::OkStatus();
  });
  return st.ok() ? HeldOrAborted(affected, message_id) : st;
}

absl::Status PostgresNotificationRepository::MarkRetry(uint64_t message_id,
                                                       absl::string_view lease,
                                                       absl::string_view error,
                                                       absl::Time next_attempt_at) {
  long long affected = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long id = static_cast<long long>(message_id);
    std::string token(lease), e(error);
    double t = Seconds(next_attempt_at);
    soci::statement stmt =
        (sql.prepare << "UPDATE notification_messages SET status = 'enqueued', last_error = :e, "
                        "next_attempt_at = to_timestamp(:t), "
                     << kHeldSet << kHeldWhere,
         soci::use(e), soci::use(t), soci::use(id), soci::use(token));
    stmt.execute(true);
    affected = Affected(stmt);
    return absl::OkStatus();
  });
  return st.ok() ? HeldOrAborted(affected, message_id) : st;
}

absl::Status PostgresNotificationRepository::Release(uint64_t message_id, absl::string_view lease) {
  long long affected = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long id = static_cast<long long>(message_id);
    std::string token(lease);
    soci::statement stmt =
        (sql.prepare << "UPDATE notification_messages SET status = 'enqueued', "
                        "try_count = try_count - 1, "
                     << kHeldSet << kHeldWhere,
         soci::use(id), soci::use(token));
    stmt.execute(true);
    affected = Affected(stmt);
    return absl::OkStatus();
  });
  return st.ok() ? HeldOrAborted(affected, message_id) : st;
}

}  // namespace sluice::notification
