CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE);
INSERT INTO widgets (name) VALUES ('first');
