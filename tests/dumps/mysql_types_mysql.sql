-- MySQL's own column types as mysqldump writes them (Sakila's shapes):
-- timestamp, year, set, enum, char(n).
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

DROP TABLE IF EXISTS `film`;
CREATE TABLE `film` (
  `film_id` smallint unsigned NOT NULL AUTO_INCREMENT,
  `title` varchar(128) NOT NULL,
  `release_year` year DEFAULT NULL,
  `rating` enum('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  `special_features` set('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL,
  `language` char(20) NOT NULL,
  `last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`film_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `film` WRITE;
INSERT INTO `film` VALUES (1,'ACADEMY DINOSAUR',2006,'PG','Deleted Scenes,Behind the Scenes','English','2006-02-15 05:03:42'),(2,'ACE GOLDFINGER',2006,'G','Trailers,Deleted Scenes','English','2006-02-15 05:03:42'),(3,'ADAPTATION HOLES',2006,'NC-17','Trailers,Deleted Scenes','Italian','2007-06-01 23:59:59'),(4,'AFFAIR PREJUDICE',1999,'G','Commentaries,Behind the Scenes','English','2006-02-15 05:03:42'),(5,'AFRICAN EGG',2006,'R',NULL,'English','2036-12-31 00:00:00');
UNLOCK TABLES;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
