-- A shop as mysqldump writes it: the column types a MySQL gold depends on
-- (decimal(10,2), varchar(20), int, date, enum).

/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

DROP TABLE IF EXISTS `shop`;
CREATE TABLE `shop` (
  `shop_id` int NOT NULL,
  `city` varchar(20) COLLATE utf8mb4_bin NOT NULL,
  PRIMARY KEY (`shop_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

DROP TABLE IF EXISTS `item`;
CREATE TABLE `item` (
  `item_id` int NOT NULL,
  `shop_id` int DEFAULT NULL,
  `name` varchar(20) NOT NULL,
  `price` decimal(10,2) NOT NULL,
  `sold` date DEFAULT NULL,
  `grade` enum('low','mid','high','it''s \\ odd') DEFAULT NULL,
  PRIMARY KEY (`item_id`),
  KEY `shop_id` (`shop_id`),
  CONSTRAINT `item_ibfk_1` FOREIGN KEY (`shop_id`) REFERENCES `shop` (`shop_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `shop` WRITE;
INSERT INTO `shop` VALUES (1,'Lyon'),(2,'Porto');
UNLOCK TABLES;

LOCK TABLES `item` WRITE;
INSERT INTO `item` VALUES (1,1,'tea',0.10,'2024-01-05','low'),(2,1,'cake',0.20,'2024-02-29','mid'),(3,2,'wine',12.35,NULL,'high'),(4,2,'bread',1.99,'2023-12-31','low');
UNLOCK TABLES;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
