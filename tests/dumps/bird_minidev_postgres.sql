--
-- A stand-in for BIRD mini-dev's PostgreSQL dump, as it ships: one dump holding
-- several benchmark databases, every table in `public` under the lower-case
-- names its PostgreSQL golds use; dev_tables.json says which db_id holds which
-- tables. Two of its eleven databases (debit_card_specializing, student_club),
-- their schemas as dev_tables.json gives them, a handful of made-up rows each.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.customers (
    customerid integer NOT NULL,
    segment text,
    currency text
);

CREATE TABLE public.gasstations (
    gasstationid integer NOT NULL,
    chainid integer,
    country text,
    segment text
);

CREATE TABLE public.products (
    productid integer NOT NULL,
    description text
);

CREATE TABLE public.transactions_1k (
    transactionid integer NOT NULL,
    date date,
    time text,
    customerid integer,
    cardid integer,
    gasstationid integer,
    productid integer,
    amount integer,
    price real
);

CREATE TABLE public.yearmonth (
    customerid integer NOT NULL,
    date text NOT NULL,
    consumption real
);

CREATE TABLE public.major (
    major_id text NOT NULL,
    major_name text,
    department text,
    college text
);

CREATE TABLE public.zip_code (
    zip_code integer NOT NULL,
    type text,
    city text,
    county text,
    state text,
    short_state text
);

CREATE TABLE public.member (
    member_id text NOT NULL,
    first_name text,
    last_name text,
    email text,
    position text,
    t_shirt_size text,
    phone text,
    zip integer,
    link_to_major text
);

CREATE TABLE public.event (
    event_id text NOT NULL,
    event_name text,
    event_date text,
    type text,
    notes text,
    location text,
    status text
);

CREATE TABLE public.attendance (
    link_to_event text NOT NULL,
    link_to_member text NOT NULL
);

CREATE TABLE public.budget (
    budget_id text NOT NULL,
    category text,
    spent real,
    remaining real,
    amount integer,
    event_status text,
    link_to_event text
);

CREATE TABLE public.expense (
    expense_id text NOT NULL,
    expense_description text,
    expense_date text,
    cost real,
    approved text,
    link_to_member text,
    link_to_budget text
);

CREATE TABLE public.income (
    income_id text NOT NULL,
    date_received text,
    amount integer,
    source text,
    notes text,
    link_to_member text
);

COPY public.customers (customerid, segment, currency) FROM stdin;
3	SME	EUR
6	LAM	CZK
7	KAM	CZK
38508	SME	CZK
\.

COPY public.gasstations (gasstationid, chainid, country, segment) FROM stdin;
44	13	CZE	Value for money
45	6	CZE	Premium
46	11	SVK	Discount
47	11	CZE	Discount
\.

COPY public.products (productid, description) FROM stdin;
2	Nafta
5	Natural
9	Diesel
\.

COPY public.transactions_1k (transactionid, date, time, customerid, cardid, gasstationid, productid, amount, price) FROM stdin;
1	2012-08-24	16:25:00	38508	486621	44	2	28	672.64
2	2012-08-24	10:53:00	6	550134	45	5	18	430.72
3	2012-08-25	08:30:00	7	684220	46	9	1	548.4
4	2012-08-26	08:15:00	3	572924	47	5	5	1513.12
\.

COPY public.yearmonth (customerid, date, consumption) FROM stdin;
3	201208	528.3
6	201309	1000.5
6	201310	46.73
7	201202	605.27
38508	201201	2.5
7	201306	12
\.

COPY public.major (major_id, major_name, department, college) FROM stdin;
rec06DF6vZ1CyPKpc	Physics Teaching	School of Applied Sciences, Technology and Education	College of Science
recxK3MHQFbR9J5uO	Business	Business Administration	Jon M. Huntsman School of Business
\.

COPY public.zip_code (zip_code, type, city, county, state, short_state) FROM stdin;
60601	Standard	Chicago	Cook County	Illinois	IL
22030	Standard	Fairfax	Fairfax County	Virginia	VA
\.

COPY public.member (member_id, first_name, last_name, email, position, t_shirt_size, phone, zip, link_to_major) FROM stdin;
rec4BLdZHS2Blfp4v	Sacha	Harrison	sacha.harrison@lpu.edu	Vice President	Medium	(840) 555-4781	60601	recxK3MHQFbR9J5uO
recD078PnS3x2doBe	Angela	Sanders	angela.sanders@lpu.edu	President	Small	809-555-3360	22030	rec06DF6vZ1CyPKpc
recL94zpn6Xh6kQii	Elijah	Allen	elijah.allen@lpu.edu	Member	Medium	(635) 555-0394	60601	rec06DF6vZ1CyPKpc
\.

