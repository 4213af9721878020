-- A sample that makes a login of its own for its exercises, as the
-- pgexercises sample's clubdata.sql does: the login, its setting and its
-- grants are the sample's, the tables in schema cd are what a gold reads.
CREATE DATABASE exercises;
CREATE USER swt_sample_exercises with password '' VALID UNTIL 'infinity';
ALTER USER swt_sample_exercises SET statement_timeout = 750;
GRANT CONNECT ON DATABASE exercises TO swt_sample_exercises;
\c exercises
CREATE SCHEMA cd;
ALTER SCHEMA cd OWNER TO swt_sample_exercises;

CREATE TABLE cd.facilities (
    facid integer NOT NULL PRIMARY KEY,
    name character varying(100) NOT NULL,
    membercost numeric NOT NULL
);

CREATE TABLE cd.bookings (
    bookid integer NOT NULL PRIMARY KEY,
    facid integer NOT NULL REFERENCES cd.facilities(facid),
    slots integer NOT NULL
);

INSERT INTO cd.facilities (facid, name, membercost) VALUES
(0, 'Tennis Court 1', 5),
(1, 'Tennis Court 2', 5),
(2, 'Badminton Court', 0);

INSERT INTO cd.bookings (bookid, facid, slots) VALUES
(0, 0, 3),
(1, 1, 2),
(2, 0, 1),
(3, 2, 4);

GRANT SELECT ON ALL TABLES IN SCHEMA cd TO swt_sample_exercises;
