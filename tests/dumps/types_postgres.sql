--
-- A hand-made PostgreSQL dump in pg_dump's plain format, holding one column
-- of each type family a real dump carries, a view, a function and a trigger.
--
SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN public.price AS numeric(10,2) CHECK (VALUE >= 0);

CREATE TABLE public.carried (
    id integer NOT NULL,
    small smallint,
    big bigint,
    flag boolean,
    amount numeric(10,2),
    huge numeric(30,10),
    ratio double precision,
    label character varying(20),
    fixed character(5),
    body text,
    feeling public.mood,
    cost public.price,
    doc jsonb,
    raw json,
    ident uuid,
    blob bytea,
    day date,
    at_time time without time zone,
    stamp timestamp without time zone,
    stamp_tz timestamp with time zone,
    bits bit varying(8),
    addr inet,
    mask bit(4)
);

ALTER TABLE public.carried OWNER TO postgres;

CREATE TABLE public.with_array (
    id integer NOT NULL,
    tags text[]
);

CREATE TABLE public.with_interval (
    id integer NOT NULL,
    span interval
);

CREATE TABLE public.with_point (
    id integer NOT NULL,
    place point
);

CREATE FUNCTION public.touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.label := 'touched; really';
  RETURN NEW;
END;
$$;

CREATE VIEW public.happy AS
 SELECT carried.id FROM public.carried WHERE (carried.feeling = 'happy'::public.mood);

COPY public.carried (id, small, big, flag, amount, huge, ratio, label, fixed, body, feeling, cost, doc, raw, ident, blob, day, at_time, stamp, stamp_tz, bits, addr, mask) FROM stdin;
1	-3	9007199254740993	t	19.99	12345678901234567890.0123456789	0.1	tab	ab	line1\nline2\ttabbed \\ back	happy	10.50	{"b": [1, 2], "a": 1}	{"z":1}	a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11	\\x00ff10	2024-02-29	23:59:59.5	2024-02-29 12:00:00	2024-02-29 12:00:00+02	1011	192.168.0.1/24	0011
2	\N	\N	f	1.00	0	-1e+300	\N	\N	\N	sad	0.00	null	[]	\N	\\x	1970-01-01	00:00:00	1970-01-01 00:00:00	1970-01-01 00:00:00+00	\N	\N	\N
\.

COPY public.with_array (id, tags) FROM stdin;
1	{a,b}
\.

COPY public.with_interval (id, span) FROM stdin;
1	1 day 02:00:00
\.

COPY public.with_point (id, place) FROM stdin;
1	(1,2)
\.

CREATE TRIGGER carried_touch BEFORE INSERT ON public.carried FOR EACH ROW EXECUTE FUNCTION public.touch();

ALTER TABLE ONLY public.carried
    ADD CONSTRAINT carried_pkey PRIMARY KEY (id);

GRANT ALL ON SCHEMA public TO PUBLIC;
