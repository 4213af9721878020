-- MySQL: the functions whose documented category may hold side effects,
-- session state or server information (the server's own help tables), and
-- every loadable function installed on the server (callable by any login:
-- loadable functions have no EXECUTE privilege). One row per name.
SELECT name, GROUP_CONCAT(DISTINCT why ORDER BY why SEPARATOR '; ') AS why
FROM (
  SELECT LOWER(t.name) AS name, c.name AS why
  FROM mysql.help_topic t
  JOIN mysql.help_category c ON c.help_category_id = t.help_category_id
  WHERE c.name IN ('Locking Functions', 'GTID', 'Information Functions',
                   'Internal Functions', 'Miscellaneous Functions',
                   'Performance Schema Functions', 'Enterprise Encryption Functions')
    AND t.name REGEXP '^[A-Za-z0-9_]+$'
  UNION ALL
  SELECT LOWER(udf_name), 'loadable function'
  FROM performance_schema.user_defined_functions
  UNION ALL
  SELECT LOWER(name), 'loadable function' FROM mysql.func
) candidates
GROUP BY name
ORDER BY name;
