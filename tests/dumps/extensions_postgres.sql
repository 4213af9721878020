--
-- PostgreSQL database dump: a table with a column of an extension's type
-- (citext), a default from another extension (uuid-ossp), and a column of
-- a composite type the dump defines.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;
COMMENT ON EXTENSION citext IS 'data type for case-insensitive character strings';
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA public;

CREATE TYPE public.spot AS (
    x integer,
    y integer
);

CREATE TABLE public.member (
    id integer NOT NULL,
    email public.citext NOT NULL,
    token uuid DEFAULT public.uuid_generate_v4() NOT NULL,
    place public.spot
);

CREATE TABLE public.visit (
    id integer NOT NULL,
    member_id integer,
    n integer
);

COPY public.member (id, email, place) FROM stdin;
1	Ann@Example.org	(1,2)
2	bob@example.org	\N
\.

COPY public.visit (id, member_id, n) FROM stdin;
1	1	3
2	1	4
3	2	5
\.

ALTER TABLE ONLY public.member
    ADD CONSTRAINT member_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.visit
    ADD CONSTRAINT visit_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.visit
    ADD CONSTRAINT visit_member_id_fkey FOREIGN KEY (member_id) REFERENCES public.member(id);
