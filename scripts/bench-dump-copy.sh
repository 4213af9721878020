#!/usr/bin/env bash
# Benchmark (not a test): the copy on the dump's own engine of a MySQL dump
# with many foreign keys, beside the engine's own client loading the dump.
#
# Usage: scripts/bench-dump-copy.sh [--scale N] [--runs N] [--out DIR] [--bin PATH]...
#
# Generates (once, cached in OUT) a dump in mysqldump's style of a database
# shaped as Sakila: 16 InnoDB tables, 22 foreign keys (chained: payment →
# rental → inventory → film → language; a cycle store ↔ staff), composite
# primary keys, a composite unique key, enum, set, year, decimal, blob and
# binary-collated columns, NULLs; about 47,000 rows at --scale 1 (rental,
# payment, inventory and film_actor grow with N). Then, on MySQL (3307) and
# MariaDB (3306), from SQLWITNESS_<ENGINE>_URL or the local defaults:
#   client    mysql < DUMP into a fresh database (the floor)
#   import    sqlwitness import (load, SQLite file, copy on the dump's engine)
#   no copy   sqlwitness import --no-source-copy
# each run --runs times (default 3; medians kept) with /usr/bin/time; the
# copy's cost is the median of each run's `import` less its `no copy`. The
# copy's database (sw_sakila_bench) is dropped before each import. Writes
# OUT/results.md. --bin defaults to target/release/sqlwitness; several
# --bin (two builds, say) take turns within each run, beside the same
# client loads.
set -euo pipefail
cd "$(dirname "$0")/.."

