-- A MySQL script laid out as MySQL Workbench's "forward engineer" writes it
-- (as the MS Access Northwind port for MySQL ships, schema then data): every
-- table and every foreign key's target is named with the script's own
-- database (`CREATE TABLE IF NOT EXISTS `wbshop`.`orders``), the data part
-- begins with `USE` of that database, and the settings are saved and
-- restored through user variables.

SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0;
SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0;
SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='TRADITIONAL,ALLOW_INVALID_DATES';

DROP SCHEMA IF EXISTS `wbshop` ;
CREATE SCHEMA IF NOT EXISTS `wbshop` DEFAULT CHARACTER SET latin1 ;
USE `wbshop` ;

-- -----------------------------------------------------
-- Table `wbshop`.`customers`
-- -----------------------------------------------------
CREATE TABLE IF NOT EXISTS `wbshop`.`customers` (
  `id` INT(11) NOT NULL AUTO_INCREMENT,
  `company` VARCHAR(50) NULL DEFAULT NULL,
  `city` VARCHAR(50) NULL DEFAULT NULL,
  `notes` LONGTEXT NULL DEFAULT NULL,
  PRIMARY KEY (`id`),
  INDEX `city` (`city` ASC))
ENGINE = InnoDB
DEFAULT CHARACTER SET = utf8;

-- -----------------------------------------------------
-- Table `wbshop`.`orders`
-- -----------------------------------------------------
CREATE TABLE IF NOT EXISTS `wbshop`.`orders` (
  `id` INT(11) NOT NULL AUTO_INCREMENT,
  `customer_id` INT(11) NULL DEFAULT NULL,
  `order_date` DATETIME NULL DEFAULT NULL,
  `shipping_fee` DECIMAL(19,4) NULL DEFAULT '0.0000',
  `paid` TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  INDEX `customer_id` (`customer_id` ASC),
  CONSTRAINT `fk_orders_customers`
    FOREIGN KEY (`customer_id`)
    REFERENCES `wbshop`.`customers` (`id`)
    ON DELETE NO ACTION
    ON UPDATE NO ACTION)
ENGINE = InnoDB
DEFAULT CHARACTER SET = utf8;

CREATE TABLE IF NOT EXISTS `wbshop`.`strings` (
  `string_id` INT(11) NOT NULL AUTO_INCREMENT,
  `string_data` VARCHAR(255) NULL DEFAULT NULL,
  PRIMARY KEY (`string_id`))
ENGINE = InnoDB
DEFAULT CHARACTER SET = latin1;

SET SQL_MODE=@OLD_SQL_MODE;
SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS;
SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS;

#
# Data, as a second file of the same script
#

SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0;
SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0;

USE `wbshop`;

INSERT INTO `orders` (`id`, `customer_id`, `order_date`, `shipping_fee`, `paid`) VALUES (30, 27, '2006-01-15 00:00:00', 200, 1);
INSERT INTO `orders` (`id`, `customer_id`, `order_date`, `shipping_fee`, `paid`) VALUES (31, 4, '2006-01-20 00:00:00', 5.25, 0);
INSERT INTO `orders` (`id`, `customer_id`, `order_date`, `shipping_fee`, `paid`) VALUES (32, NULL, NULL, 0, 0);
INSERT INTO `customers` (`id`, `company`, `city`, `notes`) VALUES (4, 'Company D', 'New York', NULL);
INSERT INTO `customers` (`id`, `company`, `city`, `notes`) VALUES (27, 'Company AA', 'Milwaukee', 'Ships to wbshop.customers\'s dock');
INSERT INTO `strings` (`string_id`, `string_data`) VALUES (1, 'Northwind Traders');
INSERT INTO `wbshop`.`strings` (`string_id`, `string_data`) VALUES (2, 'wbshop');
INSERT INTO `strings` (`string_id`, `string_data`) VALUES (3, 'Luleå, Köln');

SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS;
SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS;
