-- MariaDB: the functions whose documented category may hold side effects,
-- session state or server information (the server's own help tables: the
-- information and miscellaneous functions, and among the topics filed
-- under "Contents" the sequence, GTID and Galera ones), and every loadable
-- function installed on the server. One row per name.
SELECT name, GROUP_CONCAT(DISTINCT why ORDER BY why SEPARATOR '; ') AS why
FROM (
  SELECT LOWER(REPLACE(t.name, '\\_', '_')) AS name, c.name AS why
  FROM mysql.help_topic t
  JOIN mysql.help_category c ON c.help_category_id = t.help_category_id
  WHERE (c.name IN ('Information Functions', 'Miscellaneous Functions')
         OR (c.name = 'Contents' AND t.name REGEXP 'GTID|WSREP|VAL$|^KDF$'))
    AND REPLACE(t.name, '\\_', '_') REGEXP '^[A-Za-z0-9_]+$'
  UNION ALL
  SELECT LOWER(name), 'loadable function' FROM mysql.func
  UNION ALL
  SELECT LOWER(plugin_name), 'loadable function (plugin)'
  FROM information_schema.plugins WHERE plugin_type = 'FUNCTION'
) candidates
GROUP BY name
ORDER BY name;
