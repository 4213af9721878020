-- A shop as pg_dump writes it: the column types a PostgreSQL gold depends on
-- (numeric(10,2), varchar(20), integer, date, an enum).

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

CREATE TYPE public.grade AS ENUM ('low', 'mid', 'high', 'it''s \ odd');

CREATE TABLE public.shop (
    shop_id integer NOT NULL,
    city character varying(20) NOT NULL
);

CREATE TABLE public.item (
    item_id integer NOT NULL,
    shop_id integer,
    name character varying(20) NOT NULL,
    price numeric(10,2) NOT NULL,
    sold date,
    grade public.grade
);

COPY public.shop (shop_id, city) FROM stdin;
1	Lyon
2	Porto
\.

COPY public.item (item_id, shop_id, name, price, sold, grade) FROM stdin;
1	1	tea	0.10	2024-01-05	low
2	1	cake	0.20	2024-02-29	mid
3	2	wine	12.35	\N	high
4	2	bread	1.99	2023-12-31	low
\.

ALTER TABLE ONLY public.shop
    ADD CONSTRAINT shop_pkey PRIMARY KEY (shop_id);

ALTER TABLE ONLY public.item
    ADD CONSTRAINT item_pkey PRIMARY KEY (item_id);

ALTER TABLE ONLY public.item
    ADD CONSTRAINT item_shop_id_fkey FOREIGN KEY (shop_id) REFERENCES public.shop(shop_id);
