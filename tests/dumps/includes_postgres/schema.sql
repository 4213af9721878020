CREATE SEQUENCE public.item_id_seq;

CREATE TABLE public.item (
    id integer DEFAULT nextval('public.item_id_seq') PRIMARY KEY,
    name text NOT NULL,
    price numeric(8,2)
);

CREATE TABLE public.tag (
    item_id integer NOT NULL REFERENCES public.item (id),
    tag text NOT NULL
);
