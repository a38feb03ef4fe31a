-- Which engine renders a template (issue 30): 'mustache' (Sluice's templates,
-- every existing row) or 'go' (Siren's Go text/template with a YAML body).
ALTER TABLE templates ADD COLUMN engine TEXT NOT NULL DEFAULT 'mustache'
  CHECK (engine IN ('mustache', 'go'));
