SELECT count(*) FROM singer	concert_singer
SELECT name ,  country ,  age FROM singer ORDER BY age DESC	concert_singer
SELECT song_name ,  song_release_year FROM singer ORDER BY age LIMIT 1	concert_singer
SELECT DISTINCT country FROM singer WHERE age  >  20	concert_singer
SELECT T2.name ,  count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id  =  T2.stadium_id GROUP BY T1.stadium_id	concert_singer
SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)	concert_singer
SELECT country FROM singer WHERE age  >  40 INTERSECT SELECT country FROM singer WHERE age  <  30	concert_singer
SELECT name FROM singer WHERE age  >  (SELECT avg(age) FROM singer)	concert_singer
SELECT count(*) FROM concert WHERE YEAR  =  2014 OR YEAR  =  2015	concert_singer
SELECT avg(capacity) ,  max(capacity) FROM stadium	concert_singer
SELECT name FROM singer WHERE song_name LIKE '%Hey%'	concert_singer
SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id  =  T2.singer_id	concert_singer
SELECT LOCATION FROM stadium WHERE capacity BETWEEN 5000 AND 10000	concert_singer
SELECT count(DISTINCT country) FROM singer	concert_singer
SELECT name FROM stadium ORDER BY capacity DESC LIMIT 1	concert_singer
SELECT concert_name FROM concert WHERE YEAR  =  2014	concert_singer
SELECT name FROM singer WHERE age  >  30 UNION SELECT name FROM singer WHERE country  =  'France'	concert_singer
SELECT T1.concert_name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id  =  T2.stadium_id WHERE T2.capacity  >  1000	concert_singer
SELECT country ,  count(*) FROM singer GROUP BY country HAVING count(*)  >  1	concert_singer
SELECT avg(age) ,  min(age) ,  max(age) FROM singer WHERE country  =  'France'	concert_singer
SELECT name FROM country WHERE continent  =  'Asia' AND population  >  1000000 ORDER BY name	world_1
SELECT count(*) FROM country WHERE GovernmentForm  =  'Republic'	world_1
SELECT T2.language FROM country AS T1 JOIN countrylanguage AS T2 ON T1.code  =  T2.countrycode WHERE T1.name  =  'Aruba' ORDER BY percentage DESC LIMIT 1	world_1
SELECT sum(population) ,  avg(surfacearea) FROM country WHERE continent  =  'North America' AND surfacearea  >  3000	world_1
SELECT count(*) FROM cars_data WHERE cylinders  >  4	car_1
SELECT T2.horsepower FROM car_names AS T1 JOIN cars_data AS T2 ON T1.makeid  =  T2.id ORDER BY T2.accelerate DESC LIMIT 1	car_1
SELECT avg(weight) ,  YEAR FROM cars_data GROUP BY YEAR	car_1
SELECT count(*) FROM singer WHERE is_male  =  'F'	concert_singer
SELECT name FROM singer WHERE age  >  30 EXCEPT SELECT name FROM singer WHERE country  =  'France'	concert_singer
SELECT name FROM singer	concert_singer
SELECT name FROM singer WHERE age  =  52	concert_singer
SELECT count(*) FROM singer WHERE age  >  20	concert_singer
SELECT name FROM singer WHERE age  >  20	concert_singer
SELECT name FROM singer WHERE country != 'France'	concert_singer
SELECT DISTINCT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id  =  T2.singer_id JOIN concert AS T3 ON T2.concert_id  =  T3.concert_id WHERE T3.year  =  2014	concert_singer
SELECT max(capacity) FROM stadium	concert_singer
SELECT count(*) FROM singer WHERE country = 'France' AND age > 30	concert_singer
