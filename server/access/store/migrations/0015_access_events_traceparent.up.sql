-- The W3C traceparent of the request whose change wrote the event (issue 43,
-- "Traces"): the dispatcher delivers it later and continues that trace, so
-- the notification it creates, and that notification's deliveries, keep the
-- request's trace id. NULL for events written by jobs (reminders).
ALTER TABLE access_events ADD COLUMN traceparent text;