COPY public.event (event_id, event_name, event_date, type, notes, location, status) FROM stdin;
recEVTik3MlqbvLFi	October Meeting	2019-10-08T12:00:00	Meeting	\N	MU 215	Closed
rec0Si5cQ4rJRVzd6	Women's Soccer	2019-10-27T10:00:00	Game	\N	Stadium	Closed
rec2N69DMcrqN9PJC	April Speaker	2020-04-10T18:00:00	Guest Speaker	\N	MU 215	Open
\.

COPY public.attendance (link_to_event, link_to_member) FROM stdin;
rec0Si5cQ4rJRVzd6	recD078PnS3x2doBe
rec0Si5cQ4rJRVzd6	rec4BLdZHS2Blfp4v
recEVTik3MlqbvLFi	recL94zpn6Xh6kQii
\.

COPY public.budget (budget_id, category, spent, remaining, amount, event_status, link_to_event) FROM stdin;
rec0QmEc3cSQFQ6V2	Food	51.81	23.19	75	Closed	recEVTik3MlqbvLFi
recFZ47e0eVqcQD9O	Advertisement	0	50	50	Open	rec2N69DMcrqN9PJC
recvKTAWAFKkVNnXQ	Speaker Gifts	0	25	25	Open	rec2N69DMcrqN9PJC
\.

COPY public.expense (expense_id, expense_description, expense_date, cost, approved, link_to_member, link_to_budget) FROM stdin;
rec017x6R3hQqkLAo	Pizza	2019-10-08	51.81	true	rec4BLdZHS2Blfp4v	rec0QmEc3cSQFQ6V2
rec1nIjoZKTYayqZ6	Posters	2019-09-04	67.81	true	recL94zpn6Xh6kQii	recFZ47e0eVqcQD9O
\.

COPY public.income (income_id, date_received, amount, source, notes, link_to_member) FROM stdin;
rec0s9ZrO15zhzUeE	2019-10-17	50	Dues	\N	recD078PnS3x2doBe
rec7f5XMQZexgtQJo	2019-09-14	3000	Fundraising	Fundraising through the Rotary Club	rec4BLdZHS2Blfp4v
\.

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT customers_pkey PRIMARY KEY (customerid);

ALTER TABLE ONLY public.gasstations
    ADD CONSTRAINT gasstations_pkey PRIMARY KEY (gasstationid);

ALTER TABLE ONLY public.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (productid);

ALTER TABLE ONLY public.transactions_1k
    ADD CONSTRAINT transactions_1k_pkey PRIMARY KEY (transactionid);

ALTER TABLE ONLY public.yearmonth
    ADD CONSTRAINT yearmonth_pkey PRIMARY KEY (customerid, date);

ALTER TABLE ONLY public.major
    ADD CONSTRAINT major_pkey PRIMARY KEY (major_id);

ALTER TABLE ONLY public.zip_code
    ADD CONSTRAINT zip_code_pkey PRIMARY KEY (zip_code);

ALTER TABLE ONLY public.member
    ADD CONSTRAINT member_pkey PRIMARY KEY (member_id);

ALTER TABLE ONLY public.event
    ADD CONSTRAINT event_pkey PRIMARY KEY (event_id);

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_pkey PRIMARY KEY (link_to_event, link_to_member);

ALTER TABLE ONLY public.budget
    ADD CONSTRAINT budget_pkey PRIMARY KEY (budget_id);

ALTER TABLE ONLY public.expense
    ADD CONSTRAINT expense_pkey PRIMARY KEY (expense_id);

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_pkey PRIMARY KEY (income_id);

ALTER TABLE ONLY public.yearmonth
    ADD CONSTRAINT yearmonth_customerid_fkey FOREIGN KEY (customerid) REFERENCES public.customers(customerid);

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_link_to_event_fkey FOREIGN KEY (link_to_event) REFERENCES public.event(event_id);

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_link_to_member_fkey FOREIGN KEY (link_to_member) REFERENCES public.member(member_id);

ALTER TABLE ONLY public.budget
    ADD CONSTRAINT budget_link_to_event_fkey FOREIGN KEY (link_to_event) REFERENCES public.event(event_id);

ALTER TABLE ONLY public.expense
    ADD CONSTRAINT expense_link_to_budget_fkey FOREIGN KEY (link_to_budget) REFERENCES public.budget(budget_id);

ALTER TABLE ONLY public.expense
    ADD CONSTRAINT expense_link_to_member_fkey FOREIGN KEY (link_to_member) REFERENCES public.member(member_id);

ALTER TABLE ONLY public.income
    ADD CONSTRAINT income_link_to_member_fkey FOREIGN KEY (link_to_member) REFERENCES public.member(member_id);

ALTER TABLE ONLY public.member
    ADD CONSTRAINT member_link_to_major_fkey FOREIGN KEY (link_to_major) REFERENCES public.major(major_id);

ALTER TABLE ONLY public.member
    ADD CONSTRAINT member_zip_fkey FOREIGN KEY (zip) REFERENCES public.zip_code(zip_code);
