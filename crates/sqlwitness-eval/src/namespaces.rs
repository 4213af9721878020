//! The server namespaces an evaluation reads, which its own login is
//! granted.

/// The namespaces an evaluation of the databases `db_ids` reads on a
/// server: each database's copy, and its test-suite instances' copies.
pub(crate) fn eval_namespaces(plan: &crate::EvalPlan, db_ids: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for id in db_ids {
        out.push(plan.bench.database(id).namespace);
        if let Some(suite) = &plan.suite {
            let instances = suite.instances(id).map_or(0, <[_]>::len);
            out.extend(
                (0..instances)
                    .filter_map(|k| suite.instance_database(id, k))
                    .map(|db| db.namespace),
            );
        }
    }
    out
}
