--
-- A pg_dump of a partitioned table, as Pagila ships its payments: the
-- parent and each partition are tables a query may name; and a
-- materialized view refreshed at the end of the dump; names in
-- character(n), padded with spaces PostgreSQL ignores.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.customer (
    customer_id integer NOT NULL,
    name character(12) NOT NULL
);

CREATE TABLE public.payment (
    payment_id integer NOT NULL,
    customer_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamp with time zone NOT NULL
)
PARTITION BY RANGE (payment_date);

CREATE TABLE public.payment_p2022_01 (
    payment_id integer NOT NULL,
    customer_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamp with time zone NOT NULL
);

CREATE TABLE public.payment_p2022_02 (
    payment_id integer NOT NULL,
    customer_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p2022_01 FOR VALUES FROM ('2022-01-01 00:00:00+00') TO ('2022-02-01 00:00:00+00');
ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p2022_02 FOR VALUES FROM ('2022-02-01 00:00:00+00') TO ('2022-03-01 00:00:00+00');

CREATE MATERIALIZED VIEW public.paid_by_customer AS
 SELECT c.name, sum(p.amount) AS total
   FROM (public.payment p JOIN public.customer c ON ((c.customer_id = p.customer_id)))
  GROUP BY c.name
  WITH NO DATA;

COPY public.customer (customer_id, name) FROM stdin;
1	Mary
2	Patricia
\.

COPY public.payment_p2022_01 (payment_id, customer_id, amount, payment_date) FROM stdin;
1	1	2.99	2022-01-28 21:40:19.996577+00
2	2	0.99	2022-01-29 01:58:52.222594+00
\.

COPY public.payment_p2022_02 (payment_id, customer_id, amount, payment_date) FROM stdin;
3	1	5.99	2022-02-01 00:00:00+00
4	1	4.99	2022-02-14 15:16:03+00
5	2	9.99	2022-02-28 23:59:59.5+00
\.

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_pkey PRIMARY KEY (customer_id);

ALTER TABLE ONLY public.payment
    ADD CONSTRAINT payment_pkey PRIMARY KEY (payment_date, payment_id);

ALTER TABLE ONLY public.payment_p2022_01
    ADD CONSTRAINT payment_p2022_01_pkey PRIMARY KEY (payment_date, payment_id);

ALTER TABLE ONLY public.payment_p2022_02
    ADD CONSTRAINT payment_p2022_02_pkey PRIMARY KEY (payment_date, payment_id);

ALTER INDEX public.payment_pkey ATTACH PARTITION public.payment_p2022_01_pkey;
ALTER INDEX public.payment_pkey ATTACH PARTITION public.payment_p2022_02_pkey;

ALTER TABLE public.payment
    ADD CONSTRAINT payment_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customer(customer_id);

REFRESH MATERIALIZED VIEW public.paid_by_customer;
