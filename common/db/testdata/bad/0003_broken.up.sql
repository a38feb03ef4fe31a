ALTER TABLE widgets ADD COLUMN size integer;
SELECT * FROM no_such_table;
