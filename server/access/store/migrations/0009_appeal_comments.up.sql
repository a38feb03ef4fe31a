-- Appeal comments (issue 28, Guardian's AppealComment): free text by
-- whoever may read the appeal, listed per appeal in creation order.
CREATE TABLE appeal_comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  appeal_id uuid NOT NULL REFERENCES appeals (id),
  created_by text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX appeal_comments_appeal_idx ON appeal_comments (appeal_id, created_at);
