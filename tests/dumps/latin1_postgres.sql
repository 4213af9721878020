--
-- A PostgreSQL dump written in LATIN1, laid out as the pgFoundry "world"
-- sample ships: the client encoding is set inside the dump's transaction,
-- and every byte after it is LATIN1, in COPY data and in statements alike
-- (psql sends the bytes as they are; the server converts them to UTF-8).
--

BEGIN;

SET client_encoding = 'LATIN1';

CREATE TABLE city (
    id integer NOT NULL,
    name text NOT NULL,
    countrycode character(3) NOT NULL,
    district text NOT NULL,
    population integer NOT NULL
);

CREATE TABLE country (
    code character(3) NOT NULL,
    name text NOT NULL,
    continent text NOT NULL,
    surfacearea real NOT NULL,
    lifeexpectancy real,
    gnp numeric(10,2),
    localname text NOT NULL,
    capital integer,
    CONSTRAINT country_continent_check CHECK ((continent = 'Asia'::text) OR (continent = 'Europe'::text) OR (continent = 'North America'::text) OR (continent = 'South America'::text))
);

CREATE TABLE countrylanguage (
    countrycode character(3) NOT NULL,
    "language" text NOT NULL,
    isofficial boolean NOT NULL,
    percentage real NOT NULL
);

COPY city (id, name, countrycode, district, population) FROM stdin;
1	Kabul	AFG	Kabol	1780000
20	´s-Hertogenbosch	NLD	Noord-Brabant	129170
33	Willemstad	ANT	Curaçao	2345
34	Tirana	ALB	Tirana	270000
206	São Paulo	BRA	São Paulo	9968485
\.

COPY country (code, name, continent, surfacearea, lifeexpectancy, gnp, localname, capital) FROM stdin;
AFG	Afghanistan	Asia	652090	45.9	5976.00	Afganistan/Afqanestan	1
ALB	Albania	Europe	28748	71.6	3205.00	Shqipëria	34
ANT	Netherlands Antilles	North America	800	74.7	1941.00	Nederlandse Antillen	33
BRA	Brazil	South America	8.547403e+06	62.9	776739.00	Brasil	206
NLD	Netherlands	Europe	41526	78.3	371362.00	Nederland	\N
\.

COPY countrylanguage (countrycode, "language", isofficial, percentage) FROM stdin;
AFG	Pashto	t	52.4
ALB	Albaniana	t	97.9
ANT	Papiamento	t	86.2
BRA	Portuguese	t	97.5
NLD	Fries	f	3.7
\.

INSERT INTO city VALUES (3068, 'Zürich', 'CHE', 'Zürich', 336800);
INSERT INTO countrylanguage VALUES ('NLD', 'Dutch', true, 95.6);

ALTER TABLE ONLY city
    ADD CONSTRAINT city_pkey PRIMARY KEY (id);

ALTER TABLE ONLY country
    ADD CONSTRAINT country_pkey PRIMARY KEY (code);

ALTER TABLE ONLY countrylanguage
    ADD CONSTRAINT countrylanguage_pkey PRIMARY KEY (countrycode, "language");

ALTER TABLE ONLY country
    ADD CONSTRAINT country_capital_fkey FOREIGN KEY (capital) REFERENCES city(id);

ALTER TABLE ONLY countrylanguage
    ADD CONSTRAINT countrylanguage_countrycode_fkey FOREIGN KEY (countrycode) REFERENCES country(code);

COMMIT;
