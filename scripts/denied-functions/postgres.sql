-- PostgreSQL: every function of pg_catalog (the schema a query reaches
-- without naming it) that may do more than compute a value from its
-- arguments, with why. One row per name; a name is flagged when any of its
-- overloads is:
--   parallel-unsafe ('u': writes, allocates transaction ids, WAL, sequences,
--     large objects, replication) or parallel-restricted ('r': session state,
--     locks, notifications, the client connection, SQL text it runs);
--   volatile (server state, files, signals, statistics, the clock);
--   not executable by PUBLIC (administrative);
--   or in a family that shows settings, server paths and addresses, other
--   sessions or transaction ids without being any of the above.
WITH flagged AS (
  SELECT p.proname,
         p.proparallel,
         p.provolatile,
         NOT (p.proacl IS NULL OR EXISTS (
               SELECT 1 FROM aclexplode(p.proacl) a
               WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')) AS admin,
         p.proname ~ ('^(current_setting|pg_show_all_settings|pg_settings_get_flags'
                      '|pg_config|pg_tablespace_location|pg_tablespace_databases'
                      '|pg_relation_filepath|pg_relation_filenode|pg_filenode_relation'
                      '|pg_postmaster_start_time|pg_conf_load_time|pg_walfile_name.*'
                      '|pg_current_snapshot|pg_snapshot_.*|pg_visible_in_snapshot|txid_.*'
                      '|pg_available_extension.*|pg_extension_update_paths'
                      '|inet_(client|server)_.*)$') AS family
  FROM pg_catalog.pg_proc p
  WHERE p.pronamespace = 'pg_catalog'::regnamespace
)
SELECT proname::text AS name,
       string_agg(DISTINCT concat_ws(' ',
         CASE proparallel WHEN 'u' THEN 'parallel-unsafe'
                          WHEN 'r' THEN 'parallel-restricted' END,
         CASE WHEN provolatile = 'v' THEN 'volatile' END,
         CASE WHEN admin THEN 'not-public' END,
         CASE WHEN family THEN 'settings/paths/sessions' END), '; ') AS why
FROM flagged
WHERE proparallel <> 's' OR provolatile = 'v' OR admin OR family
GROUP BY proname
ORDER BY proname;
