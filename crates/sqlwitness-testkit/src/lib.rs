//! Test support shared by every crate's tests (a dev-dependency only).
//!
//! * Gating in the open: a test that needs a server or the shared data asks
//!   here. When it is missing the test prints `SKIPPED (…)` and returns —
//!   unless `SQLWITNESS_REQUIRE_ENGINES=1` (CI sets it), when a missing
//!   server or data set fails the test instead of passing silently. A
//!   Docker daemon (`--containers`) has its own switch,
//!   `SQLWITNESS_REQUIRE_DOCKER=1` ([`missing_docker`]).
//! * Every check on every engine: [`for_each_engine`] and
//!   [`for_each_server`] run one case on each configured engine, so a test
//!   states the expected agreement or the documented difference once.
//! * Names of its own: [`unique_name`] for schemas, databases and logins a
//!   test creates (tests run in parallel processes).

use sqlwitness_dialect::EngineFacts;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

/// The variable that turns a skip into a failure.
pub const REQUIRE_ENV: &str = "SQLWITNESS_REQUIRE_ENGINES";

/// True when missing servers and data fail tests (CI).
pub fn required() -> bool {
    std::env::var(REQUIRE_ENV).as_deref() == Ok("1")
}

/// The one message for something a test needs and does not have: panics
/// under [`REQUIRE_ENV`], else prints `SKIPPED (…)`.
pub fn missing(what: &str) {
    if required() {
        panic!("{what}, and {REQUIRE_ENV}=1");
    }
    eprintln!("SKIPPED ({what})");
}

/// The variable that turns a missing Docker daemon into a failure, for
/// the tests of `--containers` only: CI that has the servers but no Docker
/// sets [`REQUIRE_ENV`] without it.
pub const REQUIRE_DOCKER_ENV: &str = "SQLWITNESS_REQUIRE_DOCKER";

/// [`missing`] for Docker: panics under [`REQUIRE_DOCKER_ENV`], else
/// prints `SKIPPED (…)` ([`REQUIRE_ENV`] does not apply).
pub fn missing_docker(what: &str) {
    if std::env::var(REQUIRE_DOCKER_ENV).as_deref() == Ok("1") {
        panic!("{what}, and {REQUIRE_DOCKER_ENV}=1");
    }
    eprintln!("SKIPPED ({what})");
}

/// The Chromium of the browser tests (`chromium`, `chromium-browser` or
/// `google-chrome` on PATH); `None` (after [`missing`]) without one.
pub fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new("sh")
                .args(["-c", &format!("command -v {b}")])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        missing("no chromium installed");
    }
    found
}

/// The DOM of `url` after headless `browser` loaded it and ran its
/// scripts (`--dump-dom`, a fresh profile, at most 60 s), at `width` px
/// when given.
pub fn headless_dom(browser: &str, url: &str, width: Option<u32>) -> String {
    let profile = tempfile::tempdir().expect("a temporary folder");
    let mut args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
    ];
    if let Some(w) = width {
        args.push("--hide-scrollbars".into());
        args.push(format!("--window-size={w},1400"));
    }
    args.push(format!("--user-data-dir={}", profile.path().display()));
    args.push("--dump-dom".into());
    args.push(url.to_string());
    let out = std::process::Command::new("timeout")
        .arg("60")
        .arg(browser)
        .args(&args)
        .output()
        .expect("timeout(1) runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The DOM of the page `html` (written to a temporary file, opened at
/// `url_suffix`: query string and fragment) after its own scripts and then
/// `driver` (appended, run on `DOMContentLoaded`) ran in headless
/// `browser` ([`headless_dom`]).
pub fn driven_page_dom(
    browser: &str,
    html: &str,
    url_suffix: &str,
    driver: &str,
    width: Option<u32>,
) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let page = dir.path().join("page.html");
    let html = html.replace(
        "</body></html>",
        &format!("<script>document.addEventListener('DOMContentLoaded',function(){{{driver}}});</script></body></html>"),
    );
    std::fs::write(&page, html).expect("the page is written");
    headless_dom(
        browser,
        &format!("file://{}{url_suffix}", page.display()),
        width,
    )
}

/// The administrative URL of a server engine, from
/// `SQLWITNESS_<ENGINE>_URL`; `None` (after [`missing`]) when it is not
/// set.
pub fn server_url(kind: EngineKind) -> Option<String> {
    let var = kind.url_env();
    match std::env::var(&var) {
        Ok(u) if !u.trim().is_empty() => Some(u.trim().to_string()),
        _ => {
            missing(&format!("{var} is not set"));
            None
        }
    }
}

/// Runs `case(kind, url)` on every server engine (of `adapter`, when
/// given) that is configured; a missing one is [`missing`]. Returns how
/// many engines ran.
pub fn for_each_server(adapter: Option<Adapter>, mut case: impl FnMut(EngineKind, &str)) -> usize {
    let mut ran = 0;
    for kind in EngineKind::all().into_iter().filter(|k| k.is_server()) {
        if adapter.is_some_and(|a| sqlwitness_dialect::shipped(kind).adapter != a) {
            continue;
        }
        if let Some(url) = server_url(kind) {
            eprintln!("-- {kind}");
            case(kind, &url);
            ran += 1;
        }
    }
    ran
}

