--
-- Two benchmark databases in one PostgreSQL dump, as BIRD mini-dev ships
-- its eleven: every table in `public`, a tables.json saying which db_id
-- holds which tables.
--
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

CREATE TABLE public.schools (
    cds_code character varying(14) NOT NULL,
    county text,
    enrollment integer
);

CREATE TABLE public.satscores (
    cds character varying(14) NOT NULL,
    avg_math integer
);

CREATE TABLE public.superhero (
    id integer NOT NULL,
    superhero_name text,
    height_cm integer
);

COPY public.schools (cds_code, county, enrollment) FROM stdin;
01100170109835	Alameda	1200
01100170112607	Alameda	\N
19647330000000	Los Angeles	5000
\.

COPY public.satscores (cds, avg_math) FROM stdin;
01100170109835	520
19647330000000	488
\.

COPY public.superhero (id, superhero_name, height_cm) FROM stdin;
1	3-D Man	188
2	A-Bomb	203
\.

ALTER TABLE ONLY public.schools ADD CONSTRAINT schools_pkey PRIMARY KEY (cds_code);
ALTER TABLE ONLY public.satscores ADD CONSTRAINT satscores_pkey PRIMARY KEY (cds);
ALTER TABLE ONLY public.satscores ADD CONSTRAINT satscores_cds_fkey FOREIGN KEY (cds) REFERENCES public.schools(cds_code);
ALTER TABLE ONLY public.superhero ADD CONSTRAINT superhero_pkey PRIMARY KEY (id);
