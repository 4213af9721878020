-- Views as mysqldump writes them (a stand-in view first, the real one
-- after the data, with its definer): one every engine can express (a join,
-- a filter, an aggregate) and one only MySQL can (LPAD, which SQLite lacks).

/*!40101 SET NAMES utf8mb4 */;

DROP TABLE IF EXISTS `customer`;
CREATE TABLE `customer` (
  `id` int NOT NULL,
  `name` varchar(40) NOT NULL,
  `country` varchar(20) DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

DROP TABLE IF EXISTS `orders`;
CREATE TABLE `orders` (
  `id` int NOT NULL,
  `customer_id` int NOT NULL,
  `total` decimal(10,2) NOT NULL,
  `placed` date NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

DROP TABLE IF EXISTS `big_spenders`;
/*!50001 DROP VIEW IF EXISTS `big_spenders`*/;
/*!50001 CREATE VIEW `big_spenders` AS SELECT
 1 AS `name`,
 1 AS `orders`,
 1 AS `spent`*/;

INSERT INTO `customer` VALUES (1,'Ada','DE'),(2,'Bo','FR'),(3,'Cy','XX'),(4,'Di',NULL);
INSERT INTO `orders` VALUES (1,1,40.00,'2024-01-02'),(2,1,25.50,'2024-02-03'),(3,2,10.00,'2024-01-05'),(4,3,99.00,'2024-03-01'),(5,4,70.25,'2024-03-02'),(6,2,60.00,'2024-04-01');

/*!50001 DROP VIEW IF EXISTS `big_spenders`*/;
/*!50001 SET @saved_cs_client          = @@character_set_client */;
/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */
/*!50001 VIEW `big_spenders` AS select `c`.`name` AS `name`,count(0) AS `orders`,sum(`o`.`total`) AS `spent` from (`customer` `c` join `orders` `o` on((`o`.`customer_id` = `c`.`id`))) where (`c`.`country` <> 'XX') group by `c`.`name` having (sum(`o`.`total`) > 50) */;
/*!50001 SET character_set_client      = @saved_cs_client */;

/*!50001 DROP VIEW IF EXISTS `padded`*/;
/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */
/*!50001 VIEW `padded` AS select lpad(`customer`.`name`,6,'*') AS `label` from `customer` */;
