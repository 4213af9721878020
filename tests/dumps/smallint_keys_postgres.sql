--
-- A PostgreSQL dump whose foreign keys join a smallint to an integer, as
-- Pagila's (payment.customer_id smallint -> customer.customer_id integer):
-- PostgreSQL takes such a key, MySQL and MariaDB want one type on both
-- sides.
--
CREATE TABLE store (
    store_id integer NOT NULL,
    name text NOT NULL
);
CREATE TABLE customer (
    customer_id integer NOT NULL,
    store_id smallint NOT NULL,
    name text NOT NULL
);
CREATE TABLE payment (
    payment_id integer NOT NULL,
    customer_id smallint NOT NULL,
    amount numeric(5,2) NOT NULL,
    paid_at timestamp without time zone NOT NULL
);
COPY store (store_id, name) FROM stdin;
1	Lethbridge
2	Woodridge
\.
COPY customer (customer_id, store_id, name) FROM stdin;
1	1	MARY
2	2	PATRICIA
\.
COPY payment (payment_id, customer_id, amount, paid_at) FROM stdin;
16050	1	1.99	2007-01-24 21:40:19.996577
16051	2	0.99	2007-01-25 15:16:50.996577
\.
ALTER TABLE ONLY store ADD CONSTRAINT store_pkey PRIMARY KEY (store_id);
ALTER TABLE ONLY customer ADD CONSTRAINT customer_pkey PRIMARY KEY (customer_id);
ALTER TABLE ONLY payment ADD CONSTRAINT payment_pkey PRIMARY KEY (payment_id);
ALTER TABLE ONLY customer ADD CONSTRAINT customer_store_id_fkey FOREIGN KEY (store_id) REFERENCES store(store_id);
ALTER TABLE ONLY payment ADD CONSTRAINT payment_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customer(customer_id);
