COPY public.tag (item_id, tag) FROM stdin;
1	light
1	home
3	office
\.
SELECT pg_catalog.setval('public.item_id_seq', 3, true);
INSERT INTO public.item (name, price) VALUES ('shelf, "tall"', 80.10);
