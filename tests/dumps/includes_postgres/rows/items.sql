COPY public.item (id, name, price) FROM stdin;
1	lamp	12.50
2	desk	120.00
3	chair	45.99
\.

\ir tags.sql
