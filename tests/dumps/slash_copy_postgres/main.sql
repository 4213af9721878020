-- A script that loads its rows from files beside it with psql's \copy
-- (run from this folder: psql -f main.sql).
CREATE TABLE item (
    id integer PRIMARY KEY,
    name text NOT NULL,
    price numeric(8,2),
    added date
);
CREATE TABLE tag (
    item_id integer NOT NULL REFERENCES item (id),
    tag text
);

\copy item (id, name, price, added) FROM 'rows/items.csv' WITH (FORMAT csv, HEADER true)
\copy tag from rows/tags.tsv;

CREATE VIEW tagged AS SELECT i.name, t.tag FROM item i JOIN tag t ON t.item_id = i.id;
