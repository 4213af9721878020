-- A hand-made dump in mysqldump's style: one column of each type family a
-- real MySQL/MariaDB dump carries, a view, a procedure and a trigger.
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;

DROP TABLE IF EXISTS `carried`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
CREATE TABLE `carried` (
  `id` int NOT NULL,
  `tiny` tinyint(1) DEFAULT NULL,
  `ubig` bigint unsigned DEFAULT NULL,
  `amount` decimal(10,2) DEFAULT NULL,
  `ratio` double DEFAULT NULL,
  `label` varchar(20) DEFAULT NULL,
  `body` text,
  `feeling` enum('sad','ok','happy') DEFAULT NULL,
  `flags` set('a','b','c') DEFAULT NULL,
  `doc` json DEFAULT NULL,
  `yr` year DEFAULT NULL,
  `b` bit(4) DEFAULT NULL,
  `blob` varbinary(8) DEFAULT NULL,
  `day` date DEFAULT NULL,
  `at_time` time DEFAULT NULL,
  `stamp` datetime DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
/*!40101 SET character_set_client = @saved_cs_client */;

LOCK TABLES `carried` WRITE;
/*!40000 ALTER TABLE `carried` DISABLE KEYS */;
INSERT INTO `carried` VALUES (1,1,18446744073709551615,19.99,0.1,'it\'s; ok','line1\nline2\ttabbed \\ back','happy','a,c','{\"b\": [1, 2], \"a\": 1}',2024,b'1011',0x00FF10,'2024-02-29','23:59:59','2024-02-29 12:00:00'),(2,NULL,0,1.00,-1e300,NULL,NULL,'sad','','null',1901,b'0','','1970-01-01','-01:00:00','1970-01-01 00:00:00');
/*!40000 ALTER TABLE `carried` ENABLE KEYS */;
UNLOCK TABLES;

CREATE TABLE `with_point` (
  `id` int NOT NULL,
  `place` point DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO `with_point` VALUES (1,ST_GeomFromText('POINT(1 2)'));

/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */
/*!50001 VIEW `happy` AS select `carried`.`id` AS `id` from `carried` where (`carried`.`feeling` = 'happy') */;

DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `carried_touch` BEFORE INSERT ON `carried` FOR EACH ROW BEGIN
  SET NEW.label = 'touched; really';
END */;;
CREATE DEFINER=`root`@`localhost` PROCEDURE `noop`()
BEGIN
  SELECT 1;
END ;;
DELIMITER ;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