scale=1
runs=3
out=bench-out/dump-copy
bins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bins+=("$2"); shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case "$scale" in 1|2|3|4) ;; *) echo "--scale: 1 to 4 (payment_id is a smallint unsigned)" >&2; exit 2 ;; esac
[ ${#bins[@]} -gt 0 ] || bins=(target/release/sqlwitness)
for bin in "${bins[@]}"; do
  [ -x "$bin" ] || { echo "$bin: build it first (cargo build --release -p sqlwitness-cli)" >&2; exit 2; }
done
mkdir -p "$out"
mysql_url="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3307/test}"
mariadb_url="${SQLWITNESS_MARIADB_URL:-mysql://root@127.0.0.1:3306/test}"

dump="$out/sakila-like-$scale.sql"
[ -s "$dump" ] || python3 - "$scale" > "$dump" <<'EOF'
import random, sys
scale = int(sys.argv[1])
random.seed(11)
w = sys.stdout.write
TS = "'2006-02-15 04:34:33'"

def esc(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"

def word(n=8):
    return "".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))

def table(name, ddl, rows):
    w(f"\n--\n-- Table structure for table `{name}`\n--\n\n")
    w(f"DROP TABLE IF EXISTS `{name}`;\n")
    w("/*!40101 SET @saved_cs_client     = @@character_set_client */;\n")
    w("/*!50503 SET character_set_client = utf8mb4 */;\n")
    w(f"CREATE TABLE `{name}` (\n  " + ",\n  ".join(ddl) + "\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n")
    w("/*!40101 SET character_set_client = @saved_cs_client */;\n\n")
    w(f"LOCK TABLES `{name}` WRITE;\n/*!40000 ALTER TABLE `{name}` DISABLE KEYS */;\n")
    for i in range(0, len(rows), 1000):
        w(f"INSERT INTO `{name}` VALUES " + ",".join("(" + ",".join(r) + ")" for r in rows[i:i + 1000]) + ";\n")
    w(f"/*!40000 ALTER TABLE `{name}` ENABLE KEYS */;\nUNLOCK TABLES;\n")

def fk(name, cols, parent, pcols):
    return f"CONSTRAINT `fk_{name}` FOREIGN KEY (`{cols}`) REFERENCES `{parent}` (`{pcols}`) ON DELETE RESTRICT ON UPDATE CASCADE"

n_actor, n_country, n_city, n_address, n_lang, n_cat, n_film = 200, 109, 600, 603, 6, 16, 1000
n_store, n_staff, n_customer = 2, 2, 599
n_inventory, n_rental, n_film_actor = 4581 * scale, 16044 * scale, 5462 * scale

w("-- MySQL dump 10.13  Distrib 9.7.4, for Linux (x86_64)\n--\n-- Host: localhost    Database: sakila\n")
w("/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!50503 SET NAMES utf8mb4 */;\n")
w("/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n/*!40103 SET TIME_ZONE='+00:00' */;\n")
w("/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n")
w("/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n")
w("/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n")

table("actor", ["`actor_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`first_name` varchar(45) NOT NULL",
                "`last_name` varchar(45) NOT NULL", "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                "PRIMARY KEY (`actor_id`)", "KEY `idx_actor_last_name` (`last_name`)"],
      [[str(i), esc(word(6).upper()), esc(word(8).upper()), TS] for i in range(1, n_actor + 1)])
table("address", ["`address_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`address` varchar(50) NOT NULL",
                  "`address2` varchar(50) DEFAULT NULL", "`district` varchar(20) NOT NULL",
                  "`city_id` smallint unsigned NOT NULL", "`postal_code` varchar(10) DEFAULT NULL",
                  "`phone` varchar(20) NOT NULL", "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                  "PRIMARY KEY (`address_id`)", "KEY `idx_fk_city_id` (`city_id`)",
                  fk("address_city", "city_id", "city", "city_id")],
      [[str(i), esc(f"{i} {word(7).title()} Street"), "NULL" if i % 3 else "''", esc(word(9)),
        str(random.randint(1, n_city)), "NULL" if i % 50 == 0 else esc(str(random.randint(10000, 99999))),
        esc(str(random.randint(10**9, 10**10))), TS] for i in range(1, n_address + 1)])
table("category", ["`category_id` tinyint unsigned NOT NULL AUTO_INCREMENT", "`name` varchar(25) NOT NULL",
                   "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP", "PRIMARY KEY (`category_id`)"],
      [[str(i), esc(word(7).title()), TS] for i in range(1, n_cat + 1)])
table("city", ["`city_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`city` varchar(50) NOT NULL",
               "`country_id` smallint unsigned NOT NULL", "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
               "PRIMARY KEY (`city_id`)", "KEY `idx_fk_country_id` (`country_id`)",
               fk("city_country", "country_id", "country", "country_id")],
      [[str(i), esc(word(8).title() + ("'s" if i % 40 == 0 else "")), str(random.randint(1, n_country)), TS]
       for i in range(1, n_city + 1)])
table("country", ["`country_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`country` varchar(50) NOT NULL",
                  "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP", "PRIMARY KEY (`country_id`)"],
      [[str(i), esc(word(9).title()), TS] for i in range(1, n_country + 1)])
table("customer", ["`customer_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`store_id` tinyint unsigned NOT NULL",
                   "`first_name` varchar(45) NOT NULL", "`last_name` varchar(45) NOT NULL",
                   "`email` varchar(50) DEFAULT NULL", "`address_id` smallint unsigned NOT NULL",
                   "`active` tinyint(1) NOT NULL DEFAULT '1'", "`create_date` datetime NOT NULL",
                   "`last_update` timestamp NULL DEFAULT CURRENT_TIMESTAMP",
                   "PRIMARY KEY (`customer_id`)", "KEY `idx_fk_store_id` (`store_id`)",
                   "KEY `idx_fk_address_id` (`address_id`)", "KEY `idx_last_name` (`last_name`)",
                   fk("customer_address", "address_id", "address", "address_id"),
                   fk("customer_store", "store_id", "store", "store_id")],
      [[str(i), str(1 + i % n_store), esc(word(6).upper()), esc(word(8).upper()),
        "NULL" if i % 97 == 0 else esc(f"{word(6)}@sakilacustomer.org"), str(random.randint(5, n_address)),
        str(int(i % 40 != 0)), "'2006-02-14 22:04:36'", "NULL" if i % 200 == 0 else TS] for i in range(1, n_customer + 1)])
ratings = ["'G'", "'PG'", "'PG-13'", "'R'", "'NC-17'"]
features = ["'Trailers'", "'Commentaries'", "'Deleted Scenes'", "'Behind the Scenes'", "'Trailers,Deleted Scenes'", "''"]
films = [[str(i), esc(f"{word(6).upper()} {word(7).upper()}"), esc(f"A {word(8)} story of a {word(6)} in {word(7)}"),
          "2006", str(1 + i % n_lang), "NULL" if i % 10 else str(1 + (i + 1) % n_lang), str(3 + i % 5),
          f"{random.choice([0.99, 2.99, 4.99])}", str(46 + i % 140), f"{9.99 + i % 21:.2f}",
          random.choice(ratings), random.choice(features), TS] for i in range(1, n_film + 1)]
table("film", ["`film_id` smallint unsigned NOT NULL AUTO_INCREMENT", "`title` varchar(128) NOT NULL",
               "`description` text", "`release_year` year DEFAULT NULL", "`language_id` tinyint unsigned NOT NULL",
               "`original_language_id` tinyint unsigned DEFAULT NULL", "`rental_duration` tinyint unsigned NOT NULL DEFAULT '3'",
               "`rental_rate` decimal(4,2) NOT NULL DEFAULT '4.99'", "`length` smallint unsigned DEFAULT NULL",
               "`replacement_cost` decimal(5,2) NOT NULL DEFAULT '19.99'",
               "`rating` enum('G','PG','PG-13','R','NC-17') DEFAULT 'G'",
               "`special_features` set('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL",
               "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
               "PRIMARY KEY (`film_id`)", "KEY `idx_title` (`title`)", "KEY `idx_fk_language_id` (`language_id`)",
               "KEY `idx_fk_original_language_id` (`original_language_id`)",
               fk("film_language", "language_id", "language", "language_id"),
               fk("film_language_original", "original_language_id", "language", "language_id")], films)
pairs = set()
while len(pairs) < n_film_actor:
    pairs.add((random.randint(1, n_actor), random.randint(1, n_film)))
table("film_actor", ["`actor_id` smallint unsigned NOT NULL", "`film_id` smallint unsigned NOT NULL",
                     "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                     "PRIMARY KEY (`actor_id`,`film_id`)", "KEY `idx_fk_film_id` (`film_id`)",
                     fk("film_actor_actor", "actor_id", "actor", "actor_id"),
                     fk("film_actor_film", "film_id", "film", "film_id")],
      [[str(a), str(f), TS] for a, f in sorted(pairs)])
table("film_category", ["`film_id` smallint unsigned NOT NULL", "`category_id` tinyint unsigned NOT NULL",
                        "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                        "PRIMARY KEY (`film_id`,`category_id`)", "KEY `fk_film_category_category` (`category_id`)",
                        fk("film_category_category", "category_id", "category", "category_id"),
                        fk("film_category_film", "film_id", "film", "film_id")],
      [[str(i), str(1 + i % n_cat), TS] for i in range(1, n_film + 1)])
table("film_text", ["`film_id` smallint NOT NULL", "`title` varchar(255) NOT NULL", "`description` text",
                    "PRIMARY KEY (`film_id`)"],
      [[f[0], f[1], f[2]] for f in films])
table("inventory", ["`inventory_id` mediumint unsigned NOT NULL AUTO_INCREMENT", "`film_id` smallint unsigned NOT NULL",
                    "`store_id` tinyint unsigned NOT NULL", "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                    "PRIMARY KEY (`inventory_id`)", "KEY `idx_fk_film_id` (`film_id`)",
                    "KEY `idx_store_id_film_id` (`store_id`,`film_id`)",
                    fk("inventory_film", "film_id", "film", "film_id"),
                    fk("inventory_store", "store_id", "store", "store_id")],
      [[str(i), str(random.randint(1, n_film)), str(1 + i % n_store), TS] for i in range(1, n_inventory + 1)])
table("language", ["`language_id` tinyint unsigned NOT NULL AUTO_INCREMENT", "`name` char(20) NOT NULL",
                   "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP", "PRIMARY KEY (`language_id`)"],
      [[str(i), esc(n), TS] for i, n in enumerate(["English", "Italian", "Japanese", "Mandarin", "French", "German"], 1)])
rentals = []
seen = set()
for i in range(1, n_rental + 1):
    while True:
        day, sec = random.randint(0, 90), random.randint(0, 86399)
        date = f"'2005-{5 + day // 30:02d}-{1 + day % 28:02d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}'"
        inv, cust = random.randint(1, n_inventory), random.randint(1, n_customer)
        if (date, inv, cust) not in seen:
            seen.add((date, inv, cust))
            break
    rentals.append([str(i), date, str(inv), str(cust), "NULL" if i % 100 == 0 else date, str(1 + i % n_staff), TS])
table("payment", ["`payment_id` smallint unsigned NOT NULL AUTO_INCREMENT",
                  "`customer_id` smallint unsigned NOT NULL",
                  "`staff_id` tinyint unsigned NOT NULL", "`rental_id` int DEFAULT NULL", "`amount` decimal(5,2) NOT NULL",
                  "`payment_date` datetime NOT NULL", "`last_update` timestamp NULL DEFAULT CURRENT_TIMESTAMP",
                  "PRIMARY KEY (`payment_id`)", "KEY `idx_fk_staff_id` (`staff_id`)", "KEY `idx_fk_customer_id` (`customer_id`)",
                  "KEY `fk_payment_rental` (`rental_id`)",
                  "CONSTRAINT `fk_payment_customer` FOREIGN KEY (`customer_id`) REFERENCES `customer` (`customer_id`) ON DELETE RESTRICT ON UPDATE CASCADE",
                  "CONSTRAINT `fk_payment_rental` FOREIGN KEY (`rental_id`) REFERENCES `rental` (`rental_id`) ON DELETE SET NULL ON UPDATE CASCADE",
                  "CONSTRAINT `fk_payment_staff` FOREIGN KEY (`staff_id`) REFERENCES `staff` (`staff_id`) ON DELETE RESTRICT ON UPDATE CASCADE"],
      [[str(i), r[3], r[5], "NULL" if i % 300 == 0 else r[0], f"{random.choice([0.99, 2.99, 4.99, 5.99, 10.99])}", r[1], TS]
       for i, r in enumerate(rentals, 1)])
table("rental", ["`rental_id` int NOT NULL AUTO_INCREMENT", "`rental_date` datetime NOT NULL",
                 "`inventory_id` mediumint unsigned NOT NULL", "`customer_id` smallint unsigned NOT NULL",
                 "`return_date` datetime DEFAULT NULL", "`staff_id` tinyint unsigned NOT NULL",
                 "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
                 "PRIMARY KEY (`rental_id`)", "UNIQUE KEY `rental_date` (`rental_date`,`inventory_id`,`customer_id`)",
                 "KEY `idx_fk_inventory_id` (`inventory_id`)", "KEY `idx_fk_customer_id` (`customer_id`)",
                 "KEY `idx_fk_staff_id` (`staff_id`)",
                 fk("rental_customer", "customer_id", "customer", "customer_id"),
                 fk("rental_inventory", "inventory_id", "inventory", "inventory_id"),
                 fk("rental_staff", "staff_id", "staff", "staff_id")], rentals)
table("staff", ["`staff_id` tinyint unsigned NOT NULL AUTO_INCREMENT", "`first_name` varchar(45) NOT NULL",
                "`last_name` varchar(45) NOT NULL", "`address_id` smallint unsigned NOT NULL", "`picture` blob",
                "`email` varchar(50) DEFAULT NULL", "`store_id` tinyint unsigned NOT NULL",
                "`active` tinyint(1) NOT NULL DEFAULT '1'", "`username` varchar(16) NOT NULL",
                "`password` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL",
                "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                "PRIMARY KEY (`staff_id`)", "KEY `idx_fk_store_id` (`store_id`)", "KEY `idx_fk_address_id` (`address_id`)",
                fk("staff_address", "address_id", "address", "address_id"),
                fk("staff_store", "store_id", "store", "store_id")],
      [["1", "'Mike'", "'Hillyer'", "3", "0x89504E470D0A1A0A", "'Mike.Hillyer@sakilastaff.com'", "1", "1", "'Mike'",
        "'8cb2237d0679ca88db6464eac60da96345513964'", TS],
       ["2", "'Jon'", "'Stephens'", "4", "NULL", "'Jon.Stephens@sakilastaff.com'", "2", "1", "'Jon'", "NULL", TS]])
table("store", ["`store_id` tinyint unsigned NOT NULL AUTO_INCREMENT", "`manager_staff_id` tinyint unsigned NOT NULL",
                "`address_id` smallint unsigned NOT NULL", "`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP",
                "PRIMARY KEY (`store_id`)", "UNIQUE KEY `idx_unique_manager` (`manager_staff_id`)",
                "KEY `idx_fk_address_id` (`address_id`)",
                fk("store_address", "address_id", "address", "address_id"),
                fk("store_staff", "manager_staff_id", "staff", "staff_id")],
      [["1", "1", "1", TS], ["2", "2", "2", TS]])
w("\n/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;\n/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n")
w("/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;\n/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n")
w("/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n\n-- Dump completed\n")
EOF

timed() { # logfile cmd...: the wall time, or "failed"
  local log="$1"; shift
  /usr/bin/time -f "%e" -o "$out/time.tmp" "$@" > "$log" 2>&1 || { echo "failed (see $log)" >&2; echo failed; return; }
  cat "$out/time.tmp"
}

rows=$(grep -o '),(' "$dump" | wc -l)
rows=$((rows + $(grep -c '^INSERT INTO' "$dump")))
{
  echo "# The copy on the dump's own engine: a Sakila-shaped dump, $rows rows, 16 tables, 22 foreign keys ($(date -u +%F))"
  echo
  echo "Machine: $(nproc) cores; MySQL $(mysql -h127.0.0.1 -P3307 -uroot -N -e 'select version()'); MariaDB $(mysql -h127.0.0.1 -P3306 -uroot -N -e 'select version()'); median of $runs runs"
  echo
  echo "| engine | build | client (mysql < dump) s | import s | import --no-source-copy s | the copy (difference) s | copy / client |"
  echo "|---|---|---:|---:|---:|---:|---:|"
} > "$out/results.md"

db=sw_bench_dump_copy_floor
for engine in mysql mariadb; do
  if [ "$engine" = mysql ]; then url="$mysql_url"; port=3307; else url="$mariadb_url"; port=3306; fi
  my() { mysql -h127.0.0.1 -P$port -uroot "$@"; }
  client=()
  declare -A whole=() plain=()
  for _ in $(seq "$runs"); do
    my -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
    client+=("$(timed "$out/$engine-client.log" sh -c "mysql -h127.0.0.1 -P$port -uroot $db < '$dump'")")
    my -e "DROP DATABASE IF EXISTS $db"
    for bin in "${bins[@]}"; do
      my -e "DROP DATABASE IF EXISTS sw_sakila_bench"
      rm -rf "$out/$engine-import" "$out/$engine-plain"
      whole[$bin]+=" $(timed "$out/$engine-import.log" "$bin" import -q --engine "$engine" --server "$url" --dump "$dump" --out "$out/$engine-import" --db-id sakila_bench)"
      plain[$bin]+=" $(timed "$out/$engine-plain.log" "$bin" import -q --no-source-copy --engine "$engine" --server "$url" --dump "$dump" --out "$out/$engine-plain" --db-id sakila_bench)"
    done
  done
  for bin in "${bins[@]}"; do
    python3 - "$engine" "$bin" "${client[*]}" "${whole[$bin]}" "${plain[$bin]}" >> "$out/results.md" <<'PY'
import statistics, sys
engine, bin, *runs = sys.argv[1:]
try:
    client, whole, plain = ([float(t) for t in r.split()] for r in runs)
except ValueError:
    print(f"| {engine} | {bin} | failed | | | | |")
    sys.exit()
copy = statistics.median(w - p for w, p in zip(whole, plain))
m = statistics.median
print(f"| {engine} | {bin} | {m(client):.2f} | {m(whole):.2f} | {m(plain):.2f} | {copy:.2f} | {copy / m(client):.2f} |")
PY
  done
  unset whole plain
done
rm -f "$out/time.tmp"
cat "$out/results.md"
