-- A stand-in for BIRD mini-dev's MySQL dump, as mysqldump writes it: one dump
-- holding several benchmark databases, every table under the lower-case names
-- its MySQL golds use; dev_tables.json says which db_id holds which tables.
-- Two of its eleven databases (debit_card_specializing, student_club), their
-- schemas as dev_tables.json gives them, the rows of bird_minidev_postgres.sql.

/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

DROP TABLE IF EXISTS `customers`;
CREATE TABLE `customers` (
  `customerid` int NOT NULL,
  `segment` text DEFAULT NULL,
  `currency` text DEFAULT NULL,
  PRIMARY KEY (`customerid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `customers` WRITE;
INSERT INTO `customers` VALUES (3,'SME','EUR'),(6,'LAM','CZK'),(7,'KAM','CZK'),(38508,'SME','CZK');
UNLOCK TABLES;

DROP TABLE IF EXISTS `gasstations`;
CREATE TABLE `gasstations` (
  `gasstationid` int NOT NULL,
  `chainid` int DEFAULT NULL,
  `country` text DEFAULT NULL,
  `segment` text DEFAULT NULL,
  PRIMARY KEY (`gasstationid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `gasstations` WRITE;
INSERT INTO `gasstations` VALUES (44,13,'CZE','Value for money'),(45,6,'CZE','Premium'),(46,11,'SVK','Discount'),(47,11,'CZE','Discount');
UNLOCK TABLES;

DROP TABLE IF EXISTS `products`;
CREATE TABLE `products` (
  `productid` int NOT NULL,
  `description` text DEFAULT NULL,
  PRIMARY KEY (`productid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `products` WRITE;
INSERT INTO `products` VALUES (2,'Nafta'),(5,'Natural'),(9,'Diesel');
UNLOCK TABLES;

DROP TABLE IF EXISTS `transactions_1k`;
CREATE TABLE `transactions_1k` (
  `transactionid` int NOT NULL,
  `date` date DEFAULT NULL,
  `time` text DEFAULT NULL,
  `customerid` int DEFAULT NULL,
  `cardid` int DEFAULT NULL,
  `gasstationid` int DEFAULT NULL,
  `productid` int DEFAULT NULL,
  `amount` int DEFAULT NULL,
  `price` double DEFAULT NULL,
  PRIMARY KEY (`transactionid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `transactions_1k` WRITE;
INSERT INTO `transactions_1k` VALUES (1,'2012-08-24','16:25:00',38508,486621,44,2,28,672.64),(2,'2012-08-24','10:53:00',6,550134,45,5,18,430.72),(3,'2012-08-25','08:30:00',7,684220,46,9,1,548.4),(4,'2012-08-26','08:15:00',3,572924,47,5,5,1513.12);
UNLOCK TABLES;

DROP TABLE IF EXISTS `yearmonth`;
CREATE TABLE `yearmonth` (
  `customerid` int NOT NULL,
  `date` varchar(64) NOT NULL,
  `consumption` double DEFAULT NULL,
  PRIMARY KEY (`customerid`,`date`),
  CONSTRAINT `yearmonth_customerid_fkey` FOREIGN KEY (`customerid`) REFERENCES `customers` (`customerid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `yearmonth` WRITE;
INSERT INTO `yearmonth` VALUES (3,'201208',528.3),(6,'201309',1000.5),(6,'201310',46.73),(7,'201202',605.27),(38508,'201201',2.5),(7,'201306',12);
UNLOCK TABLES;

DROP TABLE IF EXISTS `major`;
CREATE TABLE `major` (
  `major_id` varchar(64) NOT NULL,
  `major_name` text DEFAULT NULL,
  `department` text DEFAULT NULL,
  `college` text DEFAULT NULL,
  PRIMARY KEY (`major_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `major` WRITE;
INSERT INTO `major` VALUES ('rec06DF6vZ1CyPKpc','Physics Teaching','School of Applied Sciences, Technology and Education','College of Science'),('recxK3MHQFbR9J5uO','Business','Business Administration','Jon M. Huntsman School of Business');
UNLOCK TABLES;

DROP TABLE IF EXISTS `zip_code`;
CREATE TABLE `zip_code` (
  `zip_code` int NOT NULL,
  `type` text DEFAULT NULL,
  `city` text DEFAULT NULL,
  `county` text DEFAULT NULL,
  `state` text DEFAULT NULL,
  `short_state` text DEFAULT NULL,
  PRIMARY KEY (`zip_code`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `zip_code` WRITE;
INSERT INTO `zip_code` VALUES (60601,'Standard','Chicago','Cook County','Illinois','IL'),(22030,'Standard','Fairfax','Fairfax County','Virginia','VA');
UNLOCK TABLES;

DROP TABLE IF EXISTS `member`;
CREATE TABLE `member` (
  `member_id` varchar(64) NOT NULL,
  `first_name` text DEFAULT NULL,
  `last_name` text DEFAULT NULL,
  `email` text DEFAULT NULL,
  `position` text DEFAULT NULL,
  `t_shirt_size` text DEFAULT NULL,
  `phone` text DEFAULT NULL,
  `zip` int DEFAULT NULL,
  `link_to_major` varchar(64) DEFAULT NULL,
  PRIMARY KEY (`member_id`),
  CONSTRAINT `member_link_to_major_fkey` FOREIGN KEY (`link_to_major`) REFERENCES `major` (`major_id`),
  CONSTRAINT `member_zip_fkey` FOREIGN KEY (`zip`) REFERENCES `zip_code` (`zip_code`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `member` WRITE;
INSERT INTO `member` VALUES ('rec4BLdZHS2Blfp4v','Sacha','Harrison','sacha.harrison@lpu.edu','Vice President','Medium','(840) 555-4781',60601,'recxK3MHQFbR9J5uO'),('recD078PnS3x2doBe','Angela','Sanders','angela.sanders@lpu.edu','President','Small','809-555-3360',22030,'rec06DF6vZ1CyPKpc'),('recL94zpn6Xh6kQii','Elijah','Allen','elijah.allen@lpu.edu','Member','Medium','(635) 555-0394',60601,'rec06DF6vZ1CyPKpc');
UNLOCK TABLES;

DROP TABLE IF EXISTS `event`;
CREATE TABLE `event` (
  `event_id` varchar(64) NOT NULL,
  `event_name` text DEFAULT NULL,
  `event_date` text DEFAULT NULL,
  `type` text DEFAULT NULL,
  `notes` text DEFAULT NULL,
  `location` text DEFAULT NULL,
  `status` text DEFAULT NULL,
  PRIMARY KEY (`event_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `event` WRITE;
INSERT INTO `event` VALUES ('recEVTik3MlqbvLFi','October Meeting','2019-10-08T12:00:00','Meeting',NULL,'MU 215','Closed'),('rec0Si5cQ4rJRVzd6','Women\'s Soccer','2019-10-27T10:00:00','Game',NULL,'Stadium','Closed'),('rec2N69DMcrqN9PJC','April Speaker','2020-04-10T18:00:00','Guest Speaker',NULL,'MU 215','Open');
UNLOCK TABLES;

DROP TABLE IF EXISTS `attendance`;
CREATE TABLE `attendance` (
  `link_to_event` varchar(64) NOT NULL,
  `link_to_member` varchar(64) NOT NULL,
  PRIMARY KEY (`link_to_event`,`link_to_member`),
  CONSTRAINT `attendance_link_to_event_fkey` FOREIGN KEY (`link_to_event`) REFERENCES `event` (`event_id`),
  CONSTRAINT `attendance_link_to_member_fkey` FOREIGN KEY (`link_to_member`) REFERENCES `member` (`member_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `attendance` WRITE;
INSERT INTO `attendance` VALUES ('rec0Si5cQ4rJRVzd6','recD078PnS3x2doBe'),('rec0Si5cQ4rJRVzd6','rec4BLdZHS2Blfp4v'),('recEVTik3MlqbvLFi','recL94zpn6Xh6kQii');
UNLOCK TABLES;

DROP TABLE IF EXISTS `budget`;
CREATE TABLE `budget` (
  `budget_id` varchar(64) NOT NULL,
  `category` text DEFAULT NULL,
  `spent` double DEFAULT NULL,
  `remaining` double DEFAULT NULL,
  `amount` int DEFAULT NULL,
  `event_status` text DEFAULT NULL,
  `link_to_event` varchar(64) DEFAULT NULL,
  PRIMARY KEY (`budget_id`),
  CONSTRAINT `budget_link_to_event_fkey` FOREIGN KEY (`link_to_event`) REFERENCES `event` (`event_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `budget` WRITE;
INSERT INTO `budget` VALUES ('rec0QmEc3cSQFQ6V2','Food',51.81,23.19,75,'Closed','recEVTik3MlqbvLFi'),('recFZ47e0eVqcQD9O','Advertisement',0,50,50,'Open','rec2N69DMcrqN9PJC'),('recvKTAWAFKkVNnXQ','Speaker Gifts',0,25,25,'Open','rec2N69DMcrqN9PJC');
UNLOCK TABLES;

DROP TABLE IF EXISTS `expense`;
CREATE TABLE `expense` (
  `expense_id` varchar(64) NOT NULL,
  `expense_description` text DEFAULT NULL,
  `expense_date` text DEFAULT NULL,
  `cost` double DEFAULT NULL,
  `approved` text DEFAULT NULL,
  `link_to_member` varchar(64) DEFAULT NULL,
  `link_to_budget` varchar(64) DEFAULT NULL,
  PRIMARY KEY (`expense_id`),
  CONSTRAINT `expense_link_to_budget_fkey` FOREIGN KEY (`link_to_budget`) REFERENCES `budget` (`budget_id`),
  CONSTRAINT `expense_link_to_member_fkey` FOREIGN KEY (`link_to_member`) REFERENCES `member` (`member_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `expense` WRITE;
INSERT INTO `expense` VALUES ('rec017x6R3hQqkLAo','Pizza','2019-10-08',51.81,'true','rec4BLdZHS2Blfp4v','rec0QmEc3cSQFQ6V2'),('rec1nIjoZKTYayqZ6','Posters','2019-09-04',67.81,'true','recL94zpn6Xh6kQii','recFZ47e0eVqcQD9O');
UNLOCK TABLES;

DROP TABLE IF EXISTS `income`;
CREATE TABLE `income` (
  `income_id` varchar(64) NOT NULL,
  `date_received` text DEFAULT NULL,
  `amount` int DEFAULT NULL,
  `source` text DEFAULT NULL,
  `notes` text DEFAULT NULL,
  `link_to_member` varchar(64) DEFAULT NULL,
  PRIMARY KEY (`income_id`),
  CONSTRAINT `income_link_to_member_fkey` FOREIGN KEY (`link_to_member`) REFERENCES `member` (`member_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `income` WRITE;
INSERT INTO `income` VALUES ('rec0s9ZrO15zhzUeE','2019-10-17',50,'Dues',NULL,'recD078PnS3x2doBe'),('rec7f5XMQZexgtQJo','2019-09-14',3000,'Fundraising','Fundraising through the Rotary Club','rec4BLdZHS2Blfp4v');
UNLOCK TABLES;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
