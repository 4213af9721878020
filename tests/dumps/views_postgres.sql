-- Views as pg_dump writes them: two every engine can express (a join, a
-- filter, an aggregate, PostgreSQL's casts; an alias's column list) and one
-- only PostgreSQL can (DISTINCT ON), beside a materialized view that is
-- listed.

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.customer (
    id integer NOT NULL,
    name character varying(40) NOT NULL,
    country character varying(20)
);

CREATE TABLE public.orders (
    id integer NOT NULL,
    customer_id integer NOT NULL,
    total numeric(10,2) NOT NULL,
    placed date NOT NULL
);

CREATE VIEW public.big_spenders AS
 SELECT c.name,
    count(*) AS orders,
    sum(o.total) AS spent
   FROM (public.customer c
     JOIN public.orders o ON ((o.customer_id = c.id)))
  WHERE ((c.country)::text <> 'XX'::text)
  GROUP BY c.name
 HAVING (sum(o.total) > (50)::numeric);

ALTER VIEW public.big_spenders OWNER TO postgres;

CREATE VIEW public.latest_order AS
 SELECT DISTINCT ON (o.customer_id) o.customer_id,
    o.id,
    o.placed
   FROM public.orders o
  ORDER BY o.customer_id, o.placed DESC;

-- Columns renamed by a column list on a table's alias, as pg_dump prints
-- such a view (Book Town's recent_shipments): SQLite reads no such list.
CREATE VIEW public.renamed AS
 SELECT k.who,
    count(*) AS n
   FROM (public.customer k(num, who, land)
     JOIN public.orders o ON ((o.customer_id = k.num)))
  GROUP BY k.who;

CREATE MATERIALIZED VIEW public.totals AS
 SELECT sum(total) AS total FROM public.orders
  WITH NO DATA;

COPY public.customer (id, name, country) FROM stdin;
1	Ada	DE
2	Bo	FR
3	Cy	XX
4	Di	\N
\.

COPY public.orders (id, customer_id, total, placed) FROM stdin;
1	1	40.00	2024-01-02
2	1	25.50	2024-02-03
3	2	10.00	2024-01-05
4	3	99.00	2024-03-01
5	4	70.25	2024-03-02
6	2	60.00	2024-04-01
\.

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
