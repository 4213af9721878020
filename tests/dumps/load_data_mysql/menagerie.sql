-- A MySQL sample laid out as MySQL's own "menagerie" tutorial ships it:
-- tables made by statements, rows loaded from text files beside the
-- script with the mysql client's LOAD DATA LOCAL INFILE (run from this
-- folder: mysql --local-infile=1 menagerie < menagerie.sql).

CREATE TABLE pet (
  name    VARCHAR(20),
  owner   VARCHAR(20),
  species VARCHAR(20),
  sex     CHAR(1),
  birth   DATE,
  death   DATE
);

LOAD DATA LOCAL INFILE 'pet.txt' INTO TABLE pet;

INSERT INTO pet VALUES ('Puffball','Diane','hamster','f','1999-03-30',NULL);

CREATE TABLE event (
  id      INT PRIMARY KEY,
  name    VARCHAR(20),
  date    DATE,
  type    VARCHAR(15),
  remark  VARCHAR(255),
  weight  DECIMAL(6,2)
);

LOAD DATA LOCAL INFILE 'rows/event.csv'
  INTO TABLE event
  CHARACTER SET utf8mb4
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"'
  LINES TERMINATED BY '\r\n'
  IGNORE 1 LINES
  (id, name, date, type, remark);

-- A second load of the same file with a duplicate key: LOCAL skips it.
LOAD DATA LOCAL INFILE 'rows/event.csv'
  INTO TABLE event
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"'
  LINES TERMINATED BY '\r\n'
  IGNORE 4 LINES
  (id, name, date, type, remark);
