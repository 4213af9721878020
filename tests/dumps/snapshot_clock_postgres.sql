--
-- PostgreSQL database dump, in the style of a sample whose schema pins
-- the time of its snapshot with a function of its own named like a
-- built-in one, and reads it in a view.
--

SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;

CREATE SCHEMA timetable;

SET search_path = timetable, pg_catalog;

CREATE FUNCTION now() RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE
    AS $$SELECT '2017-08-15 15:00:00+00'::timestamptz$$;

CREATE FUNCTION label(code text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$SELECT 'flight ' || code$$;

CREATE TABLE flights (
    flight_id integer NOT NULL,
    flight_no character(6) NOT NULL,
    departure timestamp with time zone NOT NULL,
    status text NOT NULL
);

COPY flights (flight_id, flight_no, departure, status) FROM stdin;
1	PG0403	2017-06-13 08:25:00+03	Arrived
2	PG0404	2017-07-13 16:05:00+03	Arrived
3	PG0405	2017-08-10 06:35:00+03	Scheduled
\.

ALTER TABLE ONLY flights
    ADD CONSTRAINT flights_pkey PRIMARY KEY (flight_id);

-- Every row is before both clocks: the rows alone do not tell the two
-- now() apart.
CREATE VIEW past_flights AS
 SELECT f.flight_no, f.departure
   FROM flights f
  WHERE f.departure < now();

CREATE VIEW labelled AS
 SELECT label(f.flight_no) AS label FROM flights f;

CREATE VIEW arrived AS
 SELECT f.flight_no FROM flights f WHERE f.status = 'Arrived';
