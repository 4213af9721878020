SELECT count(*) FROM singer
SELECT name, country, age FROM singer ORDER BY age
SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 3
SELECT country FROM singer WHERE age > 40
SELECT T1.name, count(*) FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T2.stadium_id
SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id
SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer WHERE age < 35
SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer WHERE is_male = 'T')
SELECT count(*) FROM concert WHERE year = 2014 AND year = 2015
SELECT max(capacity), avg(capacity) FROM stadium
SELECT name FROM singer WHERE song_name LIKE "%Hey%"
SELECT name AS n FROM singer
SELECT location FROM stadium WHERE capacity >= 5000 AND capacity <= 10000
SELECT count(country) FROM singer
SELECT name FROM stadium WHERE capacity = (SELECT max(capacity) FROM stadium)
SELECT concert_name FROM concert WHERE year = value
SELECT name FROM singer WHERE age > 30 OR country = 'France'
SELECT concert_name FROM concert WHERE stadium_id IN (SELECT stadium_id FROM stadium WHERE capacity > 1000)
SELECT country, count(*) FROM singer GROUP BY country
SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France';
SELECT Name FROM country WHERE Continent = "Asia" AND Population > 1000000 ORDER BY Name ASC
SELECT count(*) FROM country WHERE GovernmentForm = 'Republic' garbage
SELECT language FROM countrylanguage WHERE countrycode = (SELECT code FROM country WHERE name = 'Aruba') ORDER BY percentage DESC LIMIT 1
SELECT sum(population) , avg(surfacearea) FROM country WHERE continent = 'North America' AND surfacearea > 3000 LIMIT 1
SELECT COUNT(*) FROM CARS_DATA WHERE Cylinders > 4
SELECT T2.horsepower FROM cars_data AS T2 JOIN car_names AS T1 ON T2.id = T1.makeid ORDER BY T2.accelerate ASC LIMIT 1
SELECT year, avg(weight) FROM cars_data GROUP BY year ORDER BY year
SELECT count(*) FROM singer WHERE is_male = 'F' AND age - 1 > 20
SELECT name FROM singer WHERE age > 30 EXCEPT SELECT name FROM singer WHERE country = 'Netherlands'
SELECT name FROM singer WHERE name = 'O'Brien'
SELECT name FROM singer WHERE age = 52 name = 2
SELECT count(*) FROM singer WHERE (age > 20)
SELECT name FROM singer WHERE age > 20	concert_singer
SELECT name FROM singer WHERE country ! = 'France'
SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T2.concert_id = T3.concert_id WHERE T3.year = 2014
select MAX ( capacity ) from STADIUM
SELECT count(*) FROM singer WHERE age > 30 AND country = 'France'
