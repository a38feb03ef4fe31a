-- The W3C traceparent of the request that created the notification (issue
-- 43, "Traces"): its messages are delivered later by a worker, which
-- continues that trace, so receivers' HTTP calls and the delivery's log lines
-- carry the request's trace id. NULL when created outside a traced request.
ALTER TABLE notifications ADD COLUMN traceparent text;