/// Runs `case(kind, url)` on every engine: first the embedded ones, which
/// are always there — SQLite on the benchmark's own files (no URL), DuckDB
/// on copies in files of its own (the URL of a fresh folder, removed after
/// the case: `<engine>:<folder>`, as DuckDB names one) — then every
/// configured server engine (its administrative URL; a missing one is
/// [`missing`]). An engine with a URL holds copies: the case migrates
/// what it reads there first. Returns how many engines ran.
pub fn for_each_engine(mut case: impl FnMut(EngineKind, Option<&str>)) -> usize {
    let mut ran = 0;
    for kind in EngineKind::all().into_iter().filter(|k| !k.is_server()) {
        eprintln!("-- {kind}");
        if kind.holds_copies() {
            let folder = tempfile::tempdir().expect("a temporary folder");
            case(kind, Some(&format!("{kind}:{}", folder.path().display())));
        } else {
            case(kind, None);
        }
        ran += 1;
    }
    ran + for_each_server(None, |kind, url| case(kind, Some(url)))
}

/// Every configured server engine and its URL (a missing one is
/// [`missing`]).
pub fn servers() -> Vec<(EngineKind, String)> {
    let mut out = Vec::new();
    for_each_server(None, |kind, url| out.push((kind, url.to_string())));
    out
}

/// The engine names of a run on the reference engine and `servers`.
pub fn engine_names(servers: &[(EngineKind, String)]) -> Vec<&'static str> {
    std::iter::once(EngineKind::REFERENCE)
        .chain(servers.iter().map(|(k, _)| *k))
        .map(EngineKind::as_str)
        .collect()
}

/// `--server ENGINE=URL` for each of `servers`.
pub fn server_args(servers: &[(EngineKind, String)]) -> Vec<String> {
    servers
        .iter()
        .flat_map(|(k, u)| ["--server".to_string(), format!("{k}={u}")])
        .collect()
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// `rel` inside the repository (`examples/spider-dev`).
pub fn repo_path(rel: &str) -> PathBuf {
    repo_root().join(rel)
}

/// The shipped Spider example (a few databases, dev.json, tables.json).
pub fn example_spider() -> PathBuf {
    repo_path("examples/spider-dev")
}

/// `(sql, db_id)` for every question of the shipped Spider `dev.json`
/// (1,034 gold queries); `None` (after [`missing`]) when it is not there.
pub fn spider_dev_gold() -> Option<Vec<(String, String)>> {
    let path = example_spider().join("dev.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        missing(&format!("{} not found", path.display()));
        return None;
    };
    let questions: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    Some(
        questions
            .iter()
            .map(|q| {
                (
                    q["query"].as_str().unwrap_or_default().to_string(),
                    q["db_id"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect(),
    )
}

/// `rel` inside the shared data beside the repository (`../shared/data`,
/// or `SQLWITNESS_DATA`); `None` (after [`missing`]) when it is not there.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let base = std::env::var("SQLWITNESS_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("../shared/data"));
    let path = base.join(rel);
    if path.exists() {
        Some(path)
    } else {
        missing(&format!("no {} (the shared data)", path.display()));
        None
    }
}

/// A name for a schema, database or login unique to this process and call:
/// `<prefix>_<pid>_<n>_<nanos>`, short enough for every engine.
pub fn unique_name(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}_{}_{}_{:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos & 0xffff
    )
}

/// Writes a zip file at `path` of `(name, bytes, deflated)` members, as
/// zip tools write them (a dump shipped zipped, for the tests).
pub fn write_zip(path: &std::path::Path, members: &[(&str, &[u8], bool)]) {
    let mut out = Vec::new();
    let mut dir = Vec::new();
    for (name, bytes, deflated) in members {
        let mut crc = flate2::Crc::new();
        crc.update(bytes);
        let data = if *deflated {
            use std::io::Write;
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), Default::default());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        } else {
            bytes.to_vec()
        };
        let method: u16 = if *deflated { 8 } else { 0 };
        let local = out.len() as u32;
        let fields = |sig: &[u8], central: bool| {
            let mut h = sig.to_vec();
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&method.to_le_bytes());
            h.extend_from_slice(&[0; 4]);
            h.extend_from_slice(&crc.sum().to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                // Comment length, disk, internal and external attributes.
                h.extend_from_slice(&[0; 10]);
                h.extend_from_slice(&local.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend_from_slice(&fields(b"PK\x03\x04", false));
        out.extend_from_slice(&data);
        dir.extend_from_slice(&fields(b"PK\x01\x02", true));
    }
    let dir_at = out.len() as u32;
    out.extend_from_slice(&dir);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(dir.len() as u32).to_le_bytes());
    out.extend_from_slice(&dir_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    std::fs::write(path, out).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_short() {
        let a = unique_name("swt");
        let b = unique_name("swt");
        assert_ne!(a, b);
        assert!(a.len() < 40, "{a}");
    }

    #[test]
    fn the_example_ships_with_the_repository() {
        assert!(example_spider().join("dev.json").exists());
    }

    #[test]
    fn every_engine_runs_the_embedded_ones_first() {
        let mut seen = Vec::new();
        let mut folders = Vec::new();
        let n = for_each_engine(|k, url| {
            // A URL for every engine on copies, none for the one on the
            // benchmark's files.
            assert_eq!(url.is_none(), !k.holds_copies(), "{k}");
            if let (false, Some(url)) = (k.is_server(), url) {
                let folder = url
                    .strip_prefix(&format!("{k}:"))
                    .expect("<engine>:<folder>");
                assert!(Path::new(folder).is_dir(), "{url}");
                folders.push(PathBuf::from(folder));
            }
            seen.push(k);
        });
        assert_eq!(n, seen.len());
        // SQLite and DuckDB need nothing configured: they always run.
        assert_eq!(seen[..2], [EngineKind::Sqlite, EngineKind::Duckdb]);
        assert!(folders.iter().all(|f| !f.exists()), "{folders:?}");
        if required() {
            assert_eq!(n, EngineKind::all().len(), "{seen:?}");
        }
    }
}
