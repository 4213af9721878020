--
-- A PostgreSQL sample split in files, read by psql's \i and \ir, as
-- `psql -f main.sql` runs it from this folder.
--
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

\i schema.sql
\ir rows/items.sql
