//! End-to-end: `eval --ves-runs 2` on the shipped Spider dev example,
//! SQLite only — the timed runs of each correct prediction in report.json,
//! VES and R-VES in the summary, summary.md and on the terminal; nothing of
//! it without the flag.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Exit code and stderr.
fn eval(out: &Path, pred: &Path, extra: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args(["eval", "--bench", "examples/spider-dev", "--split", "dev"])
        .args(["--limit", "6", "--pred"])
        .arg(pred)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// Questions 0–3 answered with their gold (correct), 4 wrong, 5 abstained.
fn predictions(dir: &Path) -> PathBuf {
    let dev: Json = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/spider-dev/dev.json")).unwrap(),
    )
    .unwrap();
    let lines: Vec<String> = (0..6)
        .map(|i| {
            let sql = match i {
                0..=3 => Json::from(dev[i]["query"].as_str().unwrap()),
                4 => Json::from("SELECT 'not the answer' FROM singer"),
                _ => Json::Null,
            };
            serde_json::json!({"id": i, "sql": sql}).to_string()
        })
        .collect();
    let p = dir.join("pred.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn report(out: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn ves_runs_time_correct_predictions_only() {
    let tmp = tempfile::tempdir().unwrap();
    let pred = predictions(tmp.path());
    let out = tmp.path().join("ves");
    let (code, stderr) = eval(&out, &pred, &["--ves-runs", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Efficiency (VES, R-VES"), "{stderr}");
    let r = report(&out);
    assert_eq!(r["run"]["ves_runs"], 2);
    let qs = r["questions"].as_array().unwrap();
    for q in qs {
        let o = &q["engines"]["sqlite"];
        let id = q["id"].as_u64().unwrap();
        if id <= 3 {
            assert_eq!(o["verdict"], "match", "{q}");
            let v = &o["ves"];
            assert_eq!(v["method"], "sqlite_steps", "{v}");
            for side in ["gold_ms", "pred_ms"] {
                let ms = v[side].as_array().unwrap();
                assert_eq!(ms.len(), 2, "{v}");
                assert!(ms.iter().all(|m| m.as_f64().unwrap() >= 0.0), "{v}");
            }
            let ratio = v["time_ratio"].as_f64().unwrap();
            assert!(ratio > 0.0 && ratio.is_finite(), "{v}");
            assert!(v["ratio_min"].as_f64().unwrap() <= v["ratio_max"].as_f64().unwrap());
            let ves = v["ves"].as_f64().unwrap();
            assert!((ves - ratio.sqrt() * 100.0).abs() < 1e-6, "{v}");
            assert!(
                [25.0, 50.0, 75.0, 100.0, 125.0].contains(&(v["reward"].as_f64().unwrap() * 100.0))
            );
            assert!(v.get("error").is_none(), "{v}");
        } else {
            assert!(o.get("ves").is_none(), "only a match is timed: {q}");
        }
    }
    let s = &r["summary"]["engines"]["sqlite"]["ves"];
    assert_eq!(s["method"], "sqlite_steps");
    assert_eq!(s["runs"], 2);
    assert_eq!(s["questions"], 6);
    assert_eq!(s["timed"], 4);
    assert_eq!(s["failed"], 0);
    // The mean over the six questions, the two incorrect ones counting 0.
    let terms: f64 = qs
        .iter()
        .filter_map(|q| q["engines"]["sqlite"]["ves"]["ves"].as_f64())
        .sum();
    assert!(
        (s["ves"].as_f64().unwrap() - terms / 6.0).abs() < 1e-6,
        "{s}"
    );
    let r_ves = s["r_ves"].as_f64().unwrap();
    assert!(
        r_ves > 0.0 && r_ves <= 125f64.sqrt() * 10.0 * 4.0 / 6.0 + 1e-9,
        "{s}"
    );
    let spread = &s["ves_spread"];
    assert!(spread["min"].as_f64().unwrap() <= spread["max"].as_f64().unwrap());
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## Efficiency: VES and R-VES"), "{md}");
    assert!(
        md.contains("| sqlite | sqlite_steps | 2 | 4 of 6 |"),
        "{md}"
    );

    // Without the flag: no timing, no field.
    let plain = tmp.path().join("plain");
    let (code, stderr) = eval(&plain, &pred, &[]);
    assert_eq!(code, 0, "{stderr}");
    let r = report(&plain);
    assert!(r["run"].get("ves_runs").is_none());
    assert!(r["summary"]["engines"]["sqlite"].get("ves").is_none());
    assert!(r["questions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|q| q["engines"]["sqlite"].get("ves").is_none()));
    assert!(!stderr.contains("Efficiency"));
}
