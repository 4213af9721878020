--
-- PostgreSQL database dump, schema and data written apart as publishers
-- often ship them (pg_dump -s, then pg_dump -a --disable-triggers): the
-- foreign keys exist before the rows, and the rows come in an order that
-- breaks them until the end (staff and store point at each other), so
-- each table's rows are wrapped in DISABLE / ENABLE TRIGGER ALL.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET client_min_messages = warning;

CREATE TYPE public.mpaa_rating AS ENUM (
    'G',
    'PG',
    'PG-13',
    'R',
    'NC-17'
);

CREATE TABLE public.store (
    store_id integer NOT NULL,
    manager_staff_id integer NOT NULL,
    city text NOT NULL
);

CREATE TABLE public.staff (
    staff_id integer NOT NULL,
    name text NOT NULL,
    store_id integer NOT NULL
);

CREATE TABLE public.film (
    film_id integer NOT NULL,
    title text NOT NULL,
    rating public.mpaa_rating DEFAULT 'G'::public.mpaa_rating,
    rental_rate numeric(4,2) NOT NULL
);

CREATE TABLE public.inventory (
    inventory_id integer NOT NULL,
    film_id integer NOT NULL,
    store_id integer NOT NULL
);

-- An old table whose rows break their key: the publisher's own load (as a
-- superuser, checks off) keeps them.
CREATE TABLE public.legacy_rental (
    rental_id integer NOT NULL,
    inventory_id integer NOT NULL
);

ALTER TABLE ONLY public.store ADD CONSTRAINT store_pkey PRIMARY KEY (store_id);
ALTER TABLE ONLY public.staff ADD CONSTRAINT staff_pkey PRIMARY KEY (staff_id);
ALTER TABLE ONLY public.film ADD CONSTRAINT film_pkey PRIMARY KEY (film_id);
ALTER TABLE ONLY public.inventory ADD CONSTRAINT inventory_pkey PRIMARY KEY (inventory_id);
ALTER TABLE ONLY public.legacy_rental ADD CONSTRAINT legacy_rental_pkey PRIMARY KEY (rental_id);
ALTER TABLE ONLY public.store
    ADD CONSTRAINT store_manager_staff_id_fkey FOREIGN KEY (manager_staff_id) REFERENCES public.staff(staff_id);
ALTER TABLE ONLY public.staff
    ADD CONSTRAINT staff_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.store(store_id);
ALTER TABLE ONLY public.inventory
    ADD CONSTRAINT inventory_film_id_fkey FOREIGN KEY (film_id) REFERENCES public.film(film_id) ON UPDATE CASCADE;
ALTER TABLE ONLY public.inventory
    ADD CONSTRAINT inventory_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.store(store_id);
ALTER TABLE ONLY public.legacy_rental
    ADD CONSTRAINT legacy_rental_inventory_id_fkey FOREIGN KEY (inventory_id) REFERENCES public.inventory(inventory_id);

--
-- Data for Name: staff; Type: TABLE DATA; Schema: public; Owner: postgres
--

SET session_replication_role = replica;

ALTER TABLE public.staff DISABLE TRIGGER ALL;

COPY public.staff (staff_id, name, store_id) FROM stdin;
1	Mike	1
2	Jon	2
\.

ALTER TABLE public.staff ENABLE TRIGGER ALL;

ALTER TABLE public.store DISABLE TRIGGER ALL;

COPY public.store (store_id, manager_staff_id, city) FROM stdin;
1	1	Lethbridge
2	2	Woodridge
\.

ALTER TABLE public.store ENABLE TRIGGER ALL;

ALTER TABLE public.inventory DISABLE TRIGGER ALL;

COPY public.inventory (inventory_id, film_id, store_id) FROM stdin;
1	1	1
2	1	2
3	2	1
4	3	2
5	4	1
6	5	2
\.

ALTER TABLE public.inventory ENABLE TRIGGER ALL;

ALTER TABLE public.film DISABLE TRIGGER ALL;

COPY public.film (film_id, title, rating, rental_rate) FROM stdin;
1	ACADEMY DINOSAUR	PG	0.99
2	ACE GOLDFINGER	G	4.99
3	ADAPTATION HOLES	NC-17	2.99
4	AFFAIR PREJUDICE	G	2.99
5	AFRICAN EGG	R	2.99
\.

ALTER TABLE public.film ENABLE TRIGGER ALL;

ALTER TABLE public.legacy_rental DISABLE TRIGGER ALL;

COPY public.legacy_rental (rental_id, inventory_id) FROM stdin;
1	1
2	99
\.

ALTER TABLE public.legacy_rental ENABLE TRIGGER ALL;

RESET session_replication_role;
