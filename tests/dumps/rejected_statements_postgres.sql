--
-- A PostgreSQL dump in pg_dump's plain format, made on a server that had
-- PostGIS, restored where it is not installed: psql (without
-- ON_ERROR_STOP) prints an error for the table with a `geometry` column,
-- for its COPY and for an index the server cannot build, and loads
-- everything else.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

CREATE TABLE public.station (
    id integer NOT NULL,
    name text NOT NULL,
    opened date
);

CREATE TABLE public.station_place (
    station_id integer NOT NULL,
    place public.geometry(Point,4326)
);

CREATE TABLE public.reading (
    station_id integer NOT NULL,
    taken date NOT NULL,
    rain numeric(6,2)
);

COPY public.station (id, name, opened) FROM stdin;
1	Lerwick	1957-01-01
2	Valentia	1860-05-01
3	Camborne	\N
\.

COPY public.station_place (station_id, place) FROM stdin;
1	0101000020E6100000CDCCCCCCCCCCF4BF9A99999999194E40
2	0101000020E61000003333333333332AC09A99999999F94940
\.

COPY public.reading (station_id, taken, rain) FROM stdin;
1	2024-01-01	3.20
1	2024-01-02	0.00
2	2024-01-01	11.45
3	2024-01-01	\N
\.

CREATE INDEX station_place_gix ON public.station_place USING gist (place);

CREATE INDEX station_name_gist ON public.station USING gist (name);

ALTER TABLE ONLY public.station
    ADD CONSTRAINT station_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.reading
    ADD CONSTRAINT reading_station_fkey FOREIGN KEY (station_id) REFERENCES public.station(id);
