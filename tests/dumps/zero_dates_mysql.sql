-- A mysqldump of a table holding dates no calendar holds, as old MySQL
-- applications wrote them and mysqldump keeps them: its SQL_MODE allows
-- zero dates and zero parts ('0000-00-00', '2020-00-15').

/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;

DROP TABLE IF EXISTS `visit`;
CREATE TABLE `visit` (
  `id` int NOT NULL,
  `day` date NOT NULL DEFAULT '0000-00-00',
  `seen` datetime DEFAULT NULL,
  `approx` date DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `visit` WRITE;
INSERT INTO `visit` VALUES (1,'0000-00-00','0000-00-00 00:00:00','2020-00-15'),(2,'2021-03-04','2021-03-04 05:06:07','2020-02-00'),(3,'2022-01-01',NULL,NULL);
UNLOCK TABLES;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
